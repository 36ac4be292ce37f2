import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../src/session/sha256.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const reference = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('sha256, the proof of work where crypto.subtle is missing', () => {
  it("gives FIPS 180-4's digests for its examples", () => {
    const text = (s: string) => hex(sha256(new TextEncoder().encode(s)));
    expect(text('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(text('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('gives the digest node:crypto gives for every length across block edges, and for random inputs', () => {
    // Every length from 0 to 300 bytes: padding crosses a block at 56 and 64 bytes, and again above.
    for (let length = 0; length <= 300; length++) {
      const bytes = randomBytes(length);
      expect(hex(sha256(bytes)), `length ${length}`).toBe(reference(bytes));
    }
    for (let i = 0; i < 2000; i++) {
      const bytes = randomBytes(1 + Math.floor(Math.random() * 200));
      expect(hex(sha256(bytes))).toBe(reference(bytes));
    }
    const large = randomBytes(100_000);
    expect(hex(sha256(large))).toBe(reference(large));
  });

  it('gives the digests crypto.subtle gives for what the solver hashes: a salt and a number', async () => {
    const encoder = new TextEncoder();
    const salt = `${randomBytes(12).toString('hex')}?expires=${Math.floor(Date.now() / 1000)}`;
    for (let n = 0; n < 5000; n += 7) {
      const input = encoder.encode(salt + n);
      expect(hex(sha256(input))).toBe(hex(new Uint8Array(await crypto.subtle.digest('SHA-256', input))));
    }
  });

  it("hashes a buffer's first bytes only, when told how many (the solver's one buffer)", () => {
    const buffer = randomBytes(200);
    for (const length of [0, 1, 55, 56, 64, 119, 120, 199])
      expect(hex(sha256(buffer, length)), `length ${length}`).toBe(reference(buffer.subarray(0, length)));
  });

  it('gives the same digest for the same input, call after call (its shared schedule holds nothing over)', () => {
    const a = randomBytes(100);
    const b = randomBytes(30);
    const first = hex(sha256(a));
    sha256(b);
    expect(hex(sha256(a))).toBe(first);
  });
});
