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
export const TEMPLATE_FILE = 'pgdata-template.tar.br';

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
  const root = normalize(dataDir) + sep;
  const versionFile = join(dataDir, 'PG_VERSION');
  let buffer: Buffer = Buffer.alloc(0);
  /** The entry being read: its file (null for a directory, or PG_VERSION kept for last), bytes left, padding after. */
  let entry: { fd: number | null; left: number; padding: number } | null = null;
  let version: Buffer[] | null = null;
  const target = (name: string) => {
    const path = normalize(join(dataDir, name.replace(/^\/+/, '')));
    if (!path.startsWith(root))
      throw new Error(`the PGlite template holds a path outside its directory: ${name}`);
    return path;
  };
  await rm(versionFile, { force: true });
  for await (const chunk of createReadStream(template).pipe(createBrotliDecompress())) {
    buffer = buffer.length ? Buffer.concat([buffer, chunk as Buffer]) : (chunk as Buffer);
    for (;;) {
      if (entry) {
        const take = Math.min(entry.left, buffer.length);
        if (take) {
          if (entry.fd !== null) writeSync(entry.fd, buffer, 0, take);
          else version?.push(Buffer.from(buffer.subarray(0, take)));
          buffer = buffer.subarray(take);
          entry.left -= take;
        }
        // The data is padded to 512-byte blocks; the padding may come with the next chunk.
        if (entry.left > 0 || buffer.length < entry.padding) break;
        buffer = buffer.subarray(entry.padding);
        if (entry.fd !== null) closeSync(entry.fd);
        entry = null;
        continue;
      }
      if (buffer.length < 512) break;
      const header = buffer.subarray(0, 512);
      buffer = buffer.subarray(512);
      if (header.every((b) => b === 0)) continue; // end-of-archive blocks
      const field = (from: number, to: number) =>
        header.subarray(from, to).toString('utf8').replace(/\0.*$/s, '');
      const name = field(345, 500) ? `${field(345, 500)}/${field(0, 100)}` : field(0, 100);
      const size = Number.parseInt(field(124, 136).trim() || '0', 8);
      const type = String.fromCharCode(header[156]);
      const path = target(name);
      if (type === '5') {
        mkdirSync(path, { recursive: true });
        continue;
      }
      if (type !== '0' && type !== '\0')
        throw new Error(`the PGlite template holds an entry of type ${type}: ${name}`);
      let fd: number | null = null;
      if (path === versionFile) version = [];
      else {
        mkdirSync(dirname(path), { recursive: true });
        fd = openSync(path, 'w', 0o600);
      }
      entry = { fd, left: size, padding: (512 - (size % 512)) % 512 };
      if (size === 0) {
        if (fd !== null) closeSync(fd);
        entry = null;
      }
    }
  }
  if (entry || !version) throw new Error('the PGlite template is incomplete');
  await writeFile(versionFile, Buffer.concat(version), { mode: 0o600 });
}
