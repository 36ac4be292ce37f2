/**
 * The statements that begin answers: the question, the empty answer, their thread and events
 * and a concurrent-answer slot, written whole or not at all. One begin alone has a statement of
 * its own; begins that come together share one (the ledger batches them).
 */
import { IDEMPOTENCY_WINDOW_MS } from '../../../contract/limits.js';
import type { SqlClient } from '../sql-client.js';
import type { AnswerStart, BeginResult } from '../types.js';
import { eventColumns, json, num } from './rows.js';

/**
 * The key's row, unless its scope holds it from within the window: the unique key decides
 * between two requests that carry it at once (the second waits for the first to commit, then
 * finds the key taken), and a key older than the window is taken over.
 */
const ASK_CONFLICT = `ON CONFLICT (project_id, scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
  thread_id = EXCLUDED.thread_id, answer_id = EXCLUDED.answer_id, created_at = EXCLUDED.created_at
  WHERE idempotency_keys.created_at < EXCLUDED.created_at - ${IDEMPOTENCY_WINDOW_MS}`;

/** Forgets the keys of begins whose thread is gone (their rows name an answer that never was). */
const forgetKeys = (db: SqlClient, threadIds: string[]) =>
  db.query('DELETE FROM idempotency_keys WHERE thread_id = ANY($1::text[])', [threadIds]);

/** One begin's statement: its text and parameters. */
function beginOneStatement({
  thread: t,
  newThread,
  question: q,
  answer: a,
  instanceId,
  events,
  slot,
  ask,
}: AnswerStart) {
  // A concurrent-answer slot (numbered 1..cap under a unique key, so the cap holds without a
  // lock), then, only with one, the question's Idempotency-Key (when it has one and its scope
  // does not hold it), then, only with that, the thread row (inserted, or its updated_at moved, which locks
  // it against a concurrent delete), both messages in order (the answer with its question's session
  // and integration while it generates, decision 512) and the activity events; nothing when the thread is gone.
  const params: unknown[] = [];
  const $ = (value: unknown) => `$${params.push(value)}`;
  const slotSql = slot
    ? `INSERT INTO answer_slots (key, slot, answer_id, instance_id, taken_at)
       SELECT ${$(slot.key)}::text, s, ${$(a.id)}::text, ${$(instanceId)}::text, ${$(a.createdAt)}::bigint FROM generate_series(1, ${$(slot.cap)}::int) AS s
       WHERE NOT EXISTS (SELECT 1 FROM answer_slots x WHERE x.key = $1 AND x.slot = s)
       ORDER BY s LIMIT 1 ON CONFLICT DO NOTHING RETURNING 1`
    : 'SELECT 1';
  const askSql = ask
    ? `INSERT INTO idempotency_keys (project_id, scope, key, fingerprint, thread_id, answer_id, created_at)
       SELECT ${$(ask.projectId)}::text, ${$(ask.scope)}::text, ${$(ask.key)}::text, ${$(ask.fingerprint)}::text, ${$(t.id)}::text, ${$(a.id)}::text, ${$(a.createdAt)}::bigint
       WHERE EXISTS (SELECT 1 FROM slot) ${ASK_CONFLICT} RETURNING 1`
    : 'SELECT 1 FROM slot';
  const threadSql = newThread
    ? `INSERT INTO threads (id, project_id, integration_id, owner, title, created_at, updated_at)
       SELECT ${$(t.id)}, ${$(t.projectId)}, ${$(t.integrationId)}, ${$(t.owner)}, ${$(t.title)}, ${$(t.createdAt)}::bigint, ${$(q.createdAt)}::bigint
       WHERE EXISTS (SELECT 1 FROM asked) RETURNING id`
    : `UPDATE threads SET updated_at = greatest(updated_at, ${$(q.createdAt)}::bigint) WHERE id = ${$(t.id)} AND EXISTS (SELECT 1 FROM asked) RETURNING id`;
  const first = events[0];
  // The question's files (§11) go to its thread, so that they are deleted with it: only files
  // no question has taken yet (the chat route checked that; a race with another question loses here).
  const files = q.attachments ?? [];
  const filesSql = files.length
    ? `claimed AS (UPDATE files SET thread_id = thread.id FROM thread
         WHERE files.id = ANY(${$(files.map((f) => f.id))}::text[]) AND files.thread_id IS NULL),`
    : '';
  const [session, integration] = [$(first?.sessionToken ?? null), $(first?.integrationId ?? null)];
  const sql = `WITH slot AS (${slotSql}),
     asked AS (${askSql}),
     thread AS (${threadSql}),
     ${filesSql}
     inserted AS (
       INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain, instance_id, attachments, counted_session, counted_integration)
       SELECT m.id, thread.id, m.role, m.content, '[]'::jsonb, m.at, m.at, m.status, '[]'::jsonb, '[]'::jsonb, false, m.instance_id, m.attachments, m.session, m.integration
       FROM thread, (VALUES (1, ${$(q.id)}::text, 'user', ${$(q.content)}::text, 'complete', ${$(q.createdAt)}::bigint, NULL::text, ${$(json(files))}::jsonb, NULL::text, NULL::text),
                            (2, ${$(a.id)}::text, 'assistant', '', 'streaming', ${$(a.createdAt)}::bigint, ${$(instanceId)}::text, '[]'::jsonb, ${session}::text, ${integration}::text))
         AS m(n, id, role, content, status, at, instance_id, attachments, session, integration)
       ORDER BY m.n RETURNING 1),
     counted AS (
       INSERT INTO events (kind, project_id, at, session_token, owner, integration_id)
       SELECT e.kind, ${$(t.projectId)}, e.at, coalesce(${session}::text, ''), ${$(first?.owner ?? null)}::text, ${integration}::text
       FROM thread, unnest(${$(events.map((e) => e.kind))}::text[], ${$(events.map((e) => e.at))}::bigint[]) AS e(kind, at))
     SELECT (SELECT count(*) FROM slot)::int AS slot, (SELECT count(*) FROM asked)::int AS asked, (SELECT count(*) FROM thread)::int AS thread`;
  return { sql, params };
}

