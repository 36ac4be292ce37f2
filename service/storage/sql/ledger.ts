import { Batches } from '../batches.js';
import type { SqlClient } from '../sql-client.js';
import {
  type AnswerEnd,
  type AnswerLedger,
  type AnswerSave,
  type AnswerStart,
  type AskKey,
  type BeginResult,
  LOST_ANSWER,
  type ToolCallRecord,
} from '../types.js';
import { beginMany, beginOne } from './answer-begins.js';
import { DB_NOW, ORPHAN_ENDS, eventColumns, json, num, toEndedOrphan } from './rows.js';

/** An orphan's failure columns (`$5` code, `$6` message, `$7` reason), set when it ends as an error (decision 496). */
const LOST_COLUMNS = `failure_code = CASE WHEN m.stop_requested OR $2 <> 'error' THEN NULL ELSE $5 END,
           failure_message = CASE WHEN m.stop_requested OR $2 <> 'error' THEN NULL ELSE $6 END,
           failure_reason = CASE WHEN m.stop_requested OR $2 <> 'error' THEN NULL ELSE $7 END`;

/** The answers' slots freed, each end stored if its instance still holds it, and the events of those stored. */
const END_MANY = `WITH v AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[], $9::bigint[], $10::bigint[], $11::bigint[], $12::text[], $13::text[], $14::text[])
       AS v(id, instance_id, content, sources, activity, uncertain, tool_calls, status, updated_at, prompt_tokens, completion_tokens, failure_code, failure_message, failure_reason)),
   slot AS (DELETE FROM answer_slots s USING v WHERE s.answer_id = v.id),
   ended AS (
     UPDATE messages m SET content = v.content, sources = v.sources::jsonb, activity = v.activity::jsonb, uncertain = v.uncertain,
       tool_calls = v.tool_calls::jsonb, status = v.status, updated_at = v.updated_at, prompt_tokens = v.prompt_tokens,
       completion_tokens = v.completion_tokens, failure_code = v.failure_code, failure_message = v.failure_message, failure_reason = v.failure_reason,
       instance_id = NULL,
       counted_session = CASE WHEN v.status = 'streaming' THEN m.counted_session END,
       counted_integration = CASE WHEN v.status = 'streaming' THEN m.counted_integration END
     FROM v WHERE m.id = v.id AND m.instance_id = v.instance_id RETURNING m.id),
   counted AS (
     INSERT INTO events (kind, project_id, at, session_token, owner, integration_id, prompt_tokens, completion_tokens)
     SELECT e.kind, e.project_id, e.at, e.session_token, e.owner, e.integration_id, e.prompt_tokens, e.completion_tokens
     FROM unnest($15::text[], $16::text[], $17::text[], $18::bigint[], $19::text[], $20::text[], $21::text[], $22::bigint[], $23::bigint[])
       AS e(answer_id, kind, project_id, at, session_token, owner, integration_id, prompt_tokens, completion_tokens)
     JOIN ended ON ended.id = e.answer_id)
   SELECT id FROM ended`;

/** END_MANY's parameters: one array per column of the ends, then of their events. */
function endManyParams(ends: AnswerEnd[]): unknown[] {
  const events = ends.flatMap(({ id, events }) => events.map((e) => ({ id, e })));
  return [
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
    ends.map((x) => x.patch.failure?.code ?? null),
    ends.map((x) => x.patch.failure?.message ?? null),
    ends.map((x) => x.patch.failure?.reason ?? null),
    events.map((x) => x.id),
    ...eventColumns(events.map((x) => x.e)),
    events.map((x) => x.e.promptTokens ?? 0),
    events.map((x) => x.e.completionTokens ?? 0),
  ];
}

/** Answers and their slots in SQL: a generating answer's row names its instance (`instance_id`). */
export class SqlAnswerLedger implements AnswerLedger {
  /**
   * Answer begins and ends, those that come together in one statement. At hundreds of
   * questions a second, one statement per call was a round trip and a commit each through the
   * pool, and its socket write (with the wake-up of the server's process) was the largest part
   * of the service's time before the first records: about 40 % of its main thread while 500
   * questions came in at once.
   */
  private readonly begins = new Batches<AnswerStart, BeginResult>((starts) => this.beginAll(starts));
  private readonly ends = new Batches<AnswerEnd, boolean>(async (ends) => {
    const { rows } = await this.db.query(END_MANY, endManyParams(ends));
    const ended = new Set(rows.map((r) => r.id as string));
    return ends.map((end) => ended.has(end.id));
  });

  constructor(private readonly db: SqlClient) {}

  /** Begins answers; those that come together are one statement (`begins`). */
  beginAnswer(start: AnswerStart): Promise<BeginResult> {
    return this.begins.add(start);
  }

