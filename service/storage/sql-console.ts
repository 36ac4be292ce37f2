import type {
  ActivityCounts,
  ActivitySummary,
  AdminRecord,
  ApiKeyPatch,
  ApiKeyRecord,
  AuditEntry,
  ConsoleSessionRecord,
  ConsoleStorage,
  ConversationFilter,
  ConversationSummary,
  IntegrationRecord,
  ProjectRecord,
} from './types.js';
import type { SqlClient } from './sql-client.js';
import type { FeedbackRecord, Reaction, ThreadCursor } from './types.js';

const num = (value: unknown) => Number(value);
const numOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

const toProject = (r: Record<string, unknown>): ProjectRecord => ({
  id: r.id as string,
  name: r.name as string,
  ownerSecret: r.owner_secret as string,
  createdAt: num(r.created_at),
});
const toIntegration = (r: Record<string, unknown>): IntegrationRecord => ({
  projectId: r.project_id as string,
  id: r.id as string,
  name: r.name as string,
  allowedOrigins: r.allowed_origins as string[],
  createdAt: num(r.created_at),
});
const toKey = (r: Record<string, unknown>): ApiKeyRecord => ({
  id: r.id as string,
  projectId: r.project_id as string,
  name: r.name as string,
  prefix: r.prefix as string,
  hash: r.hash as string,
  createdAt: num(r.created_at),
  lastUsedAt: numOrNull(r.last_used_at),
  expiresAt: numOrNull(r.expires_at),
  revokedAt: numOrNull(r.revoked_at),
});
const toAudit = (r: Record<string, unknown>): AuditEntry => ({
  id: num(r.id),
  at: num(r.at),
  actor: r.actor as string,
  action: r.action as string,
  projectId: (r.project_id as string | null) ?? null,
  target: (r.target as string | null) ?? null,
  detail: (r.detail as Record<string, unknown> | null) ?? null,
  address: (r.address as string | null) ?? null,
});
const counts = (r: Record<string, unknown>): ActivityCounts => ({
  sessions: num(r.sessions ?? 0),
  threads: num(r.threads ?? 0),
  messages: num(r.messages ?? 0),
  upvotes: num(r.upvotes ?? 0),
  downvotes: num(r.downvotes ?? 0),
  promptTokens: num(r.prompt_tokens ?? 0),
  completionTokens: num(r.completion_tokens ?? 0),
});

/** The console's half of the SQL store (same dialect, same database); `SqlStorage` adds the agent API's half. */
export class SqlConsoleStorage implements ConsoleStorage {
  /** Token columns of the rollup, when the schema has them (model usage); 0 otherwise. */
  private tokenColumns?: Promise<{ prompt: string; completion: string }>;

  protected constructor(protected readonly db: SqlClient) {}

  async createProject(p: ProjectRecord) {
    const { rowCount } = await this.db.query(
      'INSERT INTO projects (id, name, owner_secret, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING',
      [p.id, p.name, p.ownerSecret, p.createdAt],
    );
    return rowCount > 0;
  }

  async getProject(id: string) {
    const { rows } = await this.db.query('SELECT * FROM projects WHERE id = $1', [id]);
    return rows[0] && toProject(rows[0]);
  }

  async listProjects() {
    return (await this.db.query('SELECT * FROM projects ORDER BY created_at, id')).rows.map(toProject);
  }

  async renameProject(id: string, name: string) {
    return (await this.db.query('UPDATE projects SET name = $2 WHERE id = $1', [id, name])).rowCount > 0;
  }

  deleteProject(id: string) {
    return this.db.transaction(async (query) => {
      // Locks the row first: a concurrent create of an integration or key waits, then finds it gone.
      const { rows } = await query('SELECT 1 FROM projects WHERE id = $1 FOR UPDATE', [id]);
      if (!rows.length) return false;
      for (const table of ['feedback', 'events', 'sessions', 'threads'])
        await query(`DELETE FROM ${table} WHERE project_id = $1`, [id]);
      await query('DELETE FROM projects WHERE id = $1', [id]);
      return true;
    });
  }

