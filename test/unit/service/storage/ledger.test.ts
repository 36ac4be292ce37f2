/** The answer ledger on every engine: begins, saves, ends and resumes of answers, their slots; and its batches on SQL. */
import { describe, expect, it } from 'vitest';
import type { ActivityEvent, AnswerStart, MessageRecord, Stores } from '../../../../service/storage/types.js';
import { openSqlStores } from '../../../../service/storage/sql/index.js';
import { postgresClient } from '../../../../service/storage/postgres.js';
import type { SqlClient } from '../../../../service/storage/sql-client.js';
import { T0, answerOf, message, messageRecord, thread } from '../../../fixtures/records.js';
import { makeService } from '../../../fixtures/service.js';
import { freshPostgresSchema, isBegin, sqlBatchSuite, storageSuite } from '../../../fixtures/storages.js';

const messageAs = (id: string, role: 'user' | 'assistant', at = T0): MessageRecord =>
  messageRecord({
    id,
    role,
    content: role === 'user' ? `question ${id}` : '',
    createdAt: at,
    status: role === 'user' ? 'complete' : 'streaming',
  });

const event = (kind: 'thread' | 'message', owner: string): ActivityEvent => ({
  kind,
  projectId: 'p',
  at: T0,
  sessionToken: `token ${owner}`,
  owner,
  integrationId: 'i',
});

/** A question `n` on a new thread `t<n>` (or on `on`), with its events and, with `key`, a slot. */
function start(
  n: string,
  { on, key, cap = 1, at = T0 }: { on?: string; key?: string; cap?: number; at?: number } = {},
): AnswerStart {
  return {
    thread: thread(on ?? `t${n}`, `owner ${n}`),
    newThread: !on,
    question: messageAs(`q${n}`, 'user', at),
    answer: messageAs(`a${n}`, 'assistant', at),
    instanceId: 'inst_a',
    events: on
      ? [event('message', `owner ${n}`)]
      : [event('thread', `owner ${n}`), event('message', `owner ${n}`)],
    ...(key && { slot: { key, cap } }),
  };
}

