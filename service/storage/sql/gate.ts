import type { SqlClient } from '../sql-client.js';
import {
  REFUSALS_KEPT_MS,
  REFUSALS_PER_INTEGRATION,
  type DailyCounts,
  type GateStore,
  type RefusalNote,
  type StoredRefusal,
} from '../types.js';
import { num } from './rows.js';

/** Spent challenges and daily budgets in SQL: each spend is one conditional statement, so the fleet agrees. */
export class SqlGateStore implements GateStore {
  constructor(private readonly db: SqlClient) {}

  async spendChallenge(challenge: string, expiresAt: number) {
    const { rowCount } = await this.db.query(
      'INSERT INTO spent_challenges (challenge, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [challenge, expiresAt],
    );
    return rowCount > 0;
  }

  async spendBudget(
    projectId: string,
    integrationId: string,
    day: number,
    kind: keyof DailyCounts,
    limit: number,
  ) {
    if (limit < 1) return false;
    // The column is one of two names, never caller text. The update holds the row's lock, so
    // two instances spending the last unit at once get one true and one false.
    const column = kind === 'sessions' ? 'sessions' : 'answers';
    const { rowCount } = await this.db.query(
      `INSERT INTO public_budgets AS b (project_id, integration_id, day, ${column}) VALUES ($1, $2, $3, 1)
       ON CONFLICT (project_id, integration_id, day) DO UPDATE SET ${column} = b.${column} + 1 WHERE b.${column} < $4`,
      [projectId, integrationId, day, limit],
    );
    return rowCount > 0;
  }

  async refundBudget(projectId: string, integrationId: string, day: number, kind: keyof DailyCounts) {
    const column = kind === 'sessions' ? 'sessions' : 'answers';
    await this.db.query(
      `UPDATE public_budgets SET ${column} = ${column} - 1
       WHERE project_id = $1 AND integration_id = $2 AND day = $3 AND ${column} > 0`,
      [projectId, integrationId, day],
    );
  }

  async budgetUse(projectId: string, day: number) {
    const { rows } = await this.db.query(
      'SELECT integration_id, sessions, answers FROM public_budgets WHERE project_id = $1 AND day = $2',
      [projectId, day],
    );
    return new Map(
      rows.map((r) => [r.integration_id as string, { sessions: num(r.sessions), answers: num(r.answers) }]),
    );
  }

  async noteRefusals({ projectId, integrationId, origin, count, at }: RefusalNote) {
    // Two instances noting the same origin at once add both counts: the row's lock orders them.
    await this.db.query(
      `INSERT INTO public_refusals AS r (project_id, integration_id, origin, count, last_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id, integration_id, origin)
       DO UPDATE SET count = r.count + excluded.count, last_at = GREATEST(r.last_at, excluded.last_at)`,
      [projectId, integrationId, origin, count, at],
    );
    await this.db.query(
      `DELETE FROM public_refusals WHERE project_id = $1 AND integration_id = $2 AND origin NOT IN (
         SELECT origin FROM public_refusals WHERE project_id = $1 AND integration_id = $2
         ORDER BY last_at DESC, origin COLLATE "C" LIMIT $3)`,
      [projectId, integrationId, REFUSALS_PER_INTEGRATION],
    );
  }

  async refusals(projectId: string) {
    const { rows } = await this.db.query(
      `SELECT integration_id, origin, count, last_at FROM public_refusals WHERE project_id = $1
       ORDER BY last_at DESC, origin COLLATE "C"`,
      [projectId],
    );
    const found = new Map<string, StoredRefusal[]>();
    for (const r of rows) {
      const list = found.get(r.integration_id as string) ?? [];
      found.set(r.integration_id as string, list);
      list.push({ origin: r.origin as string, count: num(r.count), last: num(r.last_at) });
    }
    return found;
  }

  async purgeGate(now: number, day: number) {
    const challenges = await this.db.query('DELETE FROM spent_challenges WHERE expires_at <= $1', [now]);
    const budgets = await this.db.query('DELETE FROM public_budgets WHERE day < $1', [day]);
    const refusals = await this.db.query('DELETE FROM public_refusals WHERE last_at < $1', [
      now - REFUSALS_KEPT_MS,
    ]);
    return challenges.rowCount + budgets.rowCount + refusals.rowCount;
  }
}