/**
 * A begin alone, in the statement written for one: half the batch statement's cost for one
 * begin on PGlite (1.5 against 3.1 ms: it plans every statement), where a begin is nearly
 * always alone (the database runs on the main thread, so the next question's begin comes
 * after this one is written). Also where a batch's begin lost its slot number to another
 * instance: tried again here, a bounded number of times.
 */
export async function beginOne(db: SqlClient, start: AnswerStart): Promise<BeginResult> {
  const { sql, params } = beginOneStatement(start);
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await db.query(sql, params);
    if (num(rows[0].thread) > 0) return 'begun';
    if (num(rows[0].slot) > 0) {
      // The slot was taken for an answer whose key was taken, or whose thread is gone.
      await db.query('DELETE FROM answer_slots WHERE answer_id = $1', [start.answer.id]);
      if (num(rows[0].asked) === 0) return 'asked';
      if (start.ask) await forgetKeys(db, [start.thread.id]);
      return 'thread_gone';
    }
    // No slot: all taken, or a concurrent taker won the same number (then try again).
    const taken = await db.query('SELECT count(*)::int AS n FROM answer_slots WHERE key = $1', [
      start.slot!.key,
    ]);
    if (num(taken.rows[0].n) >= start.slot!.cap) return 'cap_reached';
  }
  return 'cap_reached';
}

/**
 * Many begins in one statement. For each, a concurrent-answer slot: the free numbers of its key
 * (1..cap, under a unique key, so the cap holds without a lock) handed out in order to the
 * begins of that key; then, only with one, the thread row (inserted, or its updated_at moved,
 * which locks it against a concurrent delete), both messages in order and the activity events;
 * nothing when the thread is gone.
 */
