import { messageRecord } from '../../fixtures/records.js';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  ActivityEvent,
  AnswerStart,
  MessageRecord,
  ThreadMeta,
} from '../../../service/storage/types.js';
import type { Stores } from '../../../service/storage/types.js';
import { openSqlStores, type SqlClient } from '../../../service/storage/sql/index.js';
import { postgresClient } from '../../../service/storage/postgres.js';
import { makeService } from '../../fixtures/service.js';
import { type SqlBackend, freshPostgresSchema, sqlBackends } from '../../fixtures/storages.js';

/**
 * The SQL store writes the begins of answers that come together as one statement, as it does
 * their ends: a call that comes while a batch is in flight joins the next one; alone, a begin
 * goes at once. What the batch writes must be what one statement per begin wrote.
 */
const T0 = Date.UTC(2026, 10, 26, 9);

const thread = (id: string, owner = 'alice'): ThreadMeta => ({
  id,
  projectId: 'p',
  integrationId: 'i',
  owner,
  title: `title ${id}`,
  createdAt: T0,
  updatedAt: T0,
});

const message = (id: string, role: 'user' | 'assistant', at = T0): MessageRecord =>
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
    question: message(`q${n}`, 'user', at),
    answer: message(`a${n}`, 'assistant', at),
    instanceId: 'inst_a',
    events: on
      ? [event('message', `owner ${n}`)]
      : [event('thread', `owner ${n}`), event('message', `owner ${n}`)],
    ...(key && { slot: { key, cap } }),
  };
}

/** The statements that begin answers: a slot, then the messages. */
const isBegin = (sql: string) =>
  sql.includes('INSERT INTO answer_slots') && sql.includes('INSERT INTO messages');

describe.each(sqlBackends())('answer begins batched on $name', { timeout: 30_000 }, (backend: SqlBackend) => {
  let store: Stores | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  /** A store whose statements are counted as they are sent. */
  async function open() {
    const db = await backend.client();
    const sent: string[] = [];
    const counted: SqlClient = {
      ...db,
      query: (sql, params) => {
        sent.push(sql);
        return db.query(sql, params);
      },
    };
    store = await openSqlStores(counted);
    return {
      store,
      begins: () => sent.filter(isBegin).length,
      counts: () => sent.filter((sql) => sql.includes('INSERT INTO rate_windows')).length,
    };
  }

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

  it('counts concurrent requests in fewer statements than requests, each its own count in the order asked', async () => {
    const { store, counts } = await open();
    const keys = ['a', 'a', 'b', 'a', 'b', 'a', 'c', 'a'];
    const results = await Promise.all(keys.map((key) => store.rates.countRequest(key, 60_000, T0)));
    expect(results.map((r) => r.count)).toEqual([1, 2, 1, 3, 2, 4, 1, 5]);
    expect(results.map((r) => r.resetAt)).toEqual(keys.map(() => T0 + 60_000));
    // The first went alone, the other seven together.
    expect(counts()).toBe(2);
    // Within the window the counts go on; past it, a batch starts a new window at 1.
    expect(
      (await Promise.all(['a', 'b'].map((key) => store.rates.countRequest(key, 60_000, T0 + 1)))).map(
        (r) => r.count,
      ),
    ).toEqual([6, 3]);
    const later = await Promise.all(
      ['a', 'b', 'a'].map((key) => store.rates.countRequest(key, 60_000, T0 + 60_000)),
    );
    expect(later).toEqual([
      { count: 1, resetAt: T0 + 120_000 },
      { count: 1, resetAt: T0 + 120_000 },
      { count: 2, resetAt: T0 + 120_000 },
    ]);
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
    await store.conversations.appendMessage('old', message('taken', 'user'));
    await store.conversations.createThread(thread('deleted'));
    await store.conversations.deleteThread('deleted');
    const starts = [
      start('0', { key: 'k0' }),
      start('1', { key: 'k1' }),
      // Its question's id is taken: the statement it is in fails.
      { ...start('2', { key: 'k2' }), question: message('taken', 'user') },
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
        for (;;) {
          const { rows } = await other.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO answer_slots%' AND pid <> pg_backend_pid()",
          );
          if (Number(rows[0].n) > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
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
