import { describe, expect, it } from 'vitest';
import { ANSWER_ID, randomId } from '../../../../service/kernel/ids.js';

describe('randomId', () => {
  it('gives well-formed ids that never repeat, across many refills of its random pool', () => {
    // 4 KiB of random bytes make 256 ids: 3,000 ids refill the pool eleven times.
    const ids = Array.from({ length: 3_000 }, () => randomId('msg'));
    expect(ids.every((id) => ANSWER_ID.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
