/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, for the proof of work on a page where
 * `crypto.subtle` is missing: a site served over plain http at a name other than localhost is an
 * insecure context, and there the browser has no Web Crypto. Synchronous, and short inputs (a
 * salt and a number) are all it is asked for, so it favours few bytes over throughput on long
 * ones. Tested digest for digest against node:crypto (test/unit/session/sha256.test.ts).
 */

/**
 * The first 32 bits of the fraction of the `k`th root of `p`: floor(root(p · 2^32k)) mod 2^32,
 * found exactly in integers from a floating-point guess, so no engine's `Math.pow` can change a bit.
 */
function rootBits(p: number, k: number): number {
  const power = BigInt(k);
  const n = BigInt(p) << (32n * power);
  let x = BigInt(Math.floor(p ** (1 / k) * 2 ** 32));
  while (x ** power > n) x--;
  while ((x + 1n) ** power <= n) x++;
  return Number(x & 0xffffffffn);
}

/** The first 64 primes, whose cube roots give the round constants and square roots the first hash. */
const primes: number[] = [];
for (let n = 2; primes.length < 64; n++) if (primes.every((p) => n % p)) primes.push(n);
const K = primes.map((p) => rootBits(p, 3));
const INITIAL = primes.slice(0, 8).map((p) => rootBits(p, 2));
/** The message schedule, one for every call: the function never yields, so no two calls share it at once. */
const w = new Uint32Array(64);

const rotate = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/**
 * The 32-byte digest of the first `length` bytes of `data`. It reads the message, its padding and
 * its length straight into the schedule and allocates only the digest (64 bytes at most are kept
 * in V8's heap, not apart): the solver hashes thousands of inputs a second into one buffer, and
 * each ArrayBuffer more was garbage whose collection showed as long tasks on a slow phone.
 */
export function sha256(data: Uint8Array, length = data.length): Uint8Array {
  // The message, a 1 bit, zeros, and its length in bits (big-endian, 64 bits): whole 64-byte blocks.
  const blocks = (length + 72) >>> 6;
  const h = INITIAL.slice();
  for (let block = 0; block < blocks; block++) {
    for (let i = 0, j = block * 64; i < 16; i++) {
      let word = 0;
      for (const end = j + 4; j < end; j++)
        word = (word << 8) | (j < length ? data[j] : j === length ? 0x80 : 0);
      w[i] = word;
    }
    if (block === blocks - 1) {
      w[14] = length / 0x20000000;
      w[15] = length << 3;
    }
    for (let i = 16; i < 64; i++)
      w[i] =
        w[i - 16] +
        (rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >>> 3)) +
        w[i - 7] +
        (rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >>> 10));
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 =
        (hh + (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = ((rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    [a, b, c, d, e, f, g, hh].forEach((x, i) => (h[i] = (h[i] + x) | 0));
  }
  // Big-endian; a Uint8Array keeps each byte's low 8 bits.
  const digest = new Uint8Array(32);
  for (let i = 0; i < 32; i++) digest[i] = h[i >> 2] >>> (24 - (i & 3) * 8);
  return digest;
}
