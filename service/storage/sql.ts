import { Batches } from './batches.js';
import { LocalSignals } from './local-signals.js';
import type { SqlClient } from './sql-client.js';
import { MIGRATIONS } from './migrations.js';
import { SqlConsoleStorage } from './sql-console.js';
import { PREVIEW_SOURCE_CHARS, SIGNALS_LOST } from './types.js';
import type {
  ActivityEvent,
  ActivityRow,
  AnswerEnd,
  AnswerSave,
  AnswerStart,
  BeginResult,
  FeedbackRecord,
  MessagePatch,
  MessageRecord,
  Reaction,
  SessionRecord,
  Storage,
  ThreadCursor,
  ThreadMeta,
  ThreadRecord,
  ToolCallRecord,
} from './types.js';

export type { SqlClient };

/** Any fixed number: it only has to be the same for every instance sharing a database. */
const MIGRATION_LOCK = 4_181_021;
/** The database's clock in epoch ms: leases compare instances on one clock, whatever theirs say. */
const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
/** How long, and how many, sessions read once are answered from memory. */
const SESSION_CACHE_MS = 60_000;
const SESSION_CACHE_SIZE = 10_000;
/** NOTIFY payloads stop at 8,000 bytes; longer messages travel in fragments. */
const MAX_PAYLOAD_BYTES = 7_900;

const num = (value: unknown) => Number(value);
const json = (value: unknown) => JSON.stringify(value);

