import { type ConsoleCounts, sumConsoleCounts } from '../../../contract/activity.js';
import type { SqlClient } from '../sql-client.js';
import type { ActivityEvent, ActivityRow, ActivityStore, ActivitySummary } from '../types.js';
import { num } from './rows.js';

type Rows = { rows: Record<string, unknown>[] };

const counts = (r: Record<string, unknown>): ConsoleCounts => ({
  sessions: num(r.sessions ?? 0),
  threads: num(r.threads ?? 0),
  messages: num(r.messages ?? 0),
  upvotes: num(r.upvotes ?? 0),
  downvotes: num(r.downvotes ?? 0),
  prompt_tokens: num(r.prompt_tokens ?? 0),
  completion_tokens: num(r.completion_tokens ?? 0),
  failed_answers: num(r.failed_answers ?? 0),
});

const toRow = (r: Record<string, unknown>): ActivityRow => ({
  day: num(r.day),
  sessionToken: r.session_token as string,
  owner: (r.owner as string | null) ?? null,
  integrationId: r.integration_id as string,
  ...counts(r),
});

/** The console's summary from its five reads of the day-level tables. */
function toSummary(
  [days, sessions, integrations, perIntegration, owners]: Rows[],
  integrationId: string | undefined,
): ActivitySummary {
  const sessionsOn = new Map(sessions.rows.map((r) => [num(r.day), num(r.sessions)]));
  const sessionsOf = new Map(perIntegration.rows.map((r) => [r.integration_id as string, num(r.sessions)]));
  const summary: ActivitySummary = {
    days: days.rows.map((r) => ({
      day: num(r.day),
      ...counts({ ...r, sessions: integrationId ? (sessionsOn.get(num(r.day)) ?? 0) : r.sessions }),
    })),
    byIntegration: integrations.rows.map((r) => ({
      integrationId: r.integration_id as string,
      ...counts({ ...r, sessions: sessionsOf.get(r.integration_id as string) ?? 0 }),
    })),
    totals: { ...counts({}), uniqueOwners: num(owners.rows[0].owners) },
  };
  // A day with sessions of the integration but no chat rows of its own (minted, chatted later).
  for (const [day, count] of sessionsOn)
    if (!summary.days.some((d) => d.day === day)) summary.days.push({ day, ...counts({ sessions: count }) });
  summary.days.sort((a, b) => a.day - b.day);
  for (const d of summary.days) sumConsoleCounts(summary.totals, d);
  return summary;
}

/** Events, the rollup (a materialized view) and the console's day-level summaries that follow it. */
export class SqlActivityStore implements ActivityStore {
  /** Token columns of the rollup, when the schema has them (model usage); 0 otherwise. */
  private tokenColumns?: Promise<{ prompt: string; completion: string }>;

  constructor(private readonly db: SqlClient) {}