  async createIntegration(i: IntegrationRecord) {
    const { rowCount } = await this.db.query(
      `INSERT INTO integrations (project_id, id, name, allowed_origins, created_at)
       SELECT $1, $2, $3, $4::jsonb, $5 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $1) ON CONFLICT DO NOTHING`,
      [i.projectId, i.id, i.name, JSON.stringify(i.allowedOrigins), i.createdAt],
    );
    return rowCount > 0;
  }

  async listIntegrations(projectId: string) {
    return (
      await this.db.query('SELECT * FROM integrations WHERE project_id = $1 ORDER BY created_at, id', [
        projectId,
      ])
    ).rows.map(toIntegration);
  }

  async updateIntegration(
    projectId: string,
    id: string,
    patch: Partial<Pick<IntegrationRecord, 'name' | 'allowedOrigins'>>,
  ) {
    const { rows } = await this.db.query(
      `UPDATE integrations SET name = coalesce($3, name), allowed_origins = coalesce($4::jsonb, allowed_origins)
       WHERE project_id = $1 AND id = $2 RETURNING *`,
      [projectId, id, patch.name ?? null, patch.allowedOrigins ? JSON.stringify(patch.allowedOrigins) : null],
    );
    return rows[0] && toIntegration(rows[0]);
  }

  async deleteIntegration(projectId: string, id: string) {
    return (
      (await this.db.query('DELETE FROM integrations WHERE project_id = $1 AND id = $2', [projectId, id]))
        .rowCount > 0
    );
  }

  async createApiKey(k: ApiKeyRecord) {
    const { rowCount } = await this.db.query(
      `INSERT INTO api_keys (id, project_id, name, prefix, hash, created_at, last_used_at, expires_at, revoked_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 WHERE EXISTS (SELECT 1 FROM projects WHERE id = $2) ON CONFLICT DO NOTHING`,
      [k.id, k.projectId, k.name, k.prefix, k.hash, k.createdAt, k.lastUsedAt, k.expiresAt, k.revokedAt],
    );
    return rowCount > 0;
  }

  async listApiKeys(projectId: string) {
    return (
      await this.db.query('SELECT * FROM api_keys WHERE project_id = $1 ORDER BY created_at, id', [projectId])
    ).rows.map(toKey);
  }

  async updateApiKey(projectId: string, id: string, patch: ApiKeyPatch) {
    const sets: string[] = [];
    const params: unknown[] = [projectId, id];
    for (const [key, column] of [
      ['name', 'name'],
      ['expiresAt', 'expires_at'],
      ['revokedAt', 'revoked_at'],
      ['lastUsedAt', 'last_used_at'],
    ] as const) {
      if (patch[key] === undefined) continue;
      params.push(patch[key]);
      // Last use only moves forward: two instances touching one key in any order agree.
      sets.push(
        key === 'lastUsedAt'
          ? `${column} = greatest(${column}, $${params.length})`
          : `${column} = $${params.length}`,
      );
    }
    const sql = sets.length
      ? `UPDATE api_keys SET ${sets.join(', ')} WHERE project_id = $1 AND id = $2 RETURNING *`
      : 'SELECT * FROM api_keys WHERE project_id = $1 AND id = $2';
    const { rows } = await this.db.query(sql, params);
    return rows[0] && toKey(rows[0]);
  }

  async createAdmin(a: AdminRecord) {
    const { rowCount } = await this.db.query(
      'INSERT INTO admins (username, password_hash, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [a.username, a.passwordHash, a.createdAt],
    );
    return rowCount > 0;
  }

  async getAdmin(username: string) {
    const { rows } = await this.db.query('SELECT * FROM admins WHERE username = $1', [username]);
    return (
      rows[0] && {
        username: rows[0].username as string,
        passwordHash: rows[0].password_hash as string,
        createdAt: num(rows[0].created_at),
      }
    );
  }

