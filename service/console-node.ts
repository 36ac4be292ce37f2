import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { ConsoleOptions, PasswordHasher, WidgetRelease } from './routes/context.js';

/**
 * scrypt (RFC 7914) from node:crypto: memory-hard, in Node itself (argon2 would need a native
 * or wasm package). N = 2^15, r = 8, p = 1: 32 MiB and about 0.1 s per hash on one core,
 * which is what a sign-in costs and what each guess costs an attacker holding the table.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;

const derive = (password: string, salt: Buffer, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_BYTES,
      { ...options, maxmem: 128 * options.N! * options.r! * 2 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });

export const scryptPasswords: PasswordHasher = {
  async hash(password) {
    const salt = randomBytes(16);
    const key = await derive(password, salt, PARAMS);
    return [
      'scrypt',
      PARAMS.N,
      PARAMS.r,
      PARAMS.p,
      salt.toString('base64url'),
      key.toString('base64url'),
    ].join('$');
  },
  async verify(password, stored) {
    const [kind, n, r, p, salt, key] = stored.split('$');
    if (kind !== 'scrypt' || !salt || !key) return false;
    const expected = Buffer.from(key, 'base64url');
    // The stored parameters, not today's: raising them later keeps old hashes working.
    const actual = await derive(password, Buffer.from(salt, 'base64url'), {
      N: Number(n),
      r: Number(r),
      p: Number(p),
    });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  },
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * Where a built folder is: `name/` beside the bundled service (dist/), or `dist/name/` beside
 * this file when the service runs from source (the demo, the tests); known by what only a build
 * holds (the source's console/ has an index.html too, naming main.ts).
 */
function built(name: string, marker: string): string | undefined {
  const here = fileURLToPath(new URL('.', import.meta.url));
  return [join(here, name), join(here, 'dist', name)].find((dir) => existsSync(join(dir, marker)));
}

/** The console for Node: scrypt passwords, the built pages from disk. */
export async function nodeConsole(options: { dir?: string } = {}): Promise<ConsoleOptions> {
  const dir = options.dir ?? built('console', 'assets');
  return {
    passwords: scryptPasswords,
    files: async (path) => {
      if (!dir) return undefined;
      try {
        return {
          body: await readFile(join(dir, path)),
          type: TYPES[extname(path)] ?? 'application/octet-stream',
        };
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The widget release the service's build copied into `widget/{version}/` (scripts/widget-release.mjs),
 * read once into memory with a gzip copy of each file (a few hundred KB: the script a visitor
 * downloads is a third of its size); null when the service was built without the widget.
 */
export async function nodeWidgetRelease(options: { dir?: string } = {}): Promise<WidgetRelease | null> {
  const dir = options.dir ?? built('widget', '.');
  const versions = dir ? await readdir(dir).catch(() => []) : [];
  if (!dir || versions.length !== 1) return null;
  const [version] = versions;
  const folder = join(dir, version);
  let sri: Record<string, string>;
  try {
    sri = JSON.parse(await readFile(join(folder, 'sri.json'), 'utf8'));
  } catch {
    return null;
  }
  const files = new Map<string, { body: Uint8Array; gzip: Uint8Array }>();
  for (const name of [...Object.keys(sri), 'sri.json']) {
    const body = await readFile(join(folder, name));
    files.set(name, { body, gzip: gzipSync(body, { level: 9 }) });
  }
  return { version, sri, file: async (name) => files.get(name) };
}
