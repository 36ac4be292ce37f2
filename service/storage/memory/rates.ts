import { RateWindows } from '../rate-windows.js';
import type { RateStore } from '../types.js';

/** Rate windows in this process's memory (RateWindows: bounded, oldest evicted first). */
export class MemoryRateStore implements RateStore {
  private readonly windows: RateWindows;

  constructor(maxRateWindows?: number) {
    this.windows = new RateWindows(maxRateWindows);
  }

  async countRequest(key: string, windowMs: number, now: number) {
    return this.windows.count(key, windowMs, now);
  }

  async purgeRateWindows(now: number, max: number) {
    return this.windows.purge(now, max);
  }
}