  async putConsoleSession(s: ConsoleSessionRecord) {
    await this.db.query(
      'INSERT INTO console_sessions (token_hash, username, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [s.tokenHash, s.username, s.csrf, s.createdAt, s.expiresAt],
    );
  }

  async getConsoleSession(tokenHash: string) {
    const { rows } = await this.db.query('SELECT * FROM console_sessions WHERE token_hash = $1', [tokenHash]);
    const r = rows[0];
    return (
      r && {
        tokenHash: r.token_hash as string,
        username: r.username as string,
        csrf: r.csrf as string,
        createdAt: num(r.created_at),
        expiresAt: num(r.expires_at),
      }
    );
  }

  async deleteConsoleSession(tokenHash: string) {
    await this.db.query('DELETE FROM console_sessions WHERE token_hash = $1', [tokenHash]);
  }

  async recordSignInFailure(keys: string[], at: number) {
    await this.db.query('INSERT INTO sign_in_failures (key, at) SELECT unnest($1::text[]), $2', [keys, at]);
  }

  async signInFailures(key: string, since: number) {
    const { rows } = await this.db.query(
      'SELECT count(*) AS count, min(at) AS oldest FROM sign_in_failures WHERE key = $1 AND at >= $2',
      [key, since],
    );
    return { count: num(rows[0].count), oldest: numOrNull(rows[0].oldest) };
  }

  async clearSignInFailures(key: string) {
    await this.db.query('DELETE FROM sign_in_failures WHERE key = $1', [key]);
  }

  async appendAudit(e: Omit<AuditEntry, 'id'>) {
    await this.db.query(
      'INSERT INTO audit_log (at, actor, action, project_id, target, detail, address) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)',
      [
        e.at,
        e.actor,
        e.action,
        e.projectId,
        e.target,
        e.detail === null ? null : JSON.stringify(e.detail),
        e.address,
      ],
    );
  }

  async listAudit({ limit, before, projectId }: { limit: number; before?: number; projectId?: string }) {
    const { rows } = await this.db.query(
      `SELECT * FROM audit_log WHERE ($1::bigint IS NULL OR id < $1) AND ($2::text IS NULL OR project_id = $2 OR project_id IS NULL)
       ORDER BY id DESC LIMIT $3`,
      [before ?? null, projectId ?? null, limit],
    );
    return rows.map(toAudit);
  }

