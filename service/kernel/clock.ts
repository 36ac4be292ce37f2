/** Time source of the service; tests drive a ManualClock to expire tokens. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export class ManualClock implements Clock {
  constructor(private time = Date.UTC(2026, 10, 21, 9, 0, 0)) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }
}

/** ISO 8601 with microseconds and a trailing Z, as the contract writes times. */
export function isoMicros(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('Z', '000Z');
}

/** `isoMicros`, or null where there is no time (a key never used, a thread never handed off). */
export const isoMicrosOrNull = (epochMs: number | null) => (epochMs === null ? null : isoMicros(epochMs));

export const DAY_MS = 86_400_000;

/** The UTC day number of a time (days since 1970-01-01), as budgets and the rollup count days. */
export const utcDay = (epochMs: number) => Math.floor(epochMs / DAY_MS);

/** Whole seconds from `epochMs` to the start of the next UTC day (at least 1): a daily budget's Retry-After. */
export const secondsToNextUtcDay = (epochMs: number) =>
  Math.max(1, Math.ceil(((utcDay(epochMs) + 1) * DAY_MS - epochMs) / 1000));
