import type { SqlClient } from '../sql-client.js';
import { PREVIEW_SOURCE_CHARS } from '../types.js';
import type {
  ConversationFilter,
  ConversationStore,
  ConversationSummary,
  FeedbackRecord,
  MessagePatch,
  MessageRecord,
  Reaction,
  ThreadCursor,
  ThreadMeta,
  ThreadRecord,
} from '../types.js';
import { json, num, numOrNull, toMessage, toThread } from './rows.js';

const PATCH_COLUMNS: Record<
  Exclude<keyof MessagePatch, 'usage' | 'failure'>,
  [string, (v: never) => unknown]
> = {
  content: ['content', (v: string) => v],
  sources: ['sources', json],
  status: ['status', (v: string) => v],
  toolCalls: ['tool_calls', json],
  activity: ['activity', json],
  uncertain: ['uncertain', (v: boolean) => v],
  updatedAt: ['updated_at', (v: number) => v],
};

/**
 * When page row `p` of docs source `d` last changed for an answer that cites it (decisions 296,
 * 392, 738; `pageSince` in memory): a page two sources hold changed when either saw it change,
 * and left when both did. An answer written before it cites a stale source.
 */
const PAGE_SINCE = `CASE WHEN p.removed_at IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM doc_pages live JOIN doc_sources ls ON ls.id = live.source_id
    WHERE live.url = p.url AND live.removed_at IS NULL AND ls.project_id = d.project_id)
  THEN greatest(p.changed_at, p.removed_at) ELSE p.changed_at END`;

/**
 * The threads of project $1 with an answer citing a stale source, for the filter and the count
 * (decision 747): from the project's pages to their citations older than the change, one range
 * of citations_by_page each, so the cost follows the pages and the stale citations, not the
 * conversations. The `OFFSET 0` keeps the citations a lookup per page: joined plainly, the
 * planner read every citation of the project into a hash join (0.25 s at 180,000).
 */
const STALE_THREADS = `SELECT c.thread_id FROM doc_pages p JOIN doc_sources d ON d.id = p.source_id
  CROSS JOIN LATERAL (SELECT ${PAGE_SINCE} AS since) w
  CROSS JOIN LATERAL (SELECT c.thread_id FROM citations c
    WHERE c.project_id = d.project_id AND c.url = p.url AND c.created_at < w.since OFFSET 0) c
  WHERE d.project_id = $1`;

/**
 * Whether thread `t` has such an answer, for the rows a page lists: its few citations, each
 * page looked up along doc_pages_by_url. The `OFFSET 0` keeps it a lookup per row: without it
 * the planner turned the EXISTS into one hashed set of every citation of the project, each
 * with its page, which a first page of 50 rows paid in full (0.9 s at 180,000 citations).
 */
const STALE_IN_THREAD = `SELECT 1 FROM citations c CROSS JOIN LATERAL (
    SELECT 1 FROM doc_pages p JOIN doc_sources d ON d.id = p.source_id
    WHERE p.url = c.url AND d.project_id = c.project_id AND c.created_at < ${PAGE_SINCE} LIMIT 1) hit
  WHERE c.thread_id = t.id OFFSET 0`;

/** A thread as the console lists it: its counts, flags and reactions summed where they are kept. */
const SUMMARY_FROM = `threads t
  CROSS JOIN LATERAL (
    SELECT count(*) AS message_count, coalesce(bool_or(m.uncertain), false) AS uncertain, coalesce(bool_or(m.status = 'error'), false) AS error,
      coalesce(bool_or(jsonb_array_length(m.tool_calls) > 0), false) AS tool_used
    FROM messages m WHERE m.thread_id = t.id) s
  CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE f.reaction = 'upvote') AS upvotes, count(*) FILTER (WHERE f.reaction = 'downvote') AS downvotes
    FROM feedback f JOIN messages m ON m.id = f.message_id WHERE m.thread_id = t.id) r
  CROSS JOIN LATERAL (SELECT EXISTS (${STALE_IN_THREAD}) AS stale_sources) x`;

const toSummary = (r: Record<string, unknown>): ConversationSummary => ({
  ...toThread(r),
  handoffAt: numOrNull(r.handoff_at),
  messages: num(r.message_count),
  upvotes: num(r.upvotes),
  downvotes: num(r.downvotes),
  uncertain: r.uncertain as boolean,
  error: r.error as boolean,
  toolUsed: r.tool_used as boolean,
  staleSources: r.stale_sources as boolean,
});

const toFeedback = (r: Record<string, unknown>): FeedbackRecord => ({
  messageId: r.message_id as string,
  projectId: r.project_id as string,
  voter: r.voter as string,
  sessionToken: r.session_token as string,
  owner: (r.owner as string | null) ?? null,
  integrationId: r.integration_id as string,
  reaction: r.reaction as Reaction,
  comment: (r.comment as Record<string, unknown> | null) ?? null,
  at: num(r.at),
});

