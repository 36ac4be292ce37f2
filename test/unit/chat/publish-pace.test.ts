import { describe, expect, it } from 'vitest';
import {
  FIRST_PUBLISH_INTERVAL_MS,
  LONGEST_PUBLISH_INTERVAL_MS,
  publishInterval,
} from '../../../src/chat/publish-pace.js';

describe('publishInterval', () => {
  it('publishes a short answer every 50 ms and waits longer as the answer grows, up to 150 ms', () => {
    expect(FIRST_PUBLISH_INTERVAL_MS).toBe(50);
    expect(LONGEST_PUBLISH_INTERVAL_MS).toBe(150);
    expect(publishInterval(0)).toBe(50);
    expect(publishInterval(2_000)).toBe(70);
    expect(publishInterval(5_000)).toBe(100);
    expect(publishInterval(10_000)).toBe(150);
    expect(publishInterval(200_000)).toBe(150);
  });

  it('never waits less as the answer grows', () => {
    const lengths = Array.from({ length: 200 }, (_, i) => i * 97);
    const intervals = lengths.map(publishInterval);
    expect(intervals.every((interval, i) => i === 0 || interval >= intervals[i - 1])).toBe(true);
  });
});
