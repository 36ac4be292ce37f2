import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile as readFileFromDisk, readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { ConsoleOptions, PasswordHasher, WidgetRelease } from './routes/context.js';

/** Off the event loop: a first request for the widget's script waits for it, no other request does. */
const gzip = promisify(gzipCallback);

/** scrypt's cost: N (a power of two, the memory and the time), r (block size), p (parallel lanes). */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * scrypt (RFC 7914): memory-hard, in Node itself (argon2 would need a native or wasm package).
 * N = 2^17, r = 8, p = 1, OWASP's current minimum: 128 MiB and about 0.4 s per hash on one
 * core of a small server, which is what a sign-in costs and what each guess costs an attacker
 * holding the table. Hashes made with lower parameters (2^15 before) still verify and are
 * replaced at their next sign-in.
 */
const SCRYPT_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const KEY_BYTES = 32;
/** What a stored hash may ask for: parameters past these are not ours, and would take the memory of the process. */
const MAX_PARAMS: ScryptParams = { N: 2 ** 20, r: 32, p: 16 };

/**
 * scrypt on a thread of its own. `crypto.scrypt` runs on libuv's pool (four threads), which
 * `dns.lookup` shares: 200 sign-ins at once held a visitor's answer 10 s behind them while the
 * model host's name waited to resolve. The thread hashes one password at a time; the service
 * bounds how many wait (`boundedPasswords`).
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', ({ id, password, salt, N, r, p, bytes }) => {
  try {
    const key = scryptSync(password, Buffer.from(salt), bytes, { N, r, p, maxmem: 256 * N * r * p });
    parentPort.postMessage({ id, key });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.name : 'Error' });
  }
});`;

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (key: Buffer) => void; reject: (error: Error) => void }>();

/** The hashing thread, started on first use; it keeps the process alive only while it hashes. */
function hashingThread(): Worker {
  if (worker) return worker;
  const thread = new Worker(WORKER_SOURCE, { eval: true });
  thread.unref();
  thread.on('message', ({ id, key, error }: { id: number; key?: Uint8Array; error?: string }) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (!pending.size) thread.unref();
    if (key) waiting?.resolve(Buffer.from(key));
    else waiting?.reject(new Error(`scrypt failed: ${error}`));
  });
  const fail = (error: Error) => {
    if (worker === thread) worker = undefined;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  thread.on('error', fail);
  thread.on('exit', () => fail(new Error('the hashing thread stopped')));
  return (worker = thread);
}

const derive = (password: string, salt: Buffer, { N, r, p }: ScryptParams) =>
  new Promise<Buffer>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    const thread = hashingThread();
    thread.ref();
    thread.postMessage({ id, password: password.normalize('NFKC'), salt, N, r, p, bytes: KEY_BYTES });
  });

/** `scrypt$N$r$p$salt$key`, or undefined when `stored` is not one this hasher can read. */
function parse(stored: string) {
  const [kind, n, r, p, salt, key] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (kind !== 'scrypt' || !salt || !key) return undefined;
  const fits = (Object.keys(params) as (keyof ScryptParams)[]).every(
    (name) => Number.isInteger(params[name]) && params[name] >= 1 && params[name] <= MAX_PARAMS[name],
  );
  return fits
    ? { params, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') }
    : undefined;
}

/** Passwords as scrypt hashes with `params` (the parameters travel in the stored hash). */
export function scryptHasher(params: ScryptParams = SCRYPT_PARAMS): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, params);
      return [
        'scrypt',
        params.N,
        params.r,
        params.p,
        salt.toString('base64url'),
        key.toString('base64url'),
      ].join('$');
    },
    async verify(password, stored) {
      const parsed = parse(stored);
      if (!parsed) return false;
      // The stored parameters, not today's: raising them later keeps old hashes working.
      const actual = await derive(password, parsed.salt, parsed.params);
      return actual.length === parsed.key.length && timingSafeEqual(actual, parsed.key);
    },
    outdated(stored) {
      const parsed = parse(stored);
      return (
        !parsed || parsed.params.N < params.N || parsed.params.r < params.r || parsed.params.p < params.p
      );
    },
  };
}

export const scryptPasswords = scryptHasher();

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
          body: await readFileFromDisk(join(dir, path)),
          type: TYPES[extname(path)] ?? 'application/octet-stream',
        };
      } catch {
        return undefined;
      }
    },
  };
}

/** A version or a file name's part as builds write them: letters, digits, `.`, `_`, `+`, `-`. */
const NAME_PART = /^[\w.+-]+$/;

/**
 * Whether a release's version and file names are ones its URLs can name (decision 760): a
 * folder's name with a space, `%` or `?` was kept where no address reached it, and a name in
 * sri.json such as `../../x` was read from outside the release's folder.
 */
function releaseNames(version: string, names: readonly string[]): boolean {
  const part = (text: string) => NAME_PART.test(text) && !/^\.+$/.test(text);
  return part(version) && names.every((name) => name.split('/').every(part));
}

/**
 * The widget release the service's build copied into `widget/{version}/` (scripts/widget-release.mjs):
 * its sri.json read at once, each file read with a gzip copy when first asked for (by a page, or
 * to keep the release in the store), then held in memory (a few hundred KB: the script a visitor
 * downloads is a third of its size). A start reads no other file (decision 763). null when the
 * service was built without the widget.
 */
export async function nodeWidgetRelease(
  options: { dir?: string; readFile?: (path: string) => Promise<Uint8Array> } = {},
): Promise<WidgetRelease | null> {
  const dir = options.dir ?? built('widget', '.');
  const { readFile = readFileFromDisk } = options;
  const versions = dir ? await readdir(dir).catch(() => []) : [];
  if (!dir || versions.length !== 1) return null;
  const [version] = versions;
  const folder = join(dir, version);
  let sriJson: Uint8Array;
  let sri: Record<string, string>;
  try {
    sriJson = await readFile(join(folder, 'sri.json'));
    sri = JSON.parse(new TextDecoder().decode(sriJson));
  } catch {
    return null;
  }
  if (!releaseNames(version, Object.keys(sri))) return null;
  const files = new Map<string, Promise<{ body: Uint8Array; gzip: Uint8Array } | undefined>>();
  const read = async (name: string) => {
    const body = name === 'sri.json' ? sriJson : await readFile(join(folder, name));
    return { body, gzip: await gzip(body, { level: 9 }) };
  };
  return {
    version,
    sri,
    file(name) {
      if (name !== 'sri.json' && !Object.hasOwn(sri, name)) return Promise.resolve(undefined);
      let file = files.get(name);
      // A file that could not be read is tried again next time (the caller falls back meanwhile).
      if (!file) files.set(name, (file = read(name).catch(() => (files.delete(name), undefined))));
      return file;
    },
  };
}