const BEGIN_MANY = `WITH v AS (
     SELECT * FROM unnest($1::int[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
       $9::text[], $10::text[], $11::bigint[], $12::text[], $13::bigint[], $14::text[], $15::text[], $16::int[],
       $24::text[], $25::text[], $26::text[])
       AS v(n, thread_id, new_thread, project_id, integration_id, owner, title, thread_created_at,
         q_id, q_content, q_at, a_id, a_at, instance_id, slot_key, slot_cap, ask_scope, ask_key, ask_print)),
   wanted AS (SELECT v.*, row_number() OVER (PARTITION BY v.slot_key ORDER BY v.n) AS k FROM v WHERE v.slot_key IS NOT NULL),
   free AS (
     SELECT c.key, s, row_number() OVER (PARTITION BY c.key ORDER BY s) AS k
     FROM (SELECT slot_key AS key, max(slot_cap) AS cap FROM v WHERE slot_key IS NOT NULL GROUP BY slot_key) c, generate_series(1, c.cap) AS s
     WHERE NOT EXISTS (SELECT 1 FROM answer_slots x WHERE x.key = c.key AND x.slot = s)),
   slot AS (
     INSERT INTO answer_slots (key, slot, answer_id, instance_id, taken_at)
     SELECT w.slot_key, f.s, w.a_id, w.instance_id, w.a_at FROM wanted w JOIN free f ON f.key = w.slot_key AND f.k = w.k
     ORDER BY w.n ON CONFLICT DO NOTHING RETURNING answer_id),
   slotted AS (SELECT v.* FROM v WHERE v.slot_key IS NULL OR v.a_id IN (SELECT answer_id FROM slot)),
   asked AS (
     INSERT INTO idempotency_keys (project_id, scope, key, fingerprint, thread_id, answer_id, created_at)
     SELECT project_id, ask_scope, ask_key, ask_print, thread_id, a_id, a_at FROM slotted WHERE ask_key IS NOT NULL
     ORDER BY n ${ASK_CONFLICT} RETURNING answer_id),
   ok AS (SELECT * FROM slotted WHERE ask_key IS NULL OR a_id IN (SELECT answer_id FROM asked)),
   created AS (
     INSERT INTO threads (id, project_id, integration_id, owner, title, created_at, updated_at)
     SELECT thread_id, project_id, integration_id, owner, title, thread_created_at, q_at FROM ok WHERE new_thread ORDER BY n RETURNING id),
   moved AS (
     UPDATE threads t SET updated_at = greatest(t.updated_at, u.at)
     FROM (SELECT thread_id, max(q_at) AS at FROM ok WHERE NOT new_thread GROUP BY thread_id) u WHERE t.id = u.thread_id RETURNING t.id),
   begun AS (SELECT ok.* FROM ok WHERE ok.thread_id IN (SELECT id FROM created UNION ALL SELECT id FROM moved)),
   inserted AS (
     INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain, instance_id, counted_session, counted_integration)
     SELECT m.id, b.thread_id, m.role, m.content, '[]'::jsonb, m.at, m.at, m.status, '[]'::jsonb, '[]'::jsonb, false, m.instance_id, m.session, m.integration
     FROM begun b, LATERAL (VALUES (1, b.q_id, 'user', b.q_content, 'complete', b.q_at, NULL::text, NULL::text, NULL::text),
                                   (2, b.a_id, 'assistant', '', 'streaming', b.a_at, b.instance_id, ($27::text[])[b.n + 1], ($28::text[])[b.n + 1]))
       AS m(k, id, role, content, status, at, instance_id, session, integration)
     ORDER BY b.n, m.k),
   counted AS (
     INSERT INTO events (kind, project_id, at, session_token, owner, integration_id)
     SELECT e.kind, e.project_id, e.at, e.session_token, e.owner, e.integration_id
     FROM unnest($17::int[], $18::text[], $19::text[], $20::bigint[], $21::text[], $22::text[], $23::text[])
       AS e(n, kind, project_id, at, session_token, owner, integration_id)
     WHERE e.n IN (SELECT n FROM begun))
   -- Joins, not a subquery per row: those rescan the CTE for each begin (a second at 500 begins).
   SELECT v.n, s.answer_id IS NOT NULL AS slot, b.n IS NOT NULL AS begun, coalesce(f.free, 0)::int AS free, w.k::int AS k,
     v.ask_key IS NOT NULL AND k.answer_id IS NULL AS key_taken
   FROM v LEFT JOIN slot s ON s.answer_id = v.a_id LEFT JOIN begun b ON b.n = v.n LEFT JOIN wanted w ON w.n = v.n
     LEFT JOIN asked k ON k.answer_id = v.a_id
     LEFT JOIN (SELECT key, count(*) AS free FROM free GROUP BY key) f ON f.key = v.slot_key
   ORDER BY v.n`;

/** BEGIN_MANY's parameters: one array per column of the begins, then of their events. */
function beginManyParams(starts: AnswerStart[]): unknown[] {
  const events = starts.flatMap((s, n) => s.events.map((e) => ({ n, e })));
  return [
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
    ...eventColumns(events.map((x) => x.e)),
    starts.map((s) => s.ask?.scope ?? null),
    starts.map((s) => s.ask?.key ?? null),
    starts.map((s) => s.ask?.fingerprint ?? null),
    // What each answer counts under while it generates (decision 512): its question's session and
    // integration, read by index rather than as columns of `v`, so the statement's text up to its
    // slot insert stays within the 1,024 characters pg_stat_activity shows (a test waits on it there).
    starts.map((s) => s.events[0]?.sessionToken ?? null),
    starts.map((s) => s.events[0]?.integrationId ?? null),
  ];
}

/**
 * Many begins in one statement (BEGIN_MANY). `retry`: the slot number was taken meanwhile by
 * another statement, though free ones were left.
 */
export async function beginMany(db: SqlClient, starts: AnswerStart[]): Promise<(BeginResult | 'retry')[]> {
  const { rows } = await db.query(BEGIN_MANY, beginManyParams(starts));
  const results = rows.map((row): BeginResult | 'retry' => {
    if (row.begun === true) return 'begun';
    // With its slot (or none needed), a begin fails on its key, else on its thread.
    if (row.slot === true || row.k === null) return row.key_taken === true ? 'asked' : 'thread_gone';
    // No slot: every free number went to begins of its key before this one, or another statement took it.
    return num(row.free) < num(row.k) ? 'cap_reached' : 'retry';
  });
  // The slots taken for answers whose thread is gone.
  const gone = rows
    .filter((row) => row.slot === true && row.begun !== true)
    .map((row) => starts[num(row.n)].answer.id);
  if (gone.length) await db.query('DELETE FROM answer_slots WHERE answer_id = ANY($1::text[])', [gone]);
  const keysGone = starts.filter((s, n) => s.ask && results[n] === 'thread_gone').map((s) => s.thread.id);
  if (keysGone.length) await forgetKeys(db, keysGone);
  return results;
}
