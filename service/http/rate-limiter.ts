import type { RateStore } from '../storage/types.js';
import type { Clock } from '../kernel/clock.js';
import { HttpError } from './errors.js';

export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** Windows kept at most (in the store, for the whole fleet); beyond it the oldest are evicted. */
export const MAX_RATE_WINDOWS = 100_000;

/**
 * Counts one request against `limit` in `key`'s fixed window, kept in the store so the limit
 * holds for every instance sharing it; 429 with the seconds left in the window past it.
 */
export async function checkRate(
  rates: RateStore,
  clock: Clock,
  limit: RateLimit | false,
  key: string,
): Promise<void> {
  if (!limit) return;
  const now = clock.now();
  const { count, resetAt } = await rates.countRequest(key, limit.windowMs, now);
  if (count > limit.requests) throw tooMany(Math.max(1, Math.ceil((resetAt - now) / 1000)));
}

export function tooMany(retryAfter: number, detail = `Too many requests; retry in ${retryAfter} s.`) {
  return new HttpError(429, 'rate_limited', detail, { 'Retry-After': String(retryAfter) });
}