  async searchThreads(
    projectId: string,
    f: ConversationFilter,
    { limit, after }: { limit: number; after?: ThreadCursor },
  ) {
    const params: unknown[] = [projectId];
    const where = ['t.project_id = $1'];
    const add = (sql: string, ...values: unknown[]) => {
      // `$?` stands for the next parameters, in order.
      where.push(sql.replace(/\$\?/g, () => `$${params.push(values.shift())}`));
    };
    if (f.q?.trim()) {
      add(
        `(to_tsvector('simple', t.title) @@ websearch_to_tsquery('simple', $?)
            OR t.id IN (SELECT thread_id FROM messages WHERE to_tsvector('simple', content) @@ websearch_to_tsquery('simple', $?)))`,
        f.q,
        f.q,
      );
    }
    if (f.threadId) add('t.id = $?', f.threadId);
    if (f.integrationId) add('t.integration_id = $?', f.integrationId);
    if (f.from !== undefined) add('t.updated_at >= $?', f.from);
    if (f.to !== undefined) add('t.updated_at < $?', f.to);
    if (after) add('(t.updated_at, t.id) < ($?, $?)', after.updatedAt, after.id);
    if (f.handoff) where.push('t.handoff_at IS NOT NULL');
    if (f.uncertain) where.push('s.uncertain');
    if (f.error) where.push('s.error');
    if (f.toolUsed) where.push('s.tool_used');
    if (f.downvoted) where.push('r.downvotes > 0');
    params.push(limit);
    const { rows } = await this.db.query(
      `SELECT t.*, s.*, r.* FROM threads t
       CROSS JOIN LATERAL (
         SELECT count(*) AS message_count, coalesce(bool_or(m.uncertain), false) AS uncertain, coalesce(bool_or(m.status = 'error'), false) AS error,
           coalesce(bool_or(jsonb_array_length(m.tool_calls) > 0), false) AS tool_used
         FROM messages m WHERE m.thread_id = t.id) s
       CROSS JOIN LATERAL (
         SELECT count(*) FILTER (WHERE f.reaction = 'upvote') AS upvotes, count(*) FILTER (WHERE f.reaction = 'downvote') AS downvotes
         FROM feedback f JOIN messages m ON m.id = f.message_id WHERE m.thread_id = t.id) r
       WHERE ${where.join(' AND ')}
       ORDER BY t.updated_at DESC, t.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r): ConversationSummary => ({
      id: r.id as string,
      projectId: r.project_id as string,
      integrationId: r.integration_id as string,
      owner: (r.owner as string | null) ?? null,
      title: r.title as string,
      createdAt: num(r.created_at),
      updatedAt: num(r.updated_at),
      handoffAt: numOrNull(r.handoff_at),
      messages: num(r.message_count),
      upvotes: num(r.upvotes),
      downvotes: num(r.downvotes),
      uncertain: r.uncertain as boolean,
      error: r.error as boolean,
      toolUsed: r.tool_used as boolean,
    }));
  }

  async threadFeedback(threadId: string) {
    const { rows } = await this.db.query(
      'SELECT f.* FROM feedback f JOIN messages m ON m.id = f.message_id WHERE m.thread_id = $1 ORDER BY f.at',
      [threadId],
    );
    return rows.map((r): FeedbackRecord => ({
      messageId: r.message_id as string,
      projectId: r.project_id as string,
      voter: r.voter as string,
      sessionToken: r.session_token as string,
      owner: (r.owner as string | null) ?? null,
      integrationId: r.integration_id as string,
      reaction: r.reaction as Reaction,
      comment: (r.comment as Record<string, unknown> | null) ?? null,
      at: num(r.at),
    }));
  }

  async markHandoff(threadId: string, at: number) {
    return (
      (
        await this.db.query('UPDATE threads SET handoff_at = coalesce(handoff_at, $2) WHERE id = $1', [
          threadId,
          at,
        ])
      ).rowCount > 0
    );
  }

  /**
   * Rebuilds the day-level summaries from the rollup, in one transaction (readers keep the
   * previous ones until it commits). Tables, not views over the rollup: nothing depends on
   * the rollup's definition, so a later migration may replace it.
   */
  protected async refreshSummaries(): Promise<void> {
    const tokens = await (this.tokenColumns ??= this.findTokenColumns());
    await this.db.transaction(async (query) => {
      for (const table of ['activity_daily', 'activity_daily_sessions', 'activity_owners'])
        await query(`DELETE FROM ${table}`);
      await query(`INSERT INTO activity_daily
        SELECT project_id, day, integration_id, sum(sessions), sum(threads), sum(messages), sum(upvotes), sum(downvotes),
          sum(${tokens.prompt}), sum(${tokens.completion})
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
      'sum(threads) AS threads, sum(messages) AS messages, sum(upvotes) AS upvotes, sum(downvotes) AS downvotes, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens';
    const [days, sessions, integrations, perIntegration, owners] = await Promise.all([
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
      totals: {
        sessions: 0,
        threads: 0,
        messages: 0,
        upvotes: 0,
        downvotes: 0,
        promptTokens: 0,
        completionTokens: 0,
        uniqueOwners: num(owners.rows[0].owners),
      },
    };
    // A day with sessions of the integration but no chat rows of its own (minted, chatted later).
    for (const [day, count] of sessionsOn)
      if (!summary.days.some((d) => d.day === day))
        summary.days.push({ day, ...counts({ sessions: count }) });
    summary.days.sort((a, b) => a.day - b.day);
    for (const d of summary.days)
      for (const k of Object.keys(d) as (keyof typeof d)[])
        if (k !== 'day') (summary.totals[k] as number) += d[k];
    return summary;
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