function toThread(row: Record<string, unknown>): ThreadMeta {
  return {
    id: row.id as string,
    projectId: row.project_id as string,
    integrationId: row.integration_id as string,
    owner: (row.owner as string | null) ?? null,
    title: row.title as string,
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

function toMessage(row: Record<string, unknown>): MessageRecord {
  return {
    id: row.id as string,
    role: row.role as MessageRecord['role'],
    content: row.content as string,
    sources: row.sources as MessageRecord['sources'],
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    status: row.status as MessageRecord['status'],
    toolCalls: row.tool_calls as MessageRecord['toolCalls'],
    activity: row.activity as MessageRecord['activity'],
    uncertain: row.uncertain as boolean,
    ...(row.prompt_tokens != null && {
      usage: { promptTokens: num(row.prompt_tokens), completionTokens: num(row.completion_tokens) },
    }),
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
  private readonly sessions = new Map<string, { session: SessionRecord; until: number }>();
  /** In-process signals where no other process shares the database. */
  private readonly local = new LocalSignals();
  /** Messages waiting to be published, and the one publishing statement in flight (order is kept). */
  private outbox: string[] = [];
  private publishing: Promise<void> | null = null;
  /**
   * Answer begins, answer ends and request counts, those that come together in one statement.
   * At hundreds of questions a second, one statement per call was a round trip and a commit
   * each through the pool, and its socket write (with the wake-up of the server's process) was
   * the largest part of the service's time before the first records: about 40 % of its main
   * thread while 500 questions came in at once.
   */
  private readonly begins = new Batches<AnswerStart, BeginResult>((starts) => this.beginAll(starts));
  private readonly ends = new Batches<AnswerEnd, boolean>(async (ends) => {
    const ended = await this.endAnswers(ends);
    return ends.map((end) => ended.has(end.id));
  });
  private readonly counts = new Batches<
    { key: string; windowMs: number; now: number },
    { count: number; resetAt: number }
  >((calls) => this.countRequests(calls));

  private constructor(
    db: SqlClient,
    /** The fleet's NOTIFY channel: one per schema, so fleets on one database stay apart. */
    private readonly channel: string,
  ) {
    super(db);
  }

  /** Brings the schema up to date (under an advisory lock: instances may start together). */
  static async open(db: SqlClient): Promise<SqlStorage> {
    await db.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version int PRIMARY KEY, applied_at bigint NOT NULL)',
      );
      const { rows } = await query('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
      for (let version = num(rows[0].version) + 1; version <= MIGRATIONS.length; version++) {
        for (const statement of MIGRATIONS[version - 1].split(/;\s*\n/))
          if (statement.trim()) await query(statement);
        await query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
          version,
          Date.now(),
        ]);
      }
    });
    const schema = String((await db.query('SELECT current_schema() AS schema')).rows[0].schema);
    return new SqlStorage(db, schema === 'public' ? 'agent_chat' : `agent_chat.${schema}`.slice(0, 63));
  }

  async putSession(s: SessionRecord) {
    await this.db.query(
      'INSERT INTO sessions (token_hash, project_id, owner, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [s.tokenHash, s.projectId, s.owner, s.createdAt, s.expiresAt],
    );
    this.remember(s);
  }

  async getSession(tokenHash: string) {
    const known = this.sessions.get(tokenHash);
    if (known && known.until > Date.now()) return { ...known.session };
    const { rows } = await this.db.query('SELECT * FROM sessions WHERE token_hash = $1', [tokenHash]);
    const row = rows[0];
    if (!row) return undefined;
    const session = {
      tokenHash: row.token_hash as string,
      projectId: row.project_id as string,
      owner: (row.owner as string | null) ?? null,
      createdAt: num(row.created_at),
      expiresAt: num(row.expires_at),
    };
    this.remember(session);
    return { ...session };
  }

  async deleteProject(id: string) {
    const deleted = await super.deleteProject(id);
    // Its sessions went with it. (Another instance may still answer from memory for a minute;
    // the project lookup refuses those calls first.)
    this.sessions.clear();
    return deleted;
  }

  /**
   * Sessions never change once written (expiry is checked by the caller), so every agent call
   * of a conversation need not read the same row: a minute in memory, bounded.
   */
  private remember(session: SessionRecord) {
    if (this.sessions.size >= SESSION_CACHE_SIZE) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(session.tokenHash, { session: { ...session }, until: Date.now() + SESSION_CACHE_MS });
  }

  async createThread(t: ThreadMeta) {
    await this.db.query(
      'INSERT INTO threads (id, project_id, integration_id, owner, title, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [t.id, t.projectId, t.integrationId, t.owner, t.title, t.createdAt, t.updatedAt],
    );
  }

  async getThread(id: string, { newest }: { newest?: number } = {}): Promise<ThreadRecord | undefined> {
    // One round trip: the thread with its messages as one JSON array. The newest alone are read
    // backwards along messages_by_thread and put back in order.
    const from =
      newest === undefined
        ? 'messages m WHERE m.thread_id = t.id'
        : '(SELECT * FROM messages WHERE thread_id = t.id ORDER BY seq DESC LIMIT $2) m';
    const { rows } = await this.db.query(
      `SELECT t.*, (SELECT coalesce(json_agg(m ORDER BY m.seq), '[]'::json) FROM ${from}) AS messages FROM threads t WHERE t.id = $1`,
      newest === undefined ? [id] : [id, newest],
    );
    if (!rows[0]) return undefined;
    const messages = (
      typeof rows[0].messages === 'string' ? JSON.parse(rows[0].messages) : rows[0].messages
    ) as Record<string, unknown>[];
    return { ...toThread(rows[0]), messages: messages.map(toMessage) };
  }

  async renameThread(id: string, title: string) {
    const { rows } = await this.db.query('UPDATE threads SET title = $2 WHERE id = $1 RETURNING *', [
      id,
      title,
    ]);
    return rows[0] && toThread(rows[0]);
  }

  async deleteThread(id: string) {
    return (await this.db.query('DELETE FROM threads WHERE id = $1', [id])).rowCount > 0;
  }

  async listThreads(
    projectId: string,
    owner: string,
    { limit, after }: { limit: number; after?: ThreadCursor },
  ) {
    // The preview is the latest answer with text, found through messages_by_thread per row.
    const preview = `(SELECT left(m.content, ${PREVIEW_SOURCE_CHARS}) FROM messages m WHERE m.thread_id = t.id AND m.role = 'assistant' AND m.content <> '' ORDER BY m.seq DESC LIMIT 1) AS preview`;
    const { rows } = after
      ? await this.db.query(
          `SELECT t.*, ${preview} FROM threads t WHERE t.project_id = $1 AND t.owner = $2 AND (t.updated_at, t.id) < ($3, $4) ORDER BY t.updated_at DESC, t.id DESC LIMIT $5`,
          [projectId, owner, after.updatedAt, after.id, limit],
        )
      : await this.db.query(
          `SELECT t.*, ${preview} FROM threads t WHERE t.project_id = $1 AND t.owner = $2 ORDER BY t.updated_at DESC, t.id DESC LIMIT $3`,
          [projectId, owner, limit],
        );
    return rows.map((row) => ({ ...toThread(row), preview: (row.preview as string | null) ?? '' }));
  }

  async appendMessage(threadId: string, m: MessageRecord) {
    // One statement: the thread row is locked by the UPDATE, so a concurrent DELETE either
    // happened first (nothing is inserted) or waits and then removes this message too.
    const { rowCount } = await this.db.query(
      `WITH thread AS (UPDATE threads SET updated_at = greatest(updated_at, $2) WHERE id = $1 RETURNING id)
       INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain)
       SELECT $3, thread.id, $4, $5, $6::jsonb, $2, $7, $8, $9::jsonb, $10::jsonb, $11 FROM thread`,
      [
        threadId,
        m.createdAt,
        m.id,
        m.role,
        m.content,
        json(m.sources),
        m.updatedAt,
        m.status,
        json(m.toolCalls),
        json(m.activity),
        m.uncertain,
      ],
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
      sets.push(
        `${column} = $${params.length}${column === 'sources' || column === 'tool_calls' || column === 'activity' ? '::jsonb' : ''}`,
      );
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
    const thread = toThread({
      ...row,
      id: row.t_id,
      created_at: row.t_created_at,
      updated_at: row.t_updated_at,
    });
    return { message: toMessage(row), thread };
  }

  async putFeedback(f: FeedbackRecord) {
    await this.db.query(
      `INSERT INTO feedback (message_id, voter, project_id, session_token, owner, integration_id, reaction, comment, at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9 WHERE EXISTS (SELECT 1 FROM messages WHERE id = $1)
       ON CONFLICT (message_id, voter) DO UPDATE SET reaction = excluded.reaction, comment = excluded.comment,
         at = excluded.at, session_token = excluded.session_token`,
      [
        f.messageId,
        f.voter,
        f.projectId,
        f.sessionToken,
        f.owner,
        f.integrationId,
        f.reaction,
        f.comment === null ? null : json(f.comment),
        f.at,
      ],
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
    return rows.map((r) => ({
      day: num(r.day),
      sessionToken: r.session_token as string,
      owner: (r.owner as string | null) ?? null,
      integrationId: r.integration_id as string,
      sessions: num(r.sessions),
      threads: num(r.threads),
      messages: num(r.messages),
      upvotes: num(r.upvotes),
      downvotes: num(r.downvotes),
      promptTokens: num(r.prompt_tokens),
      completionTokens: num(r.completion_tokens),
    }));
  }

  async refreshActivity() {
    // CONCURRENTLY: readers keep the previous rollup while the new one is built.
    await this.db.query('REFRESH MATERIALIZED VIEW CONCURRENTLY activity_rollup');
    await this.refreshSummaries();
  }

  async purge({ sessionsBefore, eventsBefore }: { sessionsBefore: number; eventsBefore: number }) {
    this.sessions.clear();
    const sessions = (await this.db.query('DELETE FROM sessions WHERE expires_at < $1', [sessionsBefore]))
      .rowCount;
    const events = (await this.db.query('DELETE FROM events WHERE at < $1', [eventsBefore])).rowCount;
    await this.db.query('DELETE FROM console_sessions WHERE expires_at < $1', [sessionsBefore]);
    // Sign-in failures count for minutes; a day is far past any window.
    await this.db.query('DELETE FROM sign_in_failures WHERE at < $1', [sessionsBefore - 86_400_000]);
    return { sessions, events };
  }

  async stopStale(before: number) {
    return (
      await this.db.query(
        "UPDATE messages SET status = 'stopped' WHERE status = 'streaming' AND updated_at < $1",
        [before],
      )
    ).rowCount;
  }

  close() {
    return this.db.close();
  }

  /** Begins answers; those that come together are one statement (`begins`). */
  beginAnswer(start: AnswerStart): Promise<BeginResult> {
    return this.begins.add(start);
  }

  /** A batch of begins; one that lost its slot number to another instance's taker in the same instant goes again, alone. */
  private async beginAll(starts: AnswerStart[]): Promise<BeginResult[]> {
    if (starts.length === 1) return [await this.beginOne(starts[0])];
    const results = await this.beginMany(starts);
    return Promise.all(
      results.map(async (result, i) => (result === 'retry' ? this.beginOne(starts[i]) : result)),
    );
  }

  /**
   * A begin alone, in the statement written for one: half the batch statement's cost for one
   * begin on PGlite (1.5 against 3.1 ms: it plans every statement), where a begin is nearly
   * always alone (the database runs on the main thread, so the next question's begin comes
   * after this one is written). Also where a batch's begin lost its slot number to another
   * instance: tried again here, a bounded number of times.
   */
  private async beginOne({
    thread: t,
    newThread,
    question: q,
    answer: a,
    instanceId,
    events,
    slot,
  }: AnswerStart): Promise<BeginResult> {
    // One statement: a concurrent-answer slot (numbered 1..cap under a unique key, so the cap
    // holds without a lock), then, only with one, the thread row (inserted, or its updated_at
    // moved, which locks it against a concurrent delete), both messages in order and the
    // activity events; nothing when the thread is gone.
    const params: unknown[] = [];
    const $ = (value: unknown) => `$${params.push(value)}`;
    const slotSql = slot
      ? `INSERT INTO answer_slots (key, slot, answer_id, instance_id, taken_at)
         SELECT ${$(slot.key)}::text, s, ${$(a.id)}::text, ${$(instanceId)}::text, ${$(a.createdAt)}::bigint FROM generate_series(1, ${$(slot.cap)}::int) AS s
         WHERE NOT EXISTS (SELECT 1 FROM answer_slots x WHERE x.key = $1 AND x.slot = s)
         ORDER BY s LIMIT 1 ON CONFLICT DO NOTHING RETURNING 1`
      : 'SELECT 1';
    const threadSql = newThread
      ? `INSERT INTO threads (id, project_id, integration_id, owner, title, created_at, updated_at)
         SELECT ${$(t.id)}, ${$(t.projectId)}, ${$(t.integrationId)}, ${$(t.owner)}, ${$(t.title)}, ${$(t.createdAt)}::bigint, ${$(q.createdAt)}::bigint
         WHERE EXISTS (SELECT 1 FROM slot) RETURNING id`
      : `UPDATE threads SET updated_at = greatest(updated_at, ${$(q.createdAt)}::bigint) WHERE id = ${$(t.id)} AND EXISTS (SELECT 1 FROM slot) RETURNING id`;
    const first = events[0];
    const sql = `WITH slot AS (${slotSql}),
       thread AS (${threadSql}),
       inserted AS (
         INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain, instance_id)
         SELECT m.id, thread.id, m.role, m.content, '[]'::jsonb, m.at, m.at, m.status, '[]'::jsonb, '[]'::jsonb, false, m.instance_id
         FROM thread, (VALUES (1, ${$(q.id)}::text, 'user', ${$(q.content)}::text, 'complete', ${$(q.createdAt)}::bigint, NULL::text),
                              (2, ${$(a.id)}::text, 'assistant', '', 'streaming', ${$(a.createdAt)}::bigint, ${$(instanceId)}::text)) AS m(n, id, role, content, status, at, instance_id)
         ORDER BY m.n RETURNING 1),
       counted AS (
         INSERT INTO events (kind, project_id, at, session_token, owner, integration_id)
         SELECT e.kind, ${$(t.projectId)}, e.at, ${$(first?.sessionToken ?? '')}, ${$(first?.owner ?? null)}::text, ${$(first?.integrationId ?? null)}::text
         FROM thread, unnest(${$(events.map((e) => e.kind))}::text[], ${$(events.map((e) => e.at))}::bigint[]) AS e(kind, at))
       SELECT (SELECT count(*) FROM slot)::int AS slot, (SELECT count(*) FROM thread)::int AS thread`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const { rows } = await this.db.query(sql, params);
      if (num(rows[0].thread) > 0) return 'begun';
      if (num(rows[0].slot) > 0) {
        // The slot was taken for an answer whose thread is gone.
        await this.releaseAnswerSlot(a.id);
        return 'thread_gone';
      }
      // No slot: all taken, or a concurrent taker won the same number (then try again).
      const taken = await this.db.query('SELECT count(*)::int AS n FROM answer_slots WHERE key = $1', [
        slot!.key,
      ]);
      if (num(taken.rows[0].n) >= slot!.cap) return 'cap_reached';
    }
    return 'cap_reached';
  }

  /**
   * One statement for many begins. For each, a concurrent-answer slot: the free numbers of its
   * key (1..cap, under a unique key, so the cap holds without a lock) handed out in order to the
   * begins of that key; then, only with one, the thread row (inserted, or its updated_at moved,
   * which locks it against a concurrent delete), both messages in order and the activity events;
   * nothing when the thread is gone. `retry`: the slot number was taken meanwhile by another
   * statement, though free ones were left.
   */
  private async beginMany(starts: AnswerStart[]): Promise<(BeginResult | 'retry')[]> {
    const events = starts.flatMap((s, n) => s.events.map((e) => ({ n, e })));
    const { rows } = await this.db.query(
      `WITH v AS (
         SELECT * FROM unnest($1::int[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
           $9::text[], $10::text[], $11::bigint[], $12::text[], $13::bigint[], $14::text[], $15::text[], $16::int[])
           AS v(n, thread_id, new_thread, project_id, integration_id, owner, title, thread_created_at,
             q_id, q_content, q_at, a_id, a_at, instance_id, slot_key, slot_cap)),
       wanted AS (SELECT v.*, row_number() OVER (PARTITION BY v.slot_key ORDER BY v.n) AS k FROM v WHERE v.slot_key IS NOT NULL),
       free AS (
         SELECT c.key, s, row_number() OVER (PARTITION BY c.key ORDER BY s) AS k
         FROM (SELECT slot_key AS key, max(slot_cap) AS cap FROM v WHERE slot_key IS NOT NULL GROUP BY slot_key) c, generate_series(1, c.cap) AS s
         WHERE NOT EXISTS (SELECT 1 FROM answer_slots x WHERE x.key = c.key AND x.slot = s)),
       slot AS (
         INSERT INTO answer_slots (key, slot, answer_id, instance_id, taken_at)
         SELECT w.slot_key, f.s, w.a_id, w.instance_id, w.a_at FROM wanted w JOIN free f ON f.key = w.slot_key AND f.k = w.k
         ORDER BY w.n ON CONFLICT DO NOTHING RETURNING answer_id),
       ok AS (SELECT v.* FROM v WHERE v.slot_key IS NULL OR v.a_id IN (SELECT answer_id FROM slot)),
       created AS (
         INSERT INTO threads (id, project_id, integration_id, owner, title, created_at, updated_at)
         SELECT thread_id, project_id, integration_id, owner, title, thread_created_at, q_at FROM ok WHERE new_thread ORDER BY n RETURNING id),
       moved AS (
         UPDATE threads t SET updated_at = greatest(t.updated_at, u.at)
         FROM (SELECT thread_id, max(q_at) AS at FROM ok WHERE NOT new_thread GROUP BY thread_id) u WHERE t.id = u.thread_id RETURNING t.id),
       begun AS (SELECT ok.* FROM ok WHERE ok.thread_id IN (SELECT id FROM created UNION ALL SELECT id FROM moved)),
       inserted AS (
         INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain, instance_id)
         SELECT m.id, b.thread_id, m.role, m.content, '[]'::jsonb, m.at, m.at, m.status, '[]'::jsonb, '[]'::jsonb, false, m.instance_id
         FROM begun b, LATERAL (VALUES (1, b.q_id, 'user', b.q_content, 'complete', b.q_at, NULL::text),
                                       (2, b.a_id, 'assistant', '', 'streaming', b.a_at, b.instance_id)) AS m(k, id, role, content, status, at, instance_id)
         ORDER BY b.n, m.k),
       counted AS (
         INSERT INTO events (kind, project_id, at, session_token, owner, integration_id)
         SELECT e.kind, e.project_id, e.at, e.session_token, e.owner, e.integration_id
         FROM unnest($17::int[], $18::text[], $19::text[], $20::bigint[], $21::text[], $22::text[], $23::text[])
           AS e(n, kind, project_id, at, session_token, owner, integration_id)
         WHERE e.n IN (SELECT n FROM begun))
       -- Joins, not a subquery per row: those rescan the CTE for each begin (a second at 500 begins).
       SELECT v.n, s.answer_id IS NOT NULL AS slot, b.n IS NOT NULL AS begun, coalesce(f.free, 0)::int AS free, w.k::int AS k
       FROM v LEFT JOIN slot s ON s.answer_id = v.a_id LEFT JOIN begun b ON b.n = v.n LEFT JOIN wanted w ON w.n = v.n
         LEFT JOIN (SELECT key, count(*) AS free FROM free GROUP BY key) f ON f.key = v.slot_key
       ORDER BY v.n`,
      [
        starts.map((_, n) => n),
        starts.map((s) => s.thread.id),
        starts.map((s) => s.newThread),
        starts.map((s) => s.thread.projectId),
        starts.map((s) => s.thread.integrationId),
        starts.map((s) => s.thread.owner),
        starts.map((s) => s.thread.title),
        starts.map((s) => s.thread.createdAt),
        starts.map((s) => s.question.id),
        starts.map((s) => s.question.content),
        starts.map((s) => s.question.createdAt),
        starts.map((s) => s.answer.id),
        starts.map((s) => s.answer.createdAt),
        starts.map((s) => s.instanceId),
        starts.map((s) => s.slot?.key ?? null),
        starts.map((s) => s.slot?.cap ?? null),
        events.map((x) => x.n),
        events.map((x) => x.e.kind),
        events.map((x) => x.e.projectId),
        events.map((x) => x.e.at),
        events.map((x) => x.e.sessionToken),
        events.map((x) => x.e.owner),
        events.map((x) => x.e.integrationId),
      ],
    );
    const results = rows.map((row): BeginResult | 'retry' => {
      if (row.begun === true) return 'begun';
      if (row.slot === true || row.k === null) return 'thread_gone';
      // No slot: every free number went to begins of its key before this one, or another statement took it.
      return num(row.free) < num(row.k) ? 'cap_reached' : 'retry';
    });
    // The slots taken for answers whose thread is gone.
    const gone = rows
      .filter((row) => row.slot === true && row.begun !== true)
      .map((row) => starts[num(row.n)].answer.id);
    if (gone.length)
      await this.db.query('DELETE FROM answer_slots WHERE answer_id = ANY($1::text[])', [gone]);
    return results;
  }

  async saveAnswers(saves: AnswerSave[], instanceId: string) {
    if (!saves.length) return new Set<string>();
    const { rows } = await this.db.query(
      `UPDATE messages m SET content = v.content, sources = v.sources::jsonb, activity = v.activity::jsonb, uncertain = v.uncertain, updated_at = v.updated_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::bigint[]) AS v(id, content, sources, activity, uncertain, updated_at)
       WHERE m.id = v.id AND m.status = 'streaming' AND m.instance_id = $7 RETURNING m.id`,
      [
        saves.map((x) => x.id),
        saves.map((x) => x.content),
        saves.map((x) => json(x.sources)),
        saves.map((x) => json(x.activity)),
        saves.map((x) => x.uncertain),
        saves.map((x) => x.updatedAt),
        instanceId,
      ],
    );
    return new Set(rows.map((r) => r.id as string));
  }

  /** Ends answers; those that come together are one statement (`ends`). */
  endAnswer(end: AnswerEnd): Promise<boolean> {
    return this.ends.add(end);
  }

  /** One statement: the answers' slots freed, each end stored if its instance still holds it, and the events of those stored. */
  private async endAnswers(ends: AnswerEnd[]): Promise<Set<string>> {
    const events = ends.flatMap(({ id, events }) => events.map((e) => ({ id, e })));
    const { rows } = await this.db.query(
      `WITH v AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[])
           AS v(id, instance_id, content, sources, activity, uncertain, tool_calls, status, updated_at, prompt_tokens, completion_tokens)),
       slot AS (DELETE FROM answer_slots s USING v WHERE s.answer_id = v.id),
       ended AS (
         UPDATE messages m SET content = v.content, sources = v.sources::jsonb, activity = v.activity::jsonb, uncertain = v.uncertain,
           tool_calls = v.tool_calls::jsonb, status = v.status, updated_at = v.updated_at, prompt_tokens = v.prompt_tokens,
           completion_tokens = v.completion_tokens, instance_id = NULL
         FROM v WHERE m.id = v.id AND m.instance_id = v.instance_id RETURNING m.id),
       counted AS (
         INSERT INTO events (kind, project_id, at, session_token, owner, integration_id, prompt_tokens, completion_tokens)
         SELECT e.kind, e.project_id, e.at, e.session_token, e.owner, e.integration_id, e.prompt_tokens, e.completion_tokens
         FROM unnest($12::text[], $13::text[], $14::text[], $15::bigint[], $16::text[], $17::text[], $18::text[], $19::bigint[], $20::bigint[])
           AS e(answer_id, kind, project_id, at, session_token, owner, integration_id, prompt_tokens, completion_tokens)
         JOIN ended ON ended.id = e.answer_id)
       SELECT id FROM ended`,
      [
        ends.map((x) => x.id),
        ends.map((x) => x.instanceId),
        ends.map((x) => x.patch.content),
        ends.map((x) => json(x.patch.sources)),
        ends.map((x) => json(x.patch.activity)),
        ends.map((x) => x.patch.uncertain),
        ends.map((x) => json(x.patch.toolCalls)),
        ends.map((x) => x.patch.status),
        ends.map((x) => x.patch.updatedAt),
        ends.map((x) => x.patch.usage?.promptTokens ?? null),
        ends.map((x) => x.patch.usage?.completionTokens ?? null),
        events.map((x) => x.id),
        events.map((x) => x.e.kind),
        events.map((x) => x.e.projectId),
        events.map((x) => x.e.at),
        events.map((x) => x.e.sessionToken),
        events.map((x) => x.e.owner),
        events.map((x) => x.e.integrationId),
        events.map((x) => x.e.promptTokens ?? 0),
        events.map((x) => x.e.completionTokens ?? 0),
      ],
    );
    return new Set(rows.map((r) => r.id as string));
  }

  async resumeAnswer(
    id: string,
    expected: ToolCallRecord[],
    toolCalls: ToolCallRecord[],
    updatedAt: number,
    instanceId: string,
  ) {
    // The row lock and the re-check of the WHERE clause after it make this exactly-once: a
    // second caller finds the tool calls changed (or an instance on it) and updates nothing.
    const { rowCount } = await this.db.query(
      `UPDATE messages SET tool_calls = $3::jsonb, updated_at = $4, instance_id = $5
       WHERE id = $1 AND status = 'streaming' AND instance_id IS NULL AND tool_calls = $2::jsonb`,
      [id, json(expected), json(toolCalls), updatedAt, instanceId],
    );
    return rowCount > 0;
  }

  async heartbeat(instanceId: string) {
    await this.db.query(
      `INSERT INTO instances (id, started_at, seen_at) VALUES ($1, ${DB_NOW}, ${DB_NOW})
       ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at`,
      [instanceId],
    );
  }

  async retireInstance(instanceId: string) {
    await this.db.query('DELETE FROM instances WHERE id = $1', [instanceId]);
  }

  async reapInstances(leaseMs: number, now: number) {
    const { rows } = await this.db.query(
      `WITH dead AS (DELETE FROM instances WHERE seen_at < ${DB_NOW} - $1 RETURNING id),
       orphans AS (
         SELECT id FROM messages WHERE status = 'streaming' AND instance_id IS NOT NULL
           AND (instance_id IN (SELECT id FROM dead) OR instance_id NOT IN (SELECT id FROM instances))),
       freed AS (DELETE FROM answer_slots WHERE instance_id IN (SELECT id FROM dead) OR answer_id IN (SELECT id FROM orphans)),
       ended AS (UPDATE messages SET status = 'error', instance_id = NULL, updated_at = $2 WHERE id IN (SELECT id FROM orphans) RETURNING id)
       SELECT count(*)::int AS n FROM ended`,
      [leaseMs, now],
    );
    return num(rows[0].n);
  }

  async answerHost(answerId: string, leaseMs: number) {
    const { rows } = await this.db.query(
      `SELECT m.instance_id, coalesce(i.seen_at >= ${DB_NOW} - $2, false) AS alive
       FROM messages m LEFT JOIN instances i ON i.id = m.instance_id WHERE m.id = $1`,
      [answerId, leaseMs],
    );
    return (
      rows[0] && { instanceId: (rows[0].instance_id as string | null) ?? null, alive: rows[0].alive === true }
    );
  }

  async endOrphan(answerId: string, status: 'stopped' | 'error', now: number, leaseMs: number) {
    const { rows } = await this.db.query(
      `WITH ended AS (
         UPDATE messages m SET status = $2, instance_id = NULL, updated_at = $3
         WHERE m.id = $1 AND m.status = 'streaming' AND m.instance_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = m.instance_id AND i.seen_at >= ${DB_NOW} - $4)
         RETURNING m.id),
       freed AS (DELETE FROM answer_slots WHERE answer_id IN (SELECT id FROM ended))
       SELECT count(*)::int AS n FROM ended`,
      [answerId, status, now, leaseMs],
    );
    return num(rows[0].n) > 0;
  }

  async takeAnswerSlot(key: string, cap: number, answerId: string, instanceId: string, now: number) {
    // Slots are numbered 1..cap under a unique key, so the cap holds without a lock: two takers
    // of one free number conflict, and the loser tries again (a bounded number of times).
    for (let attempt = 0; attempt < 3; attempt++) {
      const { rowCount } = await this.db.query(
        `INSERT INTO answer_slots (key, slot, answer_id, instance_id, taken_at)
         SELECT $1, s, $3, $4, $5 FROM generate_series(1, $2::int) AS s
         WHERE NOT EXISTS (SELECT 1 FROM answer_slots a WHERE a.key = $1 AND a.slot = s)
         ORDER BY s LIMIT 1
         ON CONFLICT DO NOTHING`,
        [key, cap, answerId, instanceId, now],
      );
      if (rowCount > 0) return 'taken' as const;
      const { rows } = await this.db.query(
        'SELECT count(*)::int AS n, bool_or(answer_id = $2) AS held FROM answer_slots WHERE key = $1',
        [key, answerId],
      );
      if (rows[0].held === true) return 'held' as const;
      if (num(rows[0].n) >= cap) return 'cap_reached' as const;
    }
    return 'cap_reached' as const;
  }

  async releaseAnswerSlot(answerId: string) {
    await this.db.query('DELETE FROM answer_slots WHERE answer_id = $1', [answerId]);
  }

  async purgeAnswerSlots(before: number) {
    return (await this.db.query('DELETE FROM answer_slots WHERE taken_at < $1', [before])).rowCount;
  }

  /** Counts requests; those that come together are one statement (`counts`). */
  countRequest(key: string, windowMs: number, now: number) {
    return this.counts.add({ key, windowMs, now });
  }

  /** A count alone (on PGlite, nearly always), in the statement written for one. */
  private async countOne({ key, windowMs, now }: { key: string; windowMs: number; now: number }) {
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
  private async countRequests(calls: { key: string; windowMs: number; now: number }[]) {
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

  async subscribe(onMessage: (message: string) => void) {
    if (!this.db.listen) return this.local.subscribe(onMessage);
    const fragments = new Map<string, string[]>();
    return this.db.listen(
      this.channel,
      (payload) => {
        if (payload[0] === '=') return onMessage(payload.slice(1));
        // `+<id> <index> <count>\n<text>`: the pieces of one message, from one publisher, in order.
        const newline = payload.indexOf('\n');
        const [id, index, count] = payload.slice(1, newline).split(' ');
        const parts = fragments.get(id) ?? [];
        if (Number(index) !== parts.length) return void fragments.delete(id);
        parts.push(payload.slice(newline + 1));
        if (parts.length < Number(count)) return void fragments.set(id, parts);
        fragments.delete(id);
        onMessage(parts.join(''));
      },
      () => {
        fragments.clear();
        onMessage(SIGNALS_LOST);
      },
    );
  }

  publish(messages: string[]): Promise<void> {
    if (!this.db.listen) return this.local.publish(messages);
    for (const message of messages) this.outbox.push(...payloads(message));
    // One statement at a time, so notifications arrive in publishing order; whatever queued
    // meanwhile goes in the next statement together.
    this.publishing ??= (async () => {
      try {
        while (this.outbox.length) {
          const batch = this.outbox;
          this.outbox = [];
          await this.db.query(
            'SELECT pg_notify($1, x.p) FROM unnest($2::text[]) WITH ORDINALITY AS x(p, n) ORDER BY x.n',
            [this.channel, batch],
          );
        }
      } finally {
        this.publishing = null;
      }
    })();
    return this.publishing;
  }
}

let fragmentIds = 0;

/** One NOTIFY payload per message, or numbered fragments of at most MAX_PAYLOAD_BYTES. */
function payloads(message: string): string[] {
  if (message.length * 3 < MAX_PAYLOAD_BYTES || new TextEncoder().encode(message).length < MAX_PAYLOAD_BYTES)
    return [`=${message}`];
  const pieces: string[] = [];
  // Characters, not bytes: at most 3 UTF-8 bytes per UTF-16 unit, and a pair is never split.
  const size = Math.floor((MAX_PAYLOAD_BYTES - 64) / 3);
  for (let at = 0; at < message.length;) {
    let end = Math.min(message.length, at + size);
    const last = message.charCodeAt(end - 1);
    if (end < message.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(message.slice(at, end));
    at = end;
  }
  const id = `${Date.now().toString(36)}.${(fragmentIds++).toString(36)}.${Math.random().toString(36).slice(2, 8)}`;
  return pieces.map((piece, i) => `+${id} ${i} ${pieces.length}\n${piece}`);
}
