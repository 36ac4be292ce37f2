import { Batches } from '../batches.js';
import type { SqlClient } from '../sql-client.js';
import type { RateStore } from '../types.js';
import { num } from './rows.js';

type Count = { key: string; windowMs: number; now: number };

/** Rate windows in SQL: one row per key, counted by upsert; counts that come together share a statement. */
export class SqlRateStore implements RateStore {
  /** Request counts that come together go as one statement (as the ledger's begins and ends do). */
  private readonly counts = new Batches<Count, { count: number; resetAt: number }>((calls) =>
    this.countRequests(calls),
  );

  constructor(private readonly db: SqlClient) {}

  /** Counts requests; those that come together are one statement (`counts`). */
  countRequest(key: string, windowMs: number, now: number) {
    return this.counts.add({ key, windowMs, now });
  }

  /** A count alone (on PGlite, nearly always), in the statement written for one. */
  private async countOne({ key, windowMs, now }: Count) {
    // The SET expressions all read the old row: an expired window restarts at 1.
    const { rows } = await this.db.query(
      `INSERT INTO rate_windows (key, reset_at, count) VALUES ($1, $2::bigint + $3::bigint, 1)
       ON CONFLICT (key) DO UPDATE SET
         reset_at = CASE WHEN rate_windows.reset_at <= $2 THEN excluded.reset_at ELSE rate_windows.reset_at END,
         count = CASE WHEN rate_windows.reset_at <= $2 THEN 1 ELSE rate_windows.count + 1 END
       RETURNING reset_at, count`,
      [key, now, windowMs],
    );
    return { count: num(rows[0].count), resetAt: num(rows[0].reset_at) };
  }

  /**
   * One statement: each key's window counts its calls of the batch (an expired window restarts
   * with them), and each call gets its own count, in the order the calls came. The batch is
   * on the clock of its latest call: its calls came within one statement's time of each other.
   * Keys are written in order, so two instances' batches lock common rows in the same order.
   */
  private async countRequests(calls: Count[]) {
    if (calls.length === 1) return [await this.countOne(calls[0])];
    const now = Math.max(...calls.map((c) => c.now));
    // The SET expressions all read the old row.
    const { rows } = await this.db.query(
      `INSERT INTO rate_windows (key, reset_at, count)
       SELECT key, $3::bigint + max(window_ms), count(*)::int FROM unnest($1::text[], $2::bigint[]) AS v(key, window_ms) GROUP BY key ORDER BY key
       ON CONFLICT (key) DO UPDATE SET
         reset_at = CASE WHEN rate_windows.reset_at <= $3 THEN excluded.reset_at ELSE rate_windows.reset_at END,
         count = CASE WHEN rate_windows.reset_at <= $3 THEN excluded.count ELSE rate_windows.count + excluded.count END
       RETURNING key, reset_at, count`,
      [calls.map((c) => c.key), calls.map((c) => c.windowMs), now],
    );
    const windows = new Map(
      rows.map((r) => [r.key as string, { count: num(r.count), resetAt: num(r.reset_at) }]),
    );
    // A key's calls of this batch are the last of its count: the first of them is count - n + 1.
    const seen = new Map<string, number>();
    const batched = new Map<string, number>();
    for (const c of calls) batched.set(c.key, (batched.get(c.key) ?? 0) + 1);
    return calls.map(({ key }) => {
      const rank = (seen.get(key) ?? 0) + 1;
      seen.set(key, rank);
      const window = windows.get(key)!;
      return { count: window.count - batched.get(key)! + rank, resetAt: window.resetAt };
    });
  }

  async purgeRateWindows(now: number, max: number) {
    await this.db.query('DELETE FROM rate_windows WHERE reset_at <= $1', [now]);
    // Beyond the cap the oldest windows go: a flood of keys never refuses everyone, and the
    // table stays bounded between purges by what one interval of requests can add.
    await this.db.query(
      `DELETE FROM rate_windows WHERE key IN (
         SELECT key FROM rate_windows ORDER BY reset_at LIMIT greatest(0, (SELECT count(*) FROM rate_windows) - $1))`,
      [max],
    );
    return num((await this.db.query('SELECT count(*)::int AS n FROM rate_windows')).rows[0].n);
  }
}
