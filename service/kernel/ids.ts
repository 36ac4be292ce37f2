const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Random bytes drawn 4 KiB at a time: each call of getRandomValues is a trip into the runtime
 * with its checks, which cost more than the 16 bytes an id needs (1.8 % of the main thread at
 * 500 concurrent answers, three ids per question). The bytes are the same CSPRNG's, each used once.
 */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let used = 0;

/** Unguessable ids: 128 random bits, prefixed by kind. */
export function randomId(prefix: string): string {
  if (used + 16 > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    used = 0;
  }
  let id = `${prefix}_`;
  for (let i = used; i < used + 16; i++) id += HEX[pool[i]];
  used += 16;
  return id;
}

export const THREAD_ID = /^th_[0-9a-f]{32}$/;
export const ANSWER_ID = /^msg_[0-9a-f]{32}$/;
