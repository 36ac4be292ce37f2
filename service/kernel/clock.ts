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
