import type { Clock } from './clock.js';
import { HttpError } from './errors.js';

export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** Keys kept before a sweep is forced; windows expire after `windowMs`, so this bounds memory. */
const MAX_WINDOWS = 100_000;

/** Fixed-window limit per key; answers 429 with the seconds left in the window. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: RateLimit | false,
    private readonly clock: Clock,
  ) {}

  check(key: string): void {
    if (!this.limit) return;
    const now = this.clock.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.limit.windowMs) {
      if (!window && this.windows.size >= MAX_WINDOWS) this.sweep();
      // Still full of live windows: a flood of distinct keys. Refuse rather than grow.
      if (!window && this.windows.size >= MAX_WINDOWS) throw this.refusal(Math.ceil(this.limit.windowMs / 1000));
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > this.limit.requests) throw this.refusal(Math.max(1, Math.ceil((window.start + this.limit.windowMs - now) / 1000)));
  }

  /** Drops expired windows; returns how many are left. */
  sweep(): number {
    if (!this.limit) return 0;
    const now = this.clock.now();
    for (const [key, window] of this.windows) if (now - window.start >= this.limit.windowMs) this.windows.delete(key);
    return this.windows.size;
  }

  get size(): number {
    return this.windows.size;
  }

  private refusal(retryAfter: number) {
    return new HttpError(429, 'rate_limited', `Too many requests; retry in ${retryAfter} s.`, { 'Retry-After': String(retryAfter) });
  }
}
