import { MIGRATIONS } from './migrations.js';
import { SqlConsoleStorage } from './sql-console.js';
import { PREVIEW_SOURCE_CHARS } from './types.js';
import type {
  ActivityEvent, ActivityRow, FeedbackRecord, MessagePatch, MessageRecord, Reaction, SessionRecord, Storage, ThreadCursor, ThreadMeta, ThreadRecord,
} from './types.js';

/** The little a driver must offer: PGlite and node-postgres both fit behind it. */
export interface SqlClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number }>;
  /** Runs `fn` in one transaction on one connection. */
  transaction<T>(fn: (query: SqlClient['query']) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Any fixed number: it only has to be the same for every instance sharing a database. */
const MIGRATION_LOCK = 4_181_021;

const num = (value: unknown) => Number(value);
const json = (value: unknown) => JSON.stringify(value);

function toThread(row: Record<string, unknown>): ThreadMeta {
  return {
    id: row.id as string, projectId: row.project_id as string, integrationId: row.integration_id as string, owner: (row.owner as string | null) ?? null,
    title: row.title as string, createdAt: num(row.created_at), updatedAt: num(row.updated_at),
  };
}

function toMessage(row: Record<string, unknown>): MessageRecord {
  return {
    id: row.id as string, role: row.role as MessageRecord['role'], content: row.content as string, sources: row.sources as MessageRecord['sources'],
    createdAt: num(row.created_at), updatedAt: num(row.updated_at), status: row.status as MessageRecord['status'],
    toolCalls: row.tool_calls as MessageRecord['toolCalls'], activity: row.activity as MessageRecord['activity'], uncertain: row.uncertain as boolean,
    ...(row.prompt_tokens != null && { usage: { promptTokens: num(row.prompt_tokens), completionTokens: num(row.completion_tokens) } }),
  };
}

const PATCH_COLUMNS: Record<Exclude<keyof MessagePatch, 'usage'>, [string, (v: never) => unknown]> = {
  content: ['content', (v: string) => v],
  sources: ['sources', json],
  status: ['status', (v: string) => v],
  toolCalls: ['tool_calls', json],
  activity: ['activity', json],
  uncertain: ['uncertain', (v: boolean) => v],
  updatedAt: ['updated_at', (v: number) => v],
};

/** The PostgreSQL dialect, shared by the embedded store (PGlite) and a real server (pg). */
export class SqlStorage extends SqlConsoleStorage implements Storage {
  private constructor(db: SqlClient) {
    super(db);
  }

  /** Brings the schema up to date (under an advisory lock: instances may start together). */
  static async open(db: SqlClient): Promise<SqlStorage> {
    await db.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await query('CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, applied_at bigint NOT NULL)');
      const { rows } = await query('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
      for (let version = num(rows[0].version) + 1; version <= MIGRATIONS.length; version++) {
        for (const statement of MIGRATIONS[version - 1].split(/;\s*\n/)) if (statement.trim()) await query(statement);
        await query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [version, Date.now()]);
      }
    });
    return new SqlStorage(db);
  }

  async putSession(s: SessionRecord) {
    await this.db.query('INSERT INTO sessions (token, project_id, owner, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [s.token, s.projectId, s.owner, s.createdAt, s.expiresAt]);
  }

  async getSession(token: string) {
    const { rows } = await this.db.query('SELECT * FROM sessions WHERE token = $1', [token]);
    const row = rows[0];
    return row && { token: row.token as string, projectId: row.project_id as string, owner: (row.owner as string | null) ?? null, createdAt: num(row.created_at), expiresAt: num(row.expires_at) };
  }

  async createThread(t: ThreadMeta) {
    await this.db.query(
      'INSERT INTO threads (id, project_id, integration_id, owner, title, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [t.id, t.projectId, t.integrationId, t.owner, t.title, t.createdAt, t.updatedAt],
    );
  }

  async getThread(id: string): Promise<ThreadRecord | undefined> {
    const threads = await this.db.query('SELECT * FROM threads WHERE id = $1', [id]);
    if (!threads.rows[0]) return undefined;
    const messages = await this.db.query('SELECT * FROM messages WHERE thread_id = $1 ORDER BY seq', [id]);
    return { ...toThread(threads.rows[0]), messages: messages.rows.map(toMessage) };
  }

  async renameThread(id: string, title: string) {
    const { rows } = await this.db.query('UPDATE threads SET title = $2 WHERE id = $1 RETURNING *', [id, title]);
    return rows[0] && toThread(rows[0]);
  }

  async deleteThread(id: string) {
    return (await this.db.query('DELETE FROM threads WHERE id = $1', [id])).rowCount > 0;
  }

  async listThreads(projectId: string, owner: string, { limit, after }: { limit: number; after?: ThreadCursor }) {
    // The preview is the latest answer with text, found through messages_by_thread per row.
    const preview = `(SELECT left(m.content, ${PREVIEW_SOURCE_CHARS}) FROM messages m WHERE m.thread_id = t.id AND m.role = 'assistant' AND m.content <> '' ORDER BY m.seq DESC LIMIT 1) AS preview`;
    const { rows } = after
      ? await this.db.query(
        `SELECT t.*, ${preview} FROM threads t WHERE t.project_id = $1 AND t.owner = $2 AND (t.updated_at, t.id) < ($3, $4) ORDER BY t.updated_at DESC, t.id DESC LIMIT $5`,
        [projectId, owner, after.updatedAt, after.id, limit],
      )
      : await this.db.query(`SELECT t.*, ${preview} FROM threads t WHERE t.project_id = $1 AND t.owner = $2 ORDER BY t.updated_at DESC, t.id DESC LIMIT $3`, [projectId, owner, limit]);
    return rows.map((row) => ({ ...toThread(row), preview: (row.preview as string | null) ?? '' }));
  }

  async appendMessage(threadId: string, m: MessageRecord) {
    // One statement: the thread row is locked by the UPDATE, so a concurrent DELETE either
    // happened first (nothing is inserted) or waits and then removes this message too.
    const { rowCount } = await this.db.query(
      `WITH thread AS (UPDATE threads SET updated_at = greatest(updated_at, $2) WHERE id = $1 RETURNING id)
       INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain)
       SELECT $3, thread.id, $4, $5, $6::jsonb, $2, $7, $8, $9::jsonb, $10::jsonb, $11 FROM thread`,
      [threadId, m.createdAt, m.id, m.role, m.content, json(m.sources), m.updatedAt, m.status, json(m.toolCalls), json(m.activity), m.uncertain],
    );
    return rowCount > 0;
  }

  async updateMessage(id: string, patch: MessagePatch) {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [key, value] of Object.entries(patch) as [keyof MessagePatch, never][]) {
      if (value === undefined) continue;
      if (key === 'usage') {
        const usage = value as MessageRecord['usage'];
        params.push(usage?.promptTokens ?? null, usage?.completionTokens ?? null);
        sets.push(`prompt_tokens = $${params.length - 1}`, `completion_tokens = $${params.length}`);
        continue;
      }
      const [column, encode] = PATCH_COLUMNS[key];
      params.push(encode(value));
      sets.push(`${column} = $${params.length}${column === 'sources' || column === 'tool_calls' || column === 'activity' ? '::jsonb' : ''}`);
    }
    if (!sets.length) return (await this.db.query('SELECT 1 FROM messages WHERE id = $1', [id])).rowCount > 0;
    return (await this.db.query(`UPDATE messages SET ${sets.join(', ')} WHERE id = $1`, params)).rowCount > 0;
  }

  async getMessage(id: string) {
    const { rows } = await this.db.query(
      `SELECT m.*, t.id AS t_id, t.project_id, t.integration_id, t.owner, t.title, t.created_at AS t_created_at, t.updated_at AS t_updated_at
       FROM messages m JOIN threads t ON t.id = m.thread_id WHERE m.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const thread = toThread({ ...row, id: row.t_id, created_at: row.t_created_at, updated_at: row.t_updated_at });
    return { message: toMessage(row), thread };
  }

  async putFeedback(f: FeedbackRecord) {
    await this.db.query(
      `INSERT INTO feedback (message_id, voter, project_id, session_token, owner, integration_id, reaction, comment, at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9 WHERE EXISTS (SELECT 1 FROM messages WHERE id = $1)
       ON CONFLICT (message_id, voter) DO UPDATE SET reaction = excluded.reaction, comment = excluded.comment,
         at = excluded.at, session_token = excluded.session_token`,
      [f.messageId, f.voter, f.projectId, f.sessionToken, f.owner, f.integrationId, f.reaction, f.comment === null ? null : json(f.comment), f.at],
    );
  }

  async reactions(threadId: string, voter: string) {
    const { rows } = await this.db.query(
      'SELECT f.message_id, f.reaction FROM feedback f JOIN messages m ON m.id = f.message_id WHERE m.thread_id = $1 AND f.voter = $2',
      [threadId, voter],
    );
    return new Map(rows.map((r) => [r.message_id as string, r.reaction as Reaction]));
  }

  async recordActivity(e: ActivityEvent) {
    await this.db.query(
      'INSERT INTO events (kind, project_id, at, session_token, owner, integration_id, prompt_tokens, completion_tokens) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [e.kind, e.projectId, e.at, e.sessionToken, e.owner, e.integrationId, e.promptTokens ?? 0, e.completionTokens ?? 0],
    );
  }

  async activity(projectId: string, fromDay: number, toDay: number): Promise<ActivityRow[]> {
    const { rows } = await this.db.query('SELECT * FROM activity_rollup WHERE project_id = $1 AND day BETWEEN $2 AND $3', [projectId, fromDay, toDay]);
    return rows.map((r) => ({
      day: num(r.day), sessionToken: r.session_token as string, owner: (r.owner as string | null) ?? null, integrationId: r.integration_id as string,
      sessions: num(r.sessions), threads: num(r.threads), messages: num(r.messages), upvotes: num(r.upvotes), downvotes: num(r.downvotes),
      promptTokens: num(r.prompt_tokens), completionTokens: num(r.completion_tokens),
    }));
  }

  async refreshActivity() {
    // CONCURRENTLY: readers keep the previous rollup while the new one is built.
    await this.db.query('REFRESH MATERIALIZED VIEW CONCURRENTLY activity_rollup');
    await this.refreshSummaries();
  }

  async purge({ sessionsBefore, eventsBefore }: { sessionsBefore: number; eventsBefore: number }) {
    const sessions = (await this.db.query('DELETE FROM sessions WHERE expires_at < $1', [sessionsBefore])).rowCount;
    const events = (await this.db.query('DELETE FROM events WHERE at < $1', [eventsBefore])).rowCount;
    await this.db.query('DELETE FROM console_sessions WHERE expires_at < $1', [sessionsBefore]);
    // Sign-in failures count for minutes; a day is far past any window.
    await this.db.query('DELETE FROM sign_in_failures WHERE at < $1', [sessionsBefore - 86_400_000]);
    return { sessions, events };
  }

  async stopStale(before: number) {
    return (await this.db.query("UPDATE messages SET status = 'stopped' WHERE status = 'streaming' AND updated_at < $1", [before])).rowCount;
  }

  close() {
    return this.db.close();
  }
}