storageSuite('answer ledger', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  it('begins an answer in one write: a new thread, the question, the answer and their events', async () => {
    await open();
    const events = [
      {
        kind: 'thread' as const,
        projectId: 'p',
        at: T0,
        sessionToken: 'h1',
        owner: 'alice',
        integrationId: 'i',
      },
      {
        kind: 'message' as const,
        projectId: 'p',
        at: T0,
        sessionToken: 'h1',
        owner: 'alice',
        integrationId: 'i',
      },
    ];
    expect(
      await store.ledger.beginAnswer({
        thread: thread('t1'),
        newThread: true,
        question: message('q1'),
        answer: answerOf('a1'),
        instanceId: 'inst_a',
        events,
      }),
    ).toBe('begun');
    const found = await store.conversations.getThread('t1');
    expect(found?.messages.map((m) => [m.id, m.role, m.status])).toEqual([
      ['q1', 'user', 'complete'],
      ['a1', 'assistant', 'streaming'],
    ]);
    expect(await store.ledger.answerHost('a1', 60_000)).toEqual({ instanceId: 'inst_a', alive: false });
    await store.activity.refreshActivity();
    expect((await store.activity.activity('p', 0, 1e9)).reduce((n, r) => n + r.threads + r.messages, 0)).toBe(
      2,
    );
    // On an existing thread only the messages and the message event; on a deleted one nothing.
    const more = {
      thread: thread('t1'),
      newThread: false,
      question: message('q2', T0 + 5),
      answer: answerOf('a2', T0 + 5),
      instanceId: 'inst_a',
      events: [events[1]],
    };
    expect(await store.ledger.beginAnswer(more)).toBe('begun');
    expect((await store.conversations.getThread('t1'))?.updatedAt).toBe(T0 + 5);
    await store.conversations.deleteThread('t1');
    expect(
      await store.ledger.beginAnswer({
        ...more,
        question: message('q3'),
        answer: answerOf('a3'),
        slot: { key: 'k', cap: 1 },
      }),
    ).toBe('thread_gone');
    expect(await store.conversations.getMessage('q3')).toBeUndefined();
    // The slot of an answer that could not begin is free again.
    expect(await store.ledger.takeAnswerSlot('k', 1, 'a4', 'inst_a', T0)).toBe('taken');
  });

  it('begins an answer only with a free concurrent-answer slot, under concurrent starts', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    const starts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.ledger.beginAnswer({
          thread: thread(`n${i}`),
          newThread: true,
          question: message(`q${i}`),
          answer: answerOf(`a${i}`),
          instanceId: 'inst_a',
          events: [],
          slot: { key: 'owner:alice', cap: 2 },
        }),
      ),
    );
    expect(starts.filter((r) => r === 'begun')).toHaveLength(2);
    expect(starts.filter((r) => r === 'cap_reached')).toHaveLength(4);
    // Nothing of a refused start was written.
    const refused = starts.map((r, i) => (r === 'cap_reached' ? i : -1)).filter((i) => i >= 0);
    for (const i of refused) expect(await store.conversations.getThread(`n${i}`)).toBeUndefined();
  });

  it('saves and ends an answer only while its instance generates it', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q1'),
      answer: answerOf('a1'),
      instanceId: 'inst_a',
      events: [],
    });
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q2'),
      answer: answerOf('a2'),
      instanceId: 'inst_a',
      events: [],
    });
    const save = (id: string, content: string) => ({
      id,
      content,
      sources: [],
      activity: [],
      uncertain: false,
      updatedAt: T0 + 1,
    });
    expect(
      await store.ledger.saveAnswers([save('a1', 'one'), save('a2', 'two'), save('missing', 'x')], 'inst_a'),
    ).toEqual(new Set(['a1', 'a2']));
    expect(await store.ledger.saveAnswers([save('a1', 'stolen')], 'inst_b')).toEqual(new Set());
    expect((await store.conversations.getMessage('a1'))?.message.content).toBe('one');
    const end = {
      content: 'one!',
      sources: [],
      activity: [],
      uncertain: false,
      toolCalls: [],
      status: 'complete' as const,
      updatedAt: T0 + 2,
    };
    expect(await store.ledger.endAnswer({ id: 'a1', instanceId: 'inst_b', patch: end, events: [] })).toBe(
      false,
    );
    expect(await store.ledger.endAnswer({ id: 'a1', instanceId: 'inst_a', patch: end, events: [] })).toBe(
      true,
    );
    expect((await store.conversations.getMessage('a1'))?.message).toMatchObject({
      content: 'one!',
      status: 'complete',
    });
    // Ended: no instance holds it, so later saves change nothing.
    expect(await store.ledger.saveAnswers([save('a1', 'late')], 'inst_a')).toEqual(new Set());
    expect(await store.ledger.answerHost('a1', 60_000)).toEqual({ instanceId: null, alive: false });
  });

  it('ends many answers at once, each only for its own instance, with the events of those it stored', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    for (let i = 0; i < 12; i++) {
      await store.ledger.beginAnswer({
        thread: thread('t1'),
        newThread: false,
        question: message(`q${i}`),
        answer: answerOf(`a${i}`),
        instanceId: 'inst_a',
        events: [],
        slot: { key: `k${i}`, cap: 1 },
      });
    }
    const event = {
      kind: 'message' as const,
      projectId: 'p',
      at: T0 + 2,
      sessionToken: 'h1',
      owner: 'alice',
      integrationId: 'i',
    };
    const usage = {
      kind: 'usage' as const,
      projectId: 'p',
      at: T0 + 2,
      sessionToken: 'h1',
      owner: 'alice',
      integrationId: 'i',
      promptTokens: 10,
      completionTokens: 3,
    };
    // Called together, as answers ending in one turn are (a SQL store sends them as one statement);
    // every third from an instance that does not hold the answer.
    const ended = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        store.ledger.endAnswer({
          id: `a${i}`,
          instanceId: i % 3 === 0 ? 'inst_b' : 'inst_a',
          events: [event, usage],
          patch: {
            content: `answer ${i}`,
            sources: [],
            activity: [],
            uncertain: false,
            toolCalls: [],
            status: 'complete',
            updatedAt: T0 + 2,
            usage: { promptTokens: 10, completionTokens: 3 },
          },
        }),
      ),
    );
    expect(ended).toEqual(Array.from({ length: 12 }, (_, i) => i % 3 !== 0));
    const messages = (await store.conversations.getThread('t1'))!.messages.filter(
      (m) => m.role === 'assistant',
    );
    expect(messages.map((m) => [m.content, m.status])).toEqual(
      Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? ['', 'streaming'] : [`answer ${i}`, 'complete'])),
    );
    expect(messages[1].usage).toEqual({ promptTokens: 10, completionTokens: 3 });
    await store.activity.refreshActivity();
    const rows = await store.activity.activity('p', 0, 1e9);
    expect(rows.reduce((n, r) => n + r.messages, 0)).toBe(8);
    expect(rows.reduce((n, r) => n + r.prompt_tokens, 0)).toBe(80);
    // Every slot is free again, those of the answers another instance ended too.
    for (let i = 0; i < 12; i++)
      expect(await store.ledger.takeAnswerSlot(`k${i}`, 1, `b${i}`, 'inst_a', T0)).toBe('taken');
  });

  it('lets exactly one of many callers resume a paused answer', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q1'),
      answer: answerOf('a1'),
      instanceId: 'inst_a',
      events: [],
    });
    const pending = [{ id: 'c1', name: 'open_page', arguments: {}, round: 1, status: 'pending' as const }];
    const pause = {
      content: '',
      sources: [],
      activity: [],
      uncertain: false,
      toolCalls: pending,
      status: 'streaming' as const,
      updatedAt: T0,
    };
    expect(await store.ledger.endAnswer({ id: 'a1', instanceId: 'inst_a', patch: pause, events: [] })).toBe(
      true,
    );
    const done = [{ ...pending[0], status: 'completed' as const, output: 1 }];
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.ledger.resumeAnswer('a1', pending, done, T0 + 1, `inst_${i}`),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await store.conversations.getMessage('a1'))?.message.toolCalls).toEqual(done);
    // Stale expectations (the calls changed) never claim it again.
    expect(await store.ledger.resumeAnswer('a1', pending, done, T0 + 2, 'inst_x')).toBe(false);
  });

  it('holds a cap of concurrent-answer slots per key under concurrent takers, and frees them', async () => {
    await open();
    const taken = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.ledger.takeAnswerSlot('owner:alice', 3, `a${i}`, 'inst_a', T0),
      ),
    );
    expect(taken.filter((t) => t === 'taken')).toHaveLength(3);
    expect(taken.filter((t) => t === 'cap_reached')).toHaveLength(5);
    expect(await store.ledger.takeAnswerSlot('owner:bob', 3, 'b1', 'inst_a', T0)).toBe('taken');
    const holder = taken.indexOf('taken');
    // One answer, one slot: a second taker for it learns it is held.
    expect(await store.ledger.takeAnswerSlot('owner:bob', 3, 'b1', 'inst_a', T0)).toBe('held');
    await store.ledger.releaseAnswerSlot(`a${holder}`);
    expect(await store.ledger.takeAnswerSlot('owner:alice', 3, 'a9', 'inst_a', T0 + 1)).toBe('taken');
    expect(await store.ledger.takeAnswerSlot('owner:alice', 3, 'a10', 'inst_a', T0 + 1)).toBe('cap_reached');
    // Slots an end never freed are purged by age.
    expect(await store.ledger.purgeAnswerSlots(T0 + 1)).toBe(3);
    expect(await store.ledger.takeAnswerSlot('owner:alice', 3, 'a11', 'inst_a', T0 + 2)).toBe('taken');
  });

  it('ends answers a crash left streaming as errors; stopped where a stop was asked or tools are awaited', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    const streaming = (id: string, at: number, extra = {}) =>
      store.conversations.appendMessage(
        't1',
        message(id, at, { role: 'assistant', status: 'streaming', ...extra }),
      );
    await streaming('cut', T0);
    await streaming('asked', T0 + 1);
    await store.ledger.requestStop('asked');
    await streaming('paused', T0 + 2, {
      toolCalls: [{ id: 'c1', name: 'open_page', arguments: {}, round: 1, status: 'pending' as const }],
    });
    await streaming('fresh', T0 + 5000);
    const ended = await store.ledger.endStale(T0 + 1000, T0 + 6000);
    expect(ended.map((e) => `${e.id} ${e.status}`).sort()).toEqual([
      'asked stopped',
      'cut error',
      'paused stopped',
    ]);
    // A cut answer is not a whole one (decision 447): the visitor gets its error and Retry.
    // The cut one says why, for the console (decision 496); the stopped ones failed at nothing.
    expect(
      (await store.conversations.getThread('t1'))?.messages.map((m) => [m.id, m.status, m.failure?.code]),
    ).toEqual([
      ['cut', 'error', 'answer_lost'],
      ['asked', 'stopped', undefined],
      ['paused', 'stopped', undefined],
      ['fresh', 'streaming', undefined],
    ]);
  });
});

