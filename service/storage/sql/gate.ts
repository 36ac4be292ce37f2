import type { SqlClient } from '../sql-client.js';
import type { DailyCounts, GateStore } from '../types.js';
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

  async purgeGate(now: number, day: number) {
    const challenges = await this.db.query('DELETE FROM spent_challenges WHERE expires_at <= $1', [now]);
    const budgets = await this.db.query('DELETE FROM public_budgets WHERE day < $1', [day]);
    return challenges.rowCount + budgets.rowCount;
  }
}