  /** A batch of begins; one that lost its slot number to another instance's taker in the same instant goes again, alone. */
  private async beginAll(starts: AnswerStart[]): Promise<BeginResult[]> {
    if (starts.length === 1) return [await beginOne(this.db, starts[0])];
    // A question with files goes alone (its statement links them; the batch's has no room for
    // lists per begin), and is rare beside the plain ones; so does a second one with a key the
    // batch has (one statement may not write a row twice), after it.
    const keys = new Set<string>();
    const batched = starts.map((s) => {
      const key = s.ask && `${s.ask.projectId}\n${s.ask.scope}\n${s.ask.key}`;
      if (s.question.attachments?.length || (key && keys.has(key))) return false;
      if (key) keys.add(key);
      return true;
    });
    const plain = starts.filter((_, n) => batched[n]);
    const results = plain.length > 1 ? await beginMany(this.db, plain) : [];
    let next = 0;
    return Promise.all(
      starts.map(async (start, n) => {
        const result = !batched[n] || plain.length < 2 ? 'retry' : results[next++];
        return result === 'retry' ? beginOne(this.db, start) : result;
      }),
    );
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
    // As the reaper's: the row lock and the re-check after it end the answer (and count it) once.
    const { rows } = await this.db.query(
      `WITH orphan AS (
         SELECT m.id, m.instance_id, m.counted_session, m.counted_integration FROM messages m
         WHERE m.id = $1 AND m.status = 'streaming' AND m.instance_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = m.instance_id AND i.seen_at >= ${DB_NOW} - $4)),
       ended AS (
         UPDATE messages m SET status = CASE WHEN m.stop_requested THEN 'stopped' ELSE $2 END, instance_id = NULL, updated_at = $3,
           ${LOST_COLUMNS}, counted_session = NULL, counted_integration = NULL
         FROM orphan o WHERE m.id = o.id AND m.status = 'streaming' AND m.instance_id = o.instance_id
         RETURNING m.id, m.thread_id, m.status, o.counted_session, o.counted_integration),
       freed AS (DELETE FROM answer_slots WHERE answer_id IN (SELECT id FROM ended)),
       ${ORPHAN_ENDS('$3::bigint')}`,
      [answerId, status, now, leaseMs, LOST_ANSWER.code, LOST_ANSWER.message, LOST_ANSWER.reason],
    );
    return rows[0] ? toEndedOrphan(rows[0]) : null;
  }

  async requestStop(answerId: string) {
    await this.db.query("UPDATE messages SET stop_requested = true WHERE id = $1 AND status = 'streaming'", [
      answerId,
    ]);
  }

  async endStale(before: number, now: number) {
    // Its instance no longer holds it either: a late end of its own is not stored (nor counted) over this one.
    const { rows } = await this.db.query(
      `WITH stale AS (
         SELECT id, counted_session, counted_integration,
           stop_requested OR tool_calls @> '[{"status": "pending"}]'::jsonb AS stop
         FROM messages WHERE status = 'streaming' AND updated_at < $1),
       ended AS (
         UPDATE messages m SET status = CASE WHEN s.stop THEN 'stopped' ELSE 'error' END,
           failure_code = CASE WHEN s.stop THEN NULL ELSE $2 END, failure_message = CASE WHEN s.stop THEN NULL ELSE $3 END,
           failure_reason = CASE WHEN s.stop THEN NULL ELSE $5 END,
           instance_id = NULL, counted_session = NULL, counted_integration = NULL
         FROM stale s WHERE m.id = s.id AND m.status = 'streaming' AND m.updated_at < $1
         RETURNING m.id, m.thread_id, m.status, s.counted_session, s.counted_integration),
       ${ORPHAN_ENDS('$4::bigint')}`,
      [before, LOST_ANSWER.code, LOST_ANSWER.message, now, LOST_ANSWER.reason],
    );
    return rows.map(toEndedOrphan);
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

  async findAsk({ projectId, scope, key }: Omit<AskKey, 'fingerprint'>, since: number) {
    const { rows } = await this.db.query(
      `SELECT fingerprint, thread_id, answer_id, created_at FROM idempotency_keys
       WHERE project_id = $1 AND scope = $2 AND key = $3 AND created_at >= $4`,
      [projectId, scope, key, since],
    );
    const row = rows[0];
    return row
      ? {
          fingerprint: row.fingerprint as string,
          threadId: row.thread_id as string,
          answerId: row.answer_id as string,
          createdAt: num(row.created_at),
        }
      : undefined;
  }

  async purgeAsks(before: number) {
    return (await this.db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [before])).rowCount;
  }
}
