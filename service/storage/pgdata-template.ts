import { closeSync, createReadStream, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';

/**
 * A PGlite data directory with the service's schema migrated, made at build time
 * (service/scripts/pgdata-template.mjs) for the pinned PGlite. PGlite's own first start runs
 * initdb in a second WebAssembly instance and copies the result through memory (770-850 MB of
 * RSS), and the migrations on a fresh database grow its heap by another 80 MB. Unpacking this
 * file instead makes a first start cost what any later start does.
 */
const TEMPLATE_FILE = 'pgdata-template.tar.br';

/** The template beside the built service (dist/), or beside the sources' build (dist/ of service/). */
export function findTemplate(): string | undefined {
  const candidates = [
    new URL(`./${TEMPLATE_FILE}`, import.meta.url),
    new URL(`../dist/${TEMPLATE_FILE}`, import.meta.url),
  ];
  for (const url of candidates) {
    if (url.protocol !== 'file:') continue;
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * Unpacks the template into `dataDir` as a stream (a tar inside brotli), each file written as
 * its bytes arrive. PG_VERSION is written last: PGlite takes a directory with it as
 * initialized, so an interrupted unpack is simply done again.
 */
export async function unpackTemplate(template: string, dataDir: string): Promise<void> {
  const versionFile = join(dataDir, 'PG_VERSION');
  const tar = new TarWriter(dataDir, versionFile);
  await rm(versionFile, { force: true });
  for await (const chunk of createReadStream(template).pipe(createBrotliDecompress()))
    tar.push(chunk as Buffer);
  await writeFile(versionFile, tar.version(), { mode: 0o600 });
}

/** A tar's entries written under one directory as its bytes come; PG_VERSION kept in memory. */
class TarWriter {
  private readonly root: string;
  private buffer: Buffer = Buffer.alloc(0);
  /** The entry being read: its file (null for PG_VERSION, kept for last), bytes left, padding after. */
  private entry: { fd: number | null; left: number; padding: number } | null = null;
  private versionBytes: Buffer[] | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly versionFile: string,
  ) {
    this.root = normalize(dataDir) + sep;
  }

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (this.entry ? this.entryBytes(this.entry) : this.header());
  }

  /** PG_VERSION's bytes, once the whole archive came. */
  version(): Buffer {
    if (this.entry || !this.versionBytes) throw new Error('the PGlite template is incomplete');
    return Buffer.concat(this.versionBytes);
  }

  /** Writes what the buffer holds of the entry; false when more bytes are needed. */
  private entryBytes(entry: { fd: number | null; left: number; padding: number }): boolean {
    const take = Math.min(entry.left, this.buffer.length);
    if (take) {
      if (entry.fd !== null) writeSync(entry.fd, this.buffer, 0, take);
      else this.versionBytes?.push(Buffer.from(this.buffer.subarray(0, take)));
      this.buffer = this.buffer.subarray(take);
      entry.left -= take;
    }
    // The data is padded to 512-byte blocks; the padding may come with the next chunk.
    if (entry.left > 0 || this.buffer.length < entry.padding) return false;
    this.buffer = this.buffer.subarray(entry.padding);
    if (entry.fd !== null) closeSync(entry.fd);
    this.entry = null;
    return true;
  }

  /** Reads the next 512-byte header and opens its entry; false when more bytes are needed. */
  private header(): boolean {
    if (this.buffer.length < 512) return false;
    const header = this.buffer.subarray(0, 512);
    this.buffer = this.buffer.subarray(512);
    if (header.every((b) => b === 0)) return true; // end-of-archive blocks
    const field = (from: number, to: number) =>
      header.subarray(from, to).toString('utf8').replace(/\0.*$/s, '');
    const name = field(345, 500) ? `${field(345, 500)}/${field(0, 100)}` : field(0, 100);
    const size = Number.parseInt(field(124, 136).trim() || '0', 8);
    const type = String.fromCharCode(header[156]);
    const path = this.target(name);
    if (type === '5') {
      mkdirSync(path, { recursive: true });
      return true;
    }
    if (type !== '0' && type !== '\0')
      throw new Error(`the PGlite template holds an entry of type ${type}: ${name}`);
    let fd: number | null = null;
    if (path === this.versionFile) this.versionBytes = [];
    else {
      mkdirSync(dirname(path), { recursive: true });
      fd = openSync(path, 'w', 0o600);
    }
    if (size > 0) this.entry = { fd, left: size, padding: (512 - (size % 512)) % 512 };
    else if (fd !== null) closeSync(fd);
    return true;
  }

  private target(name: string): string {
    const path = normalize(join(this.dataDir, name.replace(/^\/+/, '')));
    if (!path.startsWith(this.root))
      throw new Error(`the PGlite template holds a path outside its directory: ${name}`);
    return path;
  }
}