  async recordActivity(e: ActivityEvent) {
    await this.db.query(
      'INSERT INTO events (kind, project_id, at, session_token, owner, integration_id, prompt_tokens, completion_tokens) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [
        e.kind,
        e.projectId,
        e.at,
        e.sessionToken,
        e.owner,
        e.integrationId,
        e.promptTokens ?? 0,
        e.completionTokens ?? 0,
      ],
    );
  }

  async activity(projectId: string, fromDay: number, toDay: number): Promise<ActivityRow[]> {
    const { rows } = await this.db.query(
      'SELECT * FROM activity_rollup WHERE project_id = $1 AND day BETWEEN $2 AND $3',
      [projectId, fromDay, toDay],
    );
    return rows.map(toRow);
  }

  /** From the day-level summaries: a few hundred rows for a year, whatever the traffic. */
  async activitySummary(
    projectId: string,
    fromDay: number,
    toDay: number,
    integrationId?: string,
  ): Promise<ActivitySummary> {
    const range = [projectId, fromDay, toDay];
    const scope = integrationId ? 'AND integration_id = $4' : '';
    const params = integrationId ? [...range, integrationId] : range;
    const sums =
      'sum(threads) AS threads, sum(messages) AS messages, sum(upvotes) AS upvotes, sum(downvotes) AS downvotes, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(failed_answers) AS failed_answers';
    const reads = await Promise.all([
      this.db.query(
        `SELECT day, sum(sessions) AS sessions, ${sums} FROM activity_daily WHERE project_id = $1 AND day BETWEEN $2 AND $3 ${scope} GROUP BY day ORDER BY day`,
        params,
      ),
      integrationId
        ? this.db.query(
            'SELECT day, sessions FROM activity_daily_sessions WHERE project_id = $1 AND day BETWEEN $2 AND $3 AND integration_id = $4',
            params,
          )
        : Promise.resolve({ rows: [] }),
      this.db.query(
        `SELECT integration_id, ${sums} FROM activity_daily WHERE project_id = $1 AND day BETWEEN $2 AND $3 AND integration_id <> '' ${scope} GROUP BY integration_id ORDER BY integration_id`,
        params,
      ),
      this.db.query(
        `SELECT integration_id, sum(sessions) AS sessions FROM activity_daily_sessions WHERE project_id = $1 AND day BETWEEN $2 AND $3 ${scope} GROUP BY integration_id`,
        params,
      ),
      this.db.query(
        "SELECT count(*) AS owners FROM activity_owners WHERE project_id = $1 AND integration_id = $4 AND days && int4range($2::int, $3::int, '[]')",
        [...range, integrationId ?? ''],
      ),
    ]);
    return toSummary(reads, integrationId);
  }

  async refreshActivity() {
    // CONCURRENTLY: readers keep the previous rollup while the new one is built.
    await this.db.query('REFRESH MATERIALIZED VIEW CONCURRENTLY activity_rollup');
    await this.refreshSummaries();
  }

  async refreshActivityOnce(intervalMs: number, now: number) {
    const refreshed = await this.db.transaction(async (query) => {
      // A try-lock: while one instance refreshes, the others skip rather than queue behind it.
      const { rows } = await query(
        "SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || '.activity_rollup')) AS locked",
      );
      if (rows[0].locked !== true) return false;
      const last = await query("SELECT at FROM fleet_state WHERE name = 'activity_rollup'");
      if (last.rows[0] && now - num(last.rows[0].at) < intervalMs) return false;
      await query('REFRESH MATERIALIZED VIEW CONCURRENTLY activity_rollup');
      await query(
        "INSERT INTO fleet_state (name, at) VALUES ('activity_rollup', $1) ON CONFLICT (name) DO UPDATE SET at = excluded.at",
        [now],
      );
      return true;
    });
    // The console's day-level summaries follow the rollup (their own transaction, then VACUUM).
    if (refreshed) await this.refreshSummaries();
    return refreshed;
  }

  async activityAsOf() {
    const { rows } = await this.db.query("SELECT at FROM fleet_state WHERE name = 'activity_rollup'");
    return rows[0] ? num(rows[0].at) : null;
  }

  async purgeEvents(before: number) {
    return (await this.db.query('DELETE FROM events WHERE at < $1', [before])).rowCount;
  }

  /**
   * Rebuilds the day-level summaries from the rollup, in one transaction (readers keep the
   * previous ones until it commits). Tables, not views over the rollup: nothing depends on
   * the rollup's definition, so a later migration may replace it.
   */
  private async refreshSummaries(): Promise<void> {
    const tokens = await (this.tokenColumns ??= this.findTokenColumns());
    await this.db.transaction(async (query) => {
      for (const table of ['activity_daily', 'activity_daily_sessions', 'activity_owners'])
        await query(`DELETE FROM ${table}`);
      await query(`INSERT INTO activity_daily
        SELECT project_id, day, integration_id, sum(sessions), sum(threads), sum(messages), sum(upvotes), sum(downvotes),
          sum(${tokens.prompt}), sum(${tokens.completion}), sum(failed_answers)
        FROM activity_rollup GROUP BY project_id, day, integration_id`);
      // A session counts on the day it was minted, for each integration it chatted through.
      await query(`INSERT INTO activity_daily_sessions
        SELECT m.project_id, c.integration_id, m.day, count(*)
        FROM (SELECT project_id, session_token, min(day) AS day FROM activity_rollup WHERE sessions > 0 GROUP BY project_id, session_token) m
        JOIN (SELECT DISTINCT project_id, session_token, integration_id FROM activity_rollup WHERE integration_id <> '') c USING (project_id, session_token)
        GROUP BY m.project_id, c.integration_id, m.day`);
      // One row per owner (a 64-bit hash of the id) with the days it was active as a multirange:
      // unique owners of any period are then a count of rows, not a distinct over owner-days.
      // Under '' whatever they used, and under each integration they chatted through.
      await query(`INSERT INTO activity_owners
        SELECT project_id, integration_id, owner_hash, range_agg(int4range(day::int, day::int, '[]')) FROM (
          SELECT project_id, '' AS integration_id, hashtextextended(owner, 0) AS owner_hash, day FROM activity_rollup WHERE owner IS NOT NULL
          UNION ALL SELECT project_id, integration_id, hashtextextended(owner, 0), day FROM activity_rollup WHERE owner IS NOT NULL AND integration_id <> ''
        ) o GROUP BY project_id, integration_id, owner_hash`);
    });
    // Fresh statistics after replacing every row (the planner would guess from an empty table).
    await this.db.query('VACUUM (ANALYZE) activity_daily, activity_daily_sessions, activity_owners');
  }

  private async findTokenColumns() {
    const { rows } = await this.db.query(
      `SELECT attname FROM pg_attribute WHERE attrelid = 'activity_rollup'::regclass AND attname IN ('prompt_tokens', 'completion_tokens') AND NOT attisdropped`,
    );
    const has = new Set(rows.map((r) => r.attname as string));
    return {
      prompt: has.has('prompt_tokens') ? 'prompt_tokens' : '0',
      completion: has.has('completion_tokens') ? 'completion_tokens' : '0',
    };
  }
}
