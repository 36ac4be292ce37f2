/**
 * Fixed rate windows in process memory, for the stores one process owns. A full table evicts
 * its oldest windows: a flood of new keys costs the flooder's oldest neighbours a fresh window,
 * never every visitor their service. Map order is insertion order, and a restarted window is
 * re-inserted, so the first entries are always the oldest.
 */
export class RateWindows {
  private readonly windows = new Map<string, { resetAt: number; count: number }>();

  constructor(private readonly max = 100_000) {}

  count(key: string, windowMs: number, now: number) {
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.windows.delete(key);
      // O(1): the first entry is the oldest (most likely expired anyway); a full scan per new
      // key would hand a flood of keys a quadratic cost to impose.
      if (this.windows.size >= this.max) this.windows.delete(this.windows.keys().next().value!);
      window = { resetAt: now + windowMs, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, resetAt: window.resetAt };
  }

  /** Drops expired windows, then the oldest beyond `max`; returns how many are left. */
  purge(now: number, max = this.max): number {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    for (const key of this.windows.keys()) {
      if (this.windows.size <= max) break;
      this.windows.delete(key);
    }
    return this.windows.size;
  }
}