/**
 * The SQL engines write the calls that come together as one statement: a call that comes while
 * a batch is in flight joins the next one; alone, a call goes at once. What a batch writes must
 * be what one statement per call wrote.
 */
sqlBatchSuite('answer ledger, batched', ({ open }) => {
  it('answers concurrent chats with fewer begin statements than chats, each question and answer stored whole', async () => {
    const { store, begins, counts } = await open();
    const ctx = makeService({ storage: store, rateLimit: { requests: 10, windowMs: 60_000 } });
    const tokens = await Promise.all(Array.from({ length: 12 }, (_, i) => ctx.session(`owner ${i}`)));
    const countedBefore = counts();
    const chats = await Promise.all(
      tokens.map((token, i) => ctx.chat(token, `How do I theme the widget, ${i}?`)),
    );
    // Each chat is counted against its owner's limit and begins its answer: both shared statements.
    expect(begins()).toBeLessThan(12);
    expect(counts() - countedBefore).toBeLessThan(12);
    for (const [i, chat] of chats.entries()) {
      expect(chat.response.status).toBe(200);
      const found = await store.conversations.getThread(chat.threadId!);
      expect(found?.messages.map((m) => [m.role, m.content, m.status])).toEqual([
        ['user', `How do I theme the widget, ${i}?`, 'complete'],
        ['assistant', chat.text, 'complete'],
      ]);
      expect(chat.text.length).toBeGreaterThan(0);
    }
  });

  it('writes concurrent begins in fewer statements than begins, each question and answer whole', async () => {
    const { store, begins } = await open();
    await store.conversations.createThread(thread('shared'));
    // 20 questions on threads of their own and 4 on one thread, asked together.
    const starts = [
      ...Array.from({ length: 20 }, (_, i) => start(`${i}`, { key: `k${i}` })),
      ...Array.from({ length: 4 }, (_, i) =>
        start(`s${i}`, { on: 'shared', key: `ks${i}`, at: T0 + 10 + i }),
      ),
    ];
    const results = await Promise.all(starts.map((s) => store.ledger.beginAnswer(s)));
    expect(results).toEqual(starts.map(() => 'begun'));
    // The first went alone; the other 23 came while it was in flight and went together.
    expect(begins()).toBe(2);
    for (let i = 0; i < 20; i++) {
      const found = await store.conversations.getThread(`t${i}`);
      expect(found).toMatchObject({ owner: `owner ${i}`, title: `title t${i}`, updatedAt: T0 });
      expect(found?.messages.map((m) => [m.id, m.role, m.content, m.status])).toEqual([
        [`q${i}`, 'user', `question q${i}`, 'complete'],
        [`a${i}`, 'assistant', '', 'streaming'],
      ]);
      expect(await store.ledger.answerHost(`a${i}`, 60_000)).toEqual({ instanceId: 'inst_a', alive: false });
    }
    // One thread, four questions of one batch: every pair, in the order asked; the latest time.
    const shared = await store.conversations.getThread('shared');
    expect(shared?.messages.map((m) => m.id)).toEqual([
      'qs0',
      'as0',
      'qs1',
      'as1',
      'qs2',
      'as2',
      'qs3',
      'as3',
    ]);
    expect(shared?.updatedAt).toBe(T0 + 13);
    await store.activity.refreshActivity();
    const rows = await store.activity.activity('p', 0, 1e9);
    expect(rows.reduce((n, r) => n + r.threads, 0)).toBe(20);
    expect(rows.reduce((n, r) => n + r.messages, 0)).toBe(24);
    // Every answer holds its slot (cap 1): no other answer gets one.
    for (const s of starts)
      expect(await store.ledger.takeAnswerSlot(s.slot!.key, 1, `other ${s.answer.id}`, 'inst_a', T0)).toBe(
        'cap_reached',
      );
  });

  it("hands one key's free slots to the begins of a batch in the order asked, and refuses the rest", async () => {
    const { store, begins } = await open();
    expect(await store.ledger.takeAnswerSlot('alice', 3, 'earlier', 'inst_a', T0)).toBe('taken');
    const starts = [
      start('0', { key: 'bob', cap: 3 }),
      ...Array.from({ length: 5 }, (_, i) => start(`alice${i}`, { key: 'alice', cap: 3 })),
      start('1', { key: 'carol', cap: 3 }),
      start('2'),
    ];
    const results = await Promise.all(starts.map((s) => store.ledger.beginAnswer(s)));
    expect(results).toEqual([
      'begun',
      'begun',
      'begun',
      'cap_reached',
      'cap_reached',
      'cap_reached',
      'begun',
      'begun',
    ]);
    expect(begins()).toBe(2);
    // Nothing of a refused begin was written.
    for (const i of [2, 3, 4]) expect(await store.conversations.getThread(`talice${i}`)).toBeUndefined();
    expect(await store.ledger.takeAnswerSlot('alice', 3, 'later', 'inst_a', T0)).toBe('cap_reached');
  });

  it('a batch that fails is tried again one begin at a time: only the bad begin fails', async () => {
    const { store, begins } = await open();
    await store.conversations.createThread(thread('old'));
    await store.conversations.appendMessage('old', messageAs('taken', 'user'));
    await store.conversations.createThread(thread('deleted'));
    await store.conversations.deleteThread('deleted');
    const starts = [
      start('0', { key: 'k0' }),
      start('1', { key: 'k1' }),
      // Its question's id is taken: the statement it is in fails.
      { ...start('2', { key: 'k2' }), question: messageAs('taken', 'user') },
      start('3', { on: 'deleted', key: 'k3' }),
      start('4', { key: 'k4' }),
    ];
    const results = await Promise.allSettled(starts.map((s) => store.ledger.beginAnswer(s)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([
      'begun',
      'begun',
      'failed',
      'thread_gone',
      'begun',
    ]);
    // The first alone, the failed batch of four, then each of the four alone.
    expect(begins()).toBe(6);
    for (const i of [1, 4])
      expect((await store.conversations.getThread(`t${i}`))?.messages.map((m) => m.id)).toEqual([
        `q${i}`,
        `a${i}`,
      ]);
    expect(await store.conversations.getThread('t2')).toBeUndefined();
    expect(await store.conversations.getMessage('a3')).toBeUndefined();
    // The failed begin and the one whose thread is gone hold no slot; the begun ones do.
    expect(await store.ledger.takeAnswerSlot('k2', 1, 'b2', 'inst_a', T0)).toBe('taken');
    expect(await store.ledger.takeAnswerSlot('k3', 1, 'b3', 'inst_a', T0)).toBe('taken');
    expect(await store.ledger.takeAnswerSlot('k4', 1, 'b4', 'inst_a', T0)).toBe('cap_reached');
  });
});

/** Resolves once a statement of another connection that contains `sql` waits on a lock. */
async function lockWaitOn(other: { query: SqlClient['query'] }, sql: string): Promise<void> {
  for (;;) {
    const { rows } = await other.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND pid <> pg_backend_pid()",
      [`%${sql}%`],
    );
    if (Number(rows[0].n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Another instance takes the slot number a batch chose, between the batch's snapshot and its
 * insert: the begin is tried again and gets the next free number, rather than being refused.
 * Needs a second connection holding the number uncommitted, so PostgreSQL only.
 */
describe.each(process.env.DATABASE_URL ? ['postgresql'] : [])(
  'answer begins racing another instance on %s',
  { timeout: 30_000 },
  () => {
    it('tries a begin again when another statement takes its slot number first', async () => {
      const url = await freshPostgresSchema();
      const db = await postgresClient(url);
      const other = await postgresClient(url);
      let statements = 0;
      const store = await openSqlStores({
        ...db,
        query: (sql, params) => {
          if (isBegin(sql)) statements += 1;
          return db.query(sql, params);
        },
      });
      try {
        let release: () => void = () => {};
        let inserted: () => void = () => {};
        const released = new Promise<void>((resolve) => (release = resolve));
        const held = new Promise<void>((resolve) => (inserted = resolve));
        // Slot 1 of `alice`, inserted and held uncommitted until the begin waits on it.
        const holding = other.transaction(async (query) => {
          await query(
            "INSERT INTO answer_slots (key, slot, answer_id, instance_id, taken_at) VALUES ('alice', 1, 'elsewhere', 'inst_b', 0)",
          );
          inserted();
          await released;
        });
        await held;
        // The first goes alone; the other two wait for it and go together.
        const begun = Promise.all(
          [
            start('0', { key: 'bob' }),
            start('1', { key: 'alice', cap: 2 }),
            start('2', { key: 'carol' }),
          ].map((s) => store.ledger.beginAnswer(s)),
        );
        await lockWaitOn(other, 'INSERT INTO answer_slots');
        release();
        await holding;
        expect(await begun).toEqual(['begun', 'begun', 'begun']);
        // The first, the batch, and the one that lost its number to the other statement, again alone.
        expect(statements).toBe(3);
        const { rows } = await other.query(
          "SELECT answer_id, slot FROM answer_slots WHERE key = 'alice' ORDER BY slot",
        );
        expect(rows).toEqual([
          { answer_id: 'elsewhere', slot: 1 },
          { answer_id: 'a1', slot: 2 },
        ]);
      } finally {
        await store.close();
        await other.close();
      }
    });
  },
);

/** Question `n` with an Idempotency-Key `key` of `scope` (decision 453). */
const keyed = (n: string, key: string, extra: { on?: string; at?: number; scope?: string } = {}) => ({
  ...start(n, { key: `slots ${n}`, ...extra }),
  ask: { projectId: 'p', scope: extra.scope ?? 'alice', key, fingerprint: `print ${key}` },
});

storageSuite('answer ledger: Idempotency-Keys', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());
  const since = T0 - 24 * 3_600_000;

  it('begins one question per key and scope: the second begin writes nothing and frees its slot', async () => {
    await open();
    expect(await store.ledger.beginAnswer(keyed('1', 'key-one'))).toBe('begun');
    const again = { ...keyed('2', 'key-one'), slot: { key: 'slots 1b', cap: 1 } };
    expect(await store.ledger.beginAnswer(again)).toBe('asked');
    expect(await store.conversations.getThread('t2')).toBeUndefined();
    expect(await store.conversations.getMessage('q2')).toBeUndefined();
    expect(await store.ledger.takeAnswerSlot('slots 1b', 1, 'other', 'inst_a', T0)).toBe('taken');
    expect(await store.ledger.findAsk({ projectId: 'p', scope: 'alice', key: 'key-one' }, since)).toEqual({
      fingerprint: 'print key-one',
      threadId: 't1',
      answerId: 'a1',
      createdAt: T0,
    });
    // Another scope (another owner, or the owner-less '') or project has keys of its own.
    expect(await store.ledger.beginAnswer(keyed('3', 'key-one', { scope: 'bob' }))).toBe('begun');
    expect(await store.ledger.beginAnswer(keyed('4', 'key-one', { scope: '' }))).toBe('begun');
    expect(
      await store.ledger.findAsk({ projectId: 'q', scope: 'alice', key: 'key-one' }, since),
    ).toBeUndefined();
  });

  it('forgets a key after its window, or with its thread, and then begins the question anew', async () => {
    await open();
    const day = 24 * 3_600_000;
    expect(await store.ledger.beginAnswer(keyed('1', 'key-old'))).toBe('begun');
    expect(await store.ledger.beginAnswer(keyed('2', 'key-old', { at: T0 + day - 1 }))).toBe('asked');
    const later = T0 + day + 1;
    expect(
      await store.ledger.findAsk({ projectId: 'p', scope: 'alice', key: 'key-old' }, later - day),
    ).toBeUndefined();
    expect(await store.ledger.beginAnswer(keyed('3', 'key-old', { at: later }))).toBe('begun');
    expect(
      (await store.ledger.findAsk({ projectId: 'p', scope: 'alice', key: 'key-old' }, later - day))?.answerId,
    ).toBe('a3');
    // The purge drops what the window forgot; a thread's delete takes its keys.
    expect(await store.ledger.beginAnswer(keyed('4', 'key-kept'))).toBe('begun');
    expect(await store.ledger.purgeAsks(later - day)).toBe(1);
    expect(await store.conversations.deleteThread('t3')).toBe(true);
    expect(await store.ledger.findAsk({ projectId: 'p', scope: 'alice', key: 'key-old' }, 0)).toBeUndefined();
    expect(await store.ledger.beginAnswer(keyed('5', 'key-old', { at: later }))).toBe('begun');
  });

  it('keeps no key for a begin whose thread is gone', async () => {
    await open();
    expect(await store.ledger.beginAnswer(keyed('1', 'key-gone', { on: 'nowhere' }))).toBe('thread_gone');
    expect(
      await store.ledger.findAsk({ projectId: 'p', scope: 'alice', key: 'key-gone' }, 0),
    ).toBeUndefined();
    expect(await store.ledger.beginAnswer(keyed('2', 'key-gone'))).toBe('begun');
  });

  it('begins one of many begins with one key that come together', async () => {
    await open();
    await store.conversations.createThread(thread('shared'));
    const results = await Promise.all([
      store.ledger.beginAnswer(keyed('0', 'key-other')),
      ...Array.from({ length: 4 }, (_, i) =>
        store.ledger.beginAnswer(keyed(`${i + 1}`, 'key-same', { on: 'shared' })),
      ),
      store.ledger.beginAnswer(keyed('5', 'key-last')),
    ]);
    expect(results.filter((r) => r === 'begun')).toHaveLength(3);
    expect(results.slice(1, 5).sort()).toEqual(['asked', 'asked', 'asked', 'begun']);
    const shared = await store.conversations.getThread('shared');
    expect(shared?.messages).toHaveLength(2);
    const ask = await store.ledger.findAsk({ projectId: 'p', scope: 'alice', key: 'key-same' }, 0);
    expect(shared?.messages[1].id).toBe(ask?.answerId);
  });
});

/**
 * Two instances take one key at the same moment: the database's unique key makes one answer.
 * The other instance's insert is held uncommitted until the begin waits on it, which a
 * read-then-write would not have seen. PostgreSQL only (a second connection).
 */
describe.each(process.env.DATABASE_URL ? ['postgresql'] : [])(
  'a begin racing another instance for its Idempotency-Key on %s',
  { timeout: 30_000 },
  () => {
    for (const outcome of ['commit', 'rollback'] as const)
      it(`waits for the other instance's key, then ${outcome === 'commit' ? 'begins nothing' : 'begins'}`, async () => {
        const url = await freshPostgresSchema();
        const store = await openSqlStores(await postgresClient(url));
        const other = await postgresClient(url);
        try {
          let release: () => void = () => {};
          let inserted: () => void = () => {};
          const released = new Promise<void>((resolve) => (release = resolve));
          const held = new Promise<void>((resolve) => (inserted = resolve));
          const holding = other
            .transaction(async (query) => {
              await query(
                `INSERT INTO idempotency_keys (project_id, scope, key, fingerprint, thread_id, answer_id, created_at)
                 VALUES ('p', 'alice', 'key-raced', 'print key-raced', 'elsewhere', 'a-elsewhere', ${T0})`,
              );
              inserted();
              await released;
              if (outcome === 'rollback') throw new Error('rolled back');
            })
            .catch(() => {});
          await held;
          const begun = store.ledger.beginAnswer(keyed('1', 'key-raced'));
          await lockWaitOn(other, 'INSERT INTO idempotency_keys');
          release();
          await holding;
          expect(await begun).toBe(outcome === 'commit' ? 'asked' : 'begun');
          expect(Boolean(await store.conversations.getThread('t1'))).toBe(outcome === 'rollback');
        } finally {
          await store.close();
          await other.close();
        }
      });
  },
);