/** The WHERE clause of a console search, its parameters after `projectId` ($1). */
function searchWhere(f: ConversationFilter, after: ThreadCursor | undefined, params: unknown[]): string {
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
  // An array made once, so the planner filters the threads by it before it sums each thread's
  // rows; as an IN it made a semi-join after them, and paid the row's EXISTS for every thread.
  if (f.staleSources) where.push(`t.id = ANY (ARRAY(${STALE_THREADS}))`);
  if (f.downvoted) where.push('r.downvotes > 0');
  return where.join(' AND ');
}

/**
 * One statement deleting the threads `ids` names (`$1::text` or `ANY($1::text[])`): their
 * Idempotency-Keys (a resend of one of their questions asks anew), the reactions on their
 * messages (decision 599) and the webhook deliveries that quote them (decision 621) with them;
 * messages and files go by their foreign keys.
 */
const deleteThreads = (ids: string) => `WITH keys AS (DELETE FROM idempotency_keys WHERE thread_id = ${ids}),
  reactions AS (DELETE FROM feedback WHERE message_id IN (SELECT id FROM messages WHERE thread_id = ${ids})),
  deliveries AS (DELETE FROM webhook_deliveries WHERE thread_id = ${ids})
  DELETE FROM threads WHERE id = ${ids}`;

/** Threads, messages and reactions in SQL: each write one conditional statement. */
export class SqlConversationStore implements ConversationStore {
  constructor(private readonly db: SqlClient) {}

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
    return (await this.db.query(deleteThreads('$1::text'), [id])).rowCount > 0;
  }

  async purgeThreads(before: number, limit: number) {
    // SKIP LOCKED: two instances purging at once take different threads, neither waits on the other.
    const expired = `SELECT t.id FROM threads t WHERE t.updated_at < $1
      AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id AND m.status = 'streaming')
      ORDER BY t.updated_at LIMIT $2 FOR UPDATE SKIP LOCKED`;
    return this.db.transaction(async (query) => {
      const { rows } = await query(expired, [before, limit]);
      if (!rows.length) return 0;
      const ids = rows.map((r) => r.id as string);
      return (await query(deleteThreads('ANY($1::text[])'), [ids])).rowCount;
    });
  }

  async countOwnerThreads(projectId: string, owner: string) {
    const { rows } = await this.db.query(
      'SELECT count(*) AS n FROM threads WHERE project_id = $1 AND owner = $2',
      [projectId, owner],
    );
    return num(rows[0].n);
  }

  async listThreads(
    projectId: string,
    owner: string,
    { limit, after }: { limit: number; after?: ThreadCursor },
  ) {
    // The preview is the first answer with text (the title's answer), found through
    // messages_by_thread per row.
    const preview = `(SELECT left(m.content, ${PREVIEW_SOURCE_CHARS}) FROM messages m WHERE m.thread_id = t.id AND m.role = 'assistant' AND m.content <> '' ORDER BY m.seq LIMIT 1) AS preview`;
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
       INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain, failure_code, failure_message, failure_reason)
       SELECT $3, thread.id, $4, $5, $6::jsonb, $2, $7, $8, $9::jsonb, $10::jsonb, $11, $12, $13, $14 FROM thread`,
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
        m.failure?.code ?? null,
        m.failure?.message ?? null,
        m.failure?.reason ?? null,
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
      if (key === 'failure') {
        const failure = value as MessageRecord['failure'];
        params.push(failure?.code ?? null, failure?.message ?? null, failure?.reason ?? null);
        sets.push(
          `failure_code = $${params.length - 2}`,
          `failure_message = $${params.length - 1}`,
          `failure_reason = $${params.length}`,
        );
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

  async markHandoff(threadId: string, at: number) {
    const { rowCount } = await this.db.query(
      'UPDATE threads SET handoff_at = coalesce(handoff_at, $2) WHERE id = $1',
      [threadId, at],
    );
    return rowCount > 0;
  }

  async searchThreads(
    projectId: string,
    filter: ConversationFilter,
    { limit, after }: { limit: number; after?: ThreadCursor },
  ) {
    const params: unknown[] = [projectId];
    const where = searchWhere(filter, after, params);
    params.push(limit);
    const { rows } = await this.db.query(
      `SELECT t.*, s.*, r.*, x.* FROM ${SUMMARY_FROM}
       WHERE ${where}
       ORDER BY t.updated_at DESC, t.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toSummary);
  }

  async countStaleThreads(projectId: string, cap: number) {
    const { rows } = await this.db.query(
      `SELECT count(*) AS n FROM (SELECT DISTINCT thread_id FROM (${STALE_THREADS}) stale LIMIT $2) found`,
      [projectId, cap],
    );
    return num(rows[0].n);
  }

  async threadFeedback(threadId: string) {
    const { rows } = await this.db.query(
      'SELECT f.* FROM feedback f JOIN messages m ON m.id = f.message_id WHERE m.thread_id = $1 ORDER BY f.at',
      [threadId],
    );
    return rows.map(toFeedback);
  }
}
