/** The fleet on every engine: leases, reaping, signals; and two service instances on one database. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAgentService,
  ManualClock,
  memoryStores,
  type AgentService,
  type AgentServiceOptions,
  type Stores,
} from '../../../../service/index.js';
import { eraseOwnerCommand } from '../../../../service/erase-cli.js';
import { LOST_ANSWER } from '../../../../service/storage/records.js';
import { openStorage } from '../../../../service/storage/open.js';
import { DAY, T0, answerOf, message, thread } from '../../../fixtures/records.js';
import {
  AGENT,
  PROJECT,
  QUERY,
  allRecords,
  readRecords,
  scriptedAgent,
  sessionsEndedHeard,
  signalHeard,
} from '../../../fixtures/service.js';
import { CONSOLE, addAdmin, consoleClient } from '../../../fixtures/console.js';
import { freshPostgresSchema, storageSuite } from '../../../fixtures/storages.js';

storageSuite('fleet', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  it('ends the streaming answers of instances whose lease ran out, and frees their slots', async () => {
    // Long enough that a loaded machine's slow statements do not age the live instance past it.
    const LEASE_MS = 1_000;
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.fleet.heartbeat('inst_dead');
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q1'),
      answer: answerOf('a1'),
      instanceId: 'inst_dead',
      events: [],
    });
    expect(await store.ledger.takeAnswerSlot('owner:alice', 1, 'a1', 'inst_dead', T0)).toBe('taken');
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 100));
    await store.fleet.heartbeat('inst_live');
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q2'),
      answer: answerOf('a2'),
      instanceId: 'inst_live',
      events: [],
    });
    // A live instance renews its lease every third of it: this one renews before each check
    // that counts on it, so slow statements (a cold PGlite, a loaded machine) never age it past
    // the lease while the dead one stays unseen for longer than it.
    await store.fleet.heartbeat('inst_live');
    // The live one is checked first, right after its renewal: a cold first statement of another
    // shape in between could take longer than the lease on a loaded machine.
    expect(await store.ledger.answerHost('a2', LEASE_MS)).toEqual({ instanceId: 'inst_live', alive: true });
    expect(await store.ledger.answerHost('a1', LEASE_MS)).toEqual({ instanceId: 'inst_dead', alive: false });
    await store.fleet.heartbeat('inst_live');
    expect(await store.fleet.reapInstances(LEASE_MS, T0 + 9)).toEqual([
      { id: 'a1', threadId: 't1', projectId: 'p', status: 'error' },
    ]);
    expect((await store.conversations.getMessage('a1'))?.message).toMatchObject({
      status: 'error',
      updatedAt: T0 + 9,
      failure: LOST_ANSWER,
    });
    expect((await store.conversations.getMessage('a2'))?.message.status).toBe('streaming');
    expect(await store.ledger.takeAnswerSlot('owner:alice', 1, 'a3', 'inst_live', T0)).toBe('taken');
    await store.fleet.heartbeat('inst_live');
    expect(await store.fleet.reapInstances(LEASE_MS, T0 + 10)).toEqual([]);
    // A live host's answer is not an orphan; once it is gone, it is.
    await store.fleet.heartbeat('inst_live');
    expect(await store.ledger.endOrphan('a2', 'error', T0 + 11, LEASE_MS)).toBeNull();
    await store.fleet.retireInstance('inst_live');
    expect(await store.ledger.endOrphan('a2', 'error', T0 + 11, LEASE_MS)).toEqual({
      id: 'a2',
      threadId: 't1',
      projectId: 'p',
      status: 'error',
    });
    expect((await store.conversations.getMessage('a2'))?.message).toMatchObject({
      status: 'error',
      failure: LOST_ANSWER,
    });
  });

  it("counts an answer ended as lost once, under its question's session and integration, whoever ends it and however many at once", async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    // What the chat route passes: the question's activity (here through another integration than the thread's).
    const asked = (id: string, events = true) =>
      store.ledger.beginAnswer({
        thread: thread('t1'),
        newThread: false,
        question: message(`q_${id}`),
        answer: answerOf(id),
        instanceId: 'inst_gone',
        events: events
          ? [
              {
                kind: 'message',
                projectId: 'p',
                at: T0,
                sessionToken: 'hash_s1',
                owner: 'alice',
                integrationId: 'web2',
              },
            ]
          : [],
      });
    // At once: SQL writes the first alone and the other two in one statement (a batch). The first
    // is an answer begun without its session (an older version's): ended, not counted.
    await Promise.all([asked('older', false), asked('lost'), asked('asked_to_stop')]);
    await store.ledger.requestStop('asked_to_stop');
    // No instance holds a lease: the reapers, a reattach and a relay all end the same answers at once.
    const ends = await Promise.all([
      store.fleet.reapInstances(60_000, T0 + DAY),
      store.fleet.reapInstances(60_000, T0 + DAY),
      store.ledger.endOrphan('lost', 'error', T0 + DAY, 60_000).then((e) => (e ? [e] : [])),
      store.ledger.endOrphan('lost', 'error', T0 + DAY, 60_000).then((e) => (e ? [e] : [])),
    ]);
    expect(
      ends
        .flat()
        .map((e) => `${e.id} ${e.status}`)
        .sort(),
    ).toEqual(['asked_to_stop stopped', 'lost error', 'older error']);
    // Nothing is left to end, and nothing more is counted.
    expect(await store.ledger.endStale(Number.MAX_SAFE_INTEGER, T0 + DAY)).toEqual([]);
    await store.activity.refreshActivity();
    const day = Math.floor((T0 + DAY) / DAY);
    const rows = await store.activity.activity('p', day - 1, day + 1);
    expect(rows.filter((r) => r.failed_answers > 0)).toEqual([
      expect.objectContaining({
        day,
        sessionToken: 'hash_s1',
        owner: 'alice',
        integrationId: 'web2',
        failed_answers: 1,
      }),
    ]);
  });

  it('counts an answer the maintenance ends as lost, at the time it ends it', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q1'),
      answer: answerOf('a1'),
      instanceId: 'inst_gone',
      events: [
        {
          kind: 'message',
          projectId: 'p',
          at: T0,
          sessionToken: 'hash_s1',
          owner: 'alice',
          integrationId: 'i',
        },
      ],
    });
    expect(await store.ledger.endStale(T0 + 1, T0 + 2 * DAY)).toEqual([
      { id: 'a1', threadId: 't1', projectId: 'p', status: 'error' },
    ]);
    await store.activity.refreshActivity();
    const day = Math.floor((T0 + 2 * DAY) / DAY);
    expect((await store.activity.activity('p', day - 2, day)).filter((r) => r.failed_answers)).toEqual([
      expect.objectContaining({ day, sessionToken: 'hash_s1', failed_answers: 1 }),
    ]);
  });

  it('delivers published signals to every subscriber in order, long ones whole', async () => {
    await open();
    const got: string[][] = [[], []];
    const off = await Promise.all(got.map((list) => store.fleet.subscribe((m) => list.push(m))));
    const long = `recs\n${'é✓ '.repeat(9_000)}𝄞`;
    await store.fleet.publish(['one', long]);
    await store.fleet.publish(['three']);
    await expect.poll(() => got.map((l) => l.length)).toEqual([3, 3]);
    for (const list of got) expect(list).toEqual(['one', long, 'three']);
    await Promise.all(off.map((o) => o()));
    await store.fleet.publish(['after']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(got[0]).toHaveLength(3);
  });
});

/** Only PostgreSQL has roles and LISTEN/NOTIFY across processes (npm run test:postgres). */
const postgresOnly = process.env.DATABASE_URL ? [{ name: 'PostgreSQL' }] : [];

/** A fresh schema, and how many connections LISTEN on its channel (a connected admin client counts them; end it). */
async function listenersOfFreshSchema() {
  const databaseUrl = await freshPostgresSchema();
  const schema = new URL(databaseUrl).searchParams.get('options')!.split('=')[1];
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const listeners = async () =>
    Number(
      (
        await admin.query('SELECT count(*) AS n FROM pg_stat_activity WHERE query = $1', [
          `LISTEN "agent_chat.${schema}"`,
        ])
      ).rows[0].n,
    );
  return { databaseUrl, admin, listeners };
}

describe.each(postgresOnly)('fleet signals on $name', { timeout: 60_000 }, () => {
  it('a role without table rights can neither read, forge nor flood them', async () => {
    const databaseUrl = await freshPostgresSchema();
    const schema = new URL(databaseUrl).searchParams.get('options')!.split('=')[1];
    const channel = `agent_chat.${schema}`;
    const [a, b] = await Promise.all([openStorage({ databaseUrl }), openStorage({ databaseUrl })]);
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    const role = `intruder_${schema}`;
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    const asIntruder = new URL(process.env.DATABASE_URL!);
    asIntruder.username = role;
    const intruder = new pg.Client({ connectionString: asIntruder.toString() });
    await intruder.connect();
    try {
      const overheard: string[] = [];
      intruder.on('notification', (n) => overheard.push(n.payload ?? ''));
      await intruder.query(`LISTEN "${channel}"`);
      await expect(intruder.query(`SELECT key FROM ${schema}.fleet_secret`)).rejects.toThrow(
        /permission denied/,
      );

      const got: string[] = [];
      const off = await a.fleet.subscribe((m) => got.push(m));
      const words = 'the answer so far, which only the fleet may read';
      const long = `snap\nwatch_1\n3\n${'é✓ '.repeat(9_000)}${words}`;
      await b.fleet.publish([`recs\nans_1\n0\n0\n${words}`, long]);
      await expect.poll(() => got.length).toBe(2);
      await expect.poll(() => overheard.length).toBeGreaterThanOrEqual(2);
      // Ciphertext is base64, which can hold the letters "recs" by chance (about one run in
      // 200 did) but never a newline: the plain record's kind is looked for with its newline.
      expect(overheard.some((p) => p.includes(words) || p.includes('recs\n') || p.includes('é'))).toBe(false);

      // Forged signals: a cancel, injected text, and fragments that would each hold a message open.
      const forged = [
        '=cancel\nans_1\ninst_a',
        `=recs\nans_1\n1\n0\n${words}`,
        ...Array.from({ length: 2_000 }, (_, i) => `+f${i} 0 100000\n${'x'.repeat(7_000)}`),
        ...overheard.map((p) => `${p.slice(0, -8)}AAAAAAA=`),
      ];
      for (let at = 0; at < forged.length; at += 200)
        await intruder.query('SELECT pg_notify($1, x) FROM unnest($2::text[]) AS x', [
          channel,
          forged.slice(at, at + 200),
        ]);
      await b.fleet.publish(['ended\nans_1']);
      await expect.poll(() => got.at(-1)).toBe('ended\nans_1');
      expect(got).toEqual([`recs\nans_1\n0\n0\n${words}`, long, 'ended\nans_1']);
      await off();
    } finally {
      await intruder.end();
      await admin.query(`DROP ROLE ${role}`).catch(() => {});
      await admin.end();
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe.each(postgresOnly)('one LISTEN connection per store on $name', { timeout: 60_000 }, () => {
  it('every subscriber shares it, hears each message though another throws, and the last one closes it (decision 632)', async () => {
    const { databaseUrl, admin, listeners } = await listenersOfFreshSchema();
    const [a, b] = await Promise.all([openStorage({ databaseUrl }), openStorage({ databaseUrl })]);
    try {
      const got: string[][] = [[], []];
      const off = [
        await a.fleet.subscribe(() => {
          throw new Error('a subscriber that fails');
        }),
        ...(await Promise.all(got.map((list) => a.fleet.subscribe((m) => list.push(m))))),
      ];
      expect(await listeners()).toBe(1);
      await b.fleet.publish(['one', 'two']);
      await expect
        .poll(() => got)
        .toEqual([
          ['one', 'two'],
          ['one', 'two'],
        ]);
      await off[0]();
      await off[1]();
      expect(await listeners()).toBe(1);
      await off[2]();
      await expect.poll(listeners).toBe(0);
    } finally {
      await admin.end();
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe.each(postgresOnly)('an instance on $name', { timeout: 60_000 }, () => {
  it('listens on one connection whoever in it listens, and closes it when it closes (decisions 632, 640)', async () => {
    const { databaseUrl, admin, listeners } = await listenersOfFreshSchema();
    const services = await Promise.all(
      [0, 1].map(async () =>
        createAgentService({
          projects: [PROJECT],
          clock: new ManualClock(),
          rateLimit: false,
          storage: await openStorage({ databaseUrl }),
        }),
      ),
    );
    try {
      for (const service of services) {
        // A request joins the answers' and the project cache's listeners; a session read, the session cache's.
        const minted = await service.handle(
          new Request(`${AGENT}/sessions/`, {
            method: 'POST',
            headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
            body: JSON.stringify({ external_owner_id: 'alice' }),
          }),
        );
        const token = ((await minted.json()) as { session_token: string }).session_token;
        const threads = new Request(`${AGENT}/threads/`, { headers: { Authorization: `Bearer ${token}` } });
        expect((await service.handle(threads)).status).toBe(200);
      }
      expect(await listeners()).toBe(2);
      await Promise.all(services.map((service) => service.close()));
      await expect.poll(listeners).toBe(0);
    } finally {
      await admin.end();
    }
  });
});

/**
 * Two instances of the service on one database, each request sent to the instance the test
 * names (a load balancer without sticky sessions may send any request anywhere). On
 * PostgreSQL each instance has its own pool and LISTEN connection; in memory the instances
 * share one store, and its signals stay in the process.
 */
interface Fleet {
  name: string;
  /** Stores for `count` instances of one fleet. */
  stores(count: number): Promise<Stores[]>;
  /** Stores on the last fleet's database for a process beside it (the erase-owner CLI). */
  beside(): Promise<Stores>;
}

let memoryFleet: Stores | undefined;
let fleetUrl: string | undefined;
const fleets: Fleet[] = [
  {
    name: 'memory (one process)',
    stores: async (count) => Array(count).fill((memoryFleet = memoryStores())),
    beside: async () => ({ ...memoryFleet!, close: async () => {} }),
  },
];
if (process.env.DATABASE_URL) {
  fleets.push({
    name: 'postgresql',
    async stores(count) {
      const databaseUrl = (fleetUrl = await freshPostgresSchema());
      return Promise.all(Array.from({ length: count }, () => openStorage({ databaseUrl })));
    },
    beside: () => openStorage({ databaseUrl: fleetUrl! }),
  });
}

type Record_ = Awaited<ReturnType<typeof readRecords>>[number];
const text = (records: Record_[]) =>
  records
    .filter((r) => r.type === 'partial_answer')
    .map((r) => r.content.text)
    .join('');

describe.each(fleets)('a fleet of two on $name', { timeout: 30_000 }, (fleet) => {
  let services: AgentService[] = [];
  afterEach(async () => {
    await Promise.all(services.map((s) => s.close()));
    services = [];
  });

  async function start(options: Partial<AgentServiceOptions> = {}, count = 2) {
    const clock = new ManualClock();
    const stores = await fleet.stores(count);
    services = stores.map((storage) =>
      createAgentService({ projects: [PROJECT], clock, rateLimit: false, ...options, storage }),
    );
    const call = (
      instance: number,
      method: string,
      url: string,
      init: { token?: string; apiKey?: string; body?: unknown; clientAddress?: string } = {},
    ) => {
      const headers: Record<string, string> = {};
      if (init.token) headers.Authorization = `Bearer ${init.token}`;
      if (init.apiKey) headers['X-API-Key'] = init.apiKey;
      return services[instance].handle(
        new Request(url, {
          method,
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        }),
        {
          clientAddress: init.clientAddress,
        },
      );
    };
    const session = async (instance: number, owner?: string) => {
      const response = await call(instance, 'POST', `${AGENT}/sessions/`, {
        apiKey: PROJECT.apiKey,
        body: owner === undefined ? undefined : { external_owner_id: owner },
      });
      expect(response.status).toBe(200);
      return (await response.json()).session_token as string;
    };
    const ask = (instance: number, token: string, message: string, extra: Record<string, unknown> = {}) =>
      call(instance, 'POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: 'int_demo', message, ...extra },
      });
    const resume = (instance: number, token: string, body: Record<string, unknown>) =>
      call(instance, 'POST', `${AGENT}/chat/`, { token, body: { integration_id: 'int_demo', ...body } });
    return { clock, stores, call, session, ask, resume };
  }

  /** An instance's hearing of ended sessions on PostgreSQL; one process's memory store sends none (it keeps no sessions in memory). */
  const signalsOf = async (store: Stores) =>
    fleet.name === 'postgresql' ? sessionsEndedHeard(store) : async () => {};

  it('streams an answer generating on A to a reattach on B, live, and to its end', async () => {
    const script = scriptedAgent();
    const { call, session, ask, stores } = await start({ agent: script.agent });
    const token = await session(0, 'alice');
    const chat = await ask(0, token, 'hi');
    const reader = chat.body!.getReader();
    script.say('Before ');
    const [start_] = await readRecords(reader, 2);
    const answerId = start_.content.question_answer_id as string;

    const reattach = await call(1, 'GET', `${AGENT}/answers/${answerId}/stream/`, { token });
    const follower = reattach.body!.getReader();
    // stream_start, then the snapshot: the text so far.
    const head = await readRecords(follower, 2);
    expect(head.map((r) => r.type)).toEqual(['stream_start', 'partial_answer']);
    expect(head[1].content.text).toBe('Before ');
    // Live: B gets what A generates while A is still generating.
    script.say('during ');
    expect(await readRecords(follower, 1)).toEqual([
      expect.objectContaining({ type: 'partial_answer', content: { text: 'during ' } }),
    ]);
    script.say('and after.');
    script.end();
    const rest = await readRecords(follower, Number.POSITIVE_INFINITY);
    expect(text(rest)).toBe('and after.');
    expect(rest.at(-1)).toMatchObject({ type: 'identifiers', stream_end: true });
    expect(text(await readRecords(reader, Number.POSITIVE_INFINITY))).toBe('during and after.');
    expect((await stores[1].conversations.getMessage(answerId))?.message).toMatchObject({
      content: 'Before during and after.',
      status: 'complete',
    });
  });

  it('keeps a reattach on B alive while the answer on A is silent (decision 586)', async () => {
    const script = scriptedAgent();
    // Longer than a tick (100 ms), so the first words go out before any keep-alive.
    const { call, session, ask } = await start({ agent: script.agent, streamKeepAliveMs: 300 });
    const token = await session(0, 'alice');
    const reader = (await ask(0, token, 'hi')).body!.getReader();
    script.say('Before ');
    const [start_] = await readRecords(reader, 2);
    const answerId = start_.content.question_answer_id as string;
    const follower = (
      await call(1, 'GET', `${AGENT}/answers/${answerId}/stream/`, { token })
    ).body!.getReader();
    expect((await readRecords(follower, 2)).map((r) => r.type)).toEqual(['stream_start', 'partial_answer']);
    // Nothing generates: both streams, the relayed one and the host's own, say they are alive.
    expect(await readRecords(follower, 1)).toEqual([{ type: 'keepalive', content: {}, stream_end: false }]);
    expect((await readRecords(reader, 1))[0].type).toBe('keepalive');
    script.say('after.');
    script.end();
    const rest = (await readRecords(follower, Number.POSITIVE_INFINITY)).filter(
      (r) => r.type !== 'keepalive',
    );
    expect(rest.map((r) => r.type)).toEqual(['partial_answer', 'identifiers']);
    await reader.cancel();
  });

  it('A drains mid-answer: a visitor reattached through B reads the answer to its end, stored complete', async () => {
    const script = scriptedAgent();
    const { call, session, ask, stores } = await start({ agent: script.agent });
    const token = await session(0, 'alice');
    const asked = (await ask(0, token, 'hi')).body!.getReader();
    script.say('Before ');
    const [head] = await readRecords(asked, 2);
    const answerId = head.content.question_answer_id as string;
    // The page reloaded behind the balancer: it reattaches through B.
    await asked.cancel();
    const follower = (
      await call(1, 'GET', `${AGENT}/answers/${answerId}/stream/`, { token })
    ).body!.getReader();
    expect((await readRecords(follower, 2))[1].content.text).toBe('Before ');

    const drained = services[0].drain(10_000);
    expect((await ask(0, token, 'another')).status).toBe(503);
    script.say('during the drain ');
    expect((await readRecords(follower, 1))[0].content.text).toBe('during the drain ');
    script.say('and after.');
    script.end();
    const rest = await readRecords(follower, Number.POSITIVE_INFINITY);
    expect(text(rest)).toBe('and after.');
    expect(rest.at(-1)).toMatchObject({ type: 'identifiers', stream_end: true });
    expect(await drained).toMatchObject({ answers: 1, left: 0 });
    expect((await stores[1].conversations.getMessage(answerId))?.message).toMatchObject({
      content: 'Before during the drain and after.',
      status: 'complete',
    });
    expect(script.aborted()).toBe(0);
  });

  it('stops an answer generating on A when B is asked to cancel it, and stores it stopped before answering', async () => {
    const script = scriptedAgent();
    const { call, session, ask, stores } = await start({ agent: script.agent });
    const token = await session(0, 'alice');
    const chat = await ask(0, token, 'hi');
    const reader = chat.body!.getReader();
    script.say('Half ');
    const [start_] = await readRecords(reader, 2);
    const answerId = start_.content.question_answer_id as string;

    expect((await call(1, 'POST', `${AGENT}/answers/${answerId}/cancel/`, { token })).status).toBe(204);
    expect((await stores[1].conversations.getMessage(answerId))?.message).toMatchObject({
      content: 'Half ',
      status: 'stopped',
    });
    expect(script.aborted()).toBe(1);
    expect((await readRecords(reader, Number.POSITIVE_INFINITY)).map((r) => r.type)).toEqual(['identifiers']);
    // Idempotent, from either instance.
    expect((await call(0, 'POST', `${AGENT}/answers/${answerId}/cancel/`, { token })).status).toBe(204);
    expect((await call(1, 'POST', `${AGENT}/answers/${answerId}/cancel/`, { token })).status).toBe(204);
  });

  it('stops an answer generating on A when B deletes its thread', async () => {
    const script = scriptedAgent();
    const { call, session, ask, stores } = await start({ agent: script.agent });
    const token = await session(0, 'alice');
    const reader = (await ask(0, token, 'hi')).body!.getReader();
    script.say('Some ');
    const [start_] = await readRecords(reader, 2);
    expect(
      (await call(1, 'DELETE', `${AGENT}/threads/${start_.content.thread_id as string}/`, { token })).status,
    ).toBe(204);
    expect((await readRecords(reader, Number.POSITIVE_INFINITY)).at(-1)?.stream_end).toBe(true);
    expect(script.aborted()).toBe(1);
    expect(await stores[0].conversations.getThread(start_.content.thread_id as string)).toBeUndefined();
  });

  it('continues a paused answer exactly once when A and B get its tool results at the same time', async () => {
    const tool = {
      name: 'open_page',
      description: 'Opens a page',
      parameters: { type: 'object', properties: { page: { type: 'string' } } },
    };
    const { session, ask, resume, stores } = await start();
    const token = await session(0, 'alice');
    for (let round = 0; round < 6; round++) {
      const first = await allRecords(await ask(round % 2, token, 'Open the pricing page', { tools: [tool] }));
      const threadId = first[0].content.thread_id as string;
      const [call_] = first.at(-1)!.content.tool_calls as { id: string }[];
      const body = {
        thread_id: threadId,
        tool_results: [{ tool_call_id: call_.id, output: { opened: true } }],
        tools: [tool],
      };
      const responses = await Promise.all([resume(0, token, body), resume(1, token, body)]);
      const statuses = responses.map((r) => r.status).sort((a, b) => a - b);
      expect(statuses).toEqual([200, 400]);
      const winner = responses.find((r) => r.status === 200)!;
      const records = await allRecords(winner);
      expect(records.at(-1)?.type).toBe('identifiers');
      const stored = await stores[0].conversations.getThread(threadId);
      expect(stored?.messages.map((m) => m.status)).toEqual(['complete', 'complete']);
      expect(stored?.messages[1].toolCalls).toEqual([
        expect.objectContaining({ id: call_.id, status: 'completed', output: { opened: true } }),
      ]);
      // One continuation's text, once: a second run would have appended its own.
      const streamed = records
        .filter((r) => r.type === 'partial_answer')
        .map((r) => r.content.text)
        .join('');
      expect(streamed.length).toBeGreaterThan(0);
      expect(stored?.messages[1].content).toBe(streamed);
    }
  });

  it('holds the agent rate limit and the mint limit for the fleet, not per instance', async () => {
    const { call, session } = await start({
      rateLimit: { requests: 8, windowMs: 60_000 },
      sessionMintLimit: { requests: 6, windowMs: 60_000 },
    });
    const tokens = [];
    for (let i = 0; i < 6; i++) tokens.push(await session(i % 2, 'alice'));
    const mints = await Promise.all(
      [0, 1, 0, 1].map((i) => call(i, 'POST', `${AGENT}/sessions/`, { apiKey: PROJECT.apiKey })),
    );
    expect(mints.map((r) => r.status)).toEqual([429, 429, 429, 429]);
    const statuses = [];
    for (let i = 0; i < 16; i++)
      statuses.push(
        (await call(i % 2, 'GET', `${AGENT}/threads/`, { token: tokens[i % tokens.length] })).status,
      );
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    expect(statuses.slice(8)).toEqual(Array(8).fill(429));
  });

  it('refuses on B at once a session B was using when A ends the sessions of the key that minted it (decision 630)', async () => {
    const { call, session, stores } = await start();
    const token = await session(0, 'alice');
    const other = await session(0, 'bob');
    const threads = (t: string) => call(1, 'GET', `${AGENT}/threads/`, { token: t });
    // Used on B, twice: the session and the project's keys (cached 5 s, not the key's end) are in B's memory.
    for (let i = 0; i < 2; i++) expect((await threads(token)).status).toBe(200);
    const heard = await signalsOf(stores[1]);
    const [key] = await stores[0].directory.listApiKeys(PROJECT.id);
    expect(await stores[0].directory.endKeySessions(PROJECT.id, key.id, Date.now())).toBe(2);
    // Once B has heard the signal (milliseconds), not when its memory of the session runs out.
    await heard();
    expect([(await threads(token)).status, (await threads(other)).status]).toEqual([401, 401]);
  });

  it('refuses on B at once a key A revoked, though B holds the project for 5 s (decision 640)', async () => {
    const { call, stores } = await start({ console: CONSOLE });
    await addAdmin(stores[0]);
    const admin = consoleClient(services[0]);
    await admin.signIn();
    const created = (await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Shared' })).body;
    const mint = async (instance: number) =>
      (await call(instance, 'POST', `${AGENT}/sessions/`, { apiKey: created.key })).status;
    // Minted on B twice: the project with the key live is in B's memory, for 5 s of a clock that
    // does not move here.
    for (let i = 0; i < 2; i++) expect(await mint(1)).toBe(200);
    const heard =
      fleet.name === 'postgresql' ? await signalHeard(stores[1], 'directory-changed') : async () => {};
    expect((await admin.call('DELETE', `projects/${PROJECT.id}/keys/${created.id}`)).body.status).toBe(
      'revoked',
    );
    const revoked = performance.now();
    // Once B has heard the signal (milliseconds), not when its cache runs out.
    await heard();
    expect(performance.now() - revoked).toBeLessThan(1_000);
    expect(await mint(1)).toBe(401);
    expect(await mint(0)).toBe(401);
  });

  it('erase-owner run beside the fleet: B refuses at once the session it was using (decision 630)', async () => {
    const { call, session, stores } = await start();
    const alice = await session(0, 'alice');
    const bob = await session(0, 'bob');
    const threads = (token: string) => call(1, 'GET', `${AGENT}/threads/`, { token });
    for (let i = 0; i < 2; i++) expect((await threads(alice)).status).toBe(200);
    const heard = await signalsOf(stores[1]);
    const lines: string[] = [];
    const out = { print: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const erase = eraseOwnerCommand([], { project: PROJECT.id, owner: 'alice' }, { dataDir: '' }, out, () =>
      fleet.beside(),
    );
    expect(await erase).toBe(0);
    expect(lines).toContain('  sessions       1');
    await heard();
    const refused = await threads(alice);
    expect([refused.status, (await refused.json()).code]).toEqual([401, 'invalid_token']);
    expect((await threads(bob)).status).toBe(200);
  });

  it('caps answers generating at once per owner across the fleet, and frees a slot when one ends', async () => {
    const scripts = Array.from({ length: 5 }, () => scriptedAgent());
    let next = 0;
    const { session, ask } = await start({
      maxConcurrentAnswers: 3,
      agent: { answer: (input) => scripts[next++].agent.answer(input) },
    });
    const alice = await session(0, 'alice');
    const open = [await ask(0, alice, 'one'), await ask(1, alice, 'two'), await ask(0, alice, 'three')];
    expect(open.map((r) => r.status)).toEqual([200, 200, 200]);
    const refused = await ask(1, alice, 'four');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect((await refused.json()).code).toBe('rate_limited');
    // Another owner is not affected.
    const bob = await ask(1, await session(1, 'bob'), 'mine');
    expect(bob.status).toBe(200);
    // One of alice's answers ends (on A): the next question is accepted (on B).
    scripts[0].end();
    await allRecords(open[0]);
    const after = await ask(1, alice, 'five');
    expect(after.status).toBe(200);
    for (const s of scripts) s.end();
    await Promise.all([open[1], open[2], bob, after].map((r) => allRecords(r)));
  });

  it('caps anonymous sessions per client address, whatever tokens they mint', async () => {
    const scripts = Array.from({ length: 3 }, () => scriptedAgent());
    let next = 0;
    const { session, call } = await start({
      maxConcurrentAnswers: 2,
      agent: { answer: (input) => scripts[next++].agent.answer(input) },
    });
    const chat = async (instance: number, clientAddress: string) =>
      call(instance, 'POST', `${AGENT}/chat/`, {
        token: await session(instance),
        body: { integration_id: 'int_demo', message: 'hi' },
        clientAddress,
      });
    const a = [await chat(0, '198.51.100.7'), await chat(1, '198.51.100.7')];
    expect((await chat(0, '198.51.100.7')).status).toBe(429);
    const other = await chat(1, '203.0.113.9');
    expect(other.status).toBe(200);
    for (const s of scripts) s.end();
    await Promise.all([...a, other].map((r) => allRecords(r)));
  });

  it('refreshes the activity rollup once per interval for the whole fleet, and answers how fresh it is', async () => {
    const { clock, call, session } = await start({ activityStalenessMs: 60_000 });
    await session(0, 'alice');
    // Both instances' timers fire at once: one refresh.
    const first = await Promise.all(services.map((s) => s.refreshActivity()));
    const memory = fleet.name.startsWith('memory');
    expect(first.filter(Boolean)).toHaveLength(memory ? 0 : 1);
    // Within the interval (half the staleness bound): nobody refreshes.
    clock.advance(20_000);
    expect(await Promise.all(services.map((s) => s.refreshActivity()))).toEqual([false, false]);
    clock.advance(15_000);
    expect((await Promise.all(services.map((s) => s.refreshActivity()))).filter(Boolean)).toHaveLength(
      memory ? 0 : 1,
    );
    const report = await (await call(1, 'GET', `${QUERY}/activity/`, { apiKey: PROJECT.apiKey })).json();
    expect(report.freshness).toEqual({ as_of: '2026-11-21T09:00:35.000000Z', max_staleness_seconds: 60 });
    expect(report.totals.sessions).toBe(1);
  });

  it('ends as an error the answer of an instance that stopped renewing its lease, and says so to a reattach', async () => {
    const script = scriptedAgent();
    const { call, session, ask, stores, clock } = await start({ agent: script.agent, instanceLeaseMs: 300 });
    const token = await session(0, 'alice');
    const reader = (await ask(0, token, 'hi')).body!.getReader();
    // A second later: the text is saved as it grows.
    clock.advance(1_000);
    script.say('Cut ');
    const [start_] = await readRecords(reader, 2);
    const answerId = start_.content.question_answer_id as string;
    await expect
      .poll(async () => (await stores[1].conversations.getMessage(answerId))?.message.content)
      .toBe('Cut ');
    // A makes no more heartbeats (hung, or dead); B renews its own and reaps A's answers.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await services[1].heartbeat()).toBe(1);
    expect((await stores[1].conversations.getMessage(answerId))?.message.status).toBe('error');
    const replay = await allRecords(await call(1, 'GET', `${AGENT}/answers/${answerId}/stream/`, { token }));
    expect(replay.map((r) => r.type)).toEqual(['stream_start', 'partial_answer', 'error']);
    // A, still alive after all, finds its answer taken over: its end changes nothing, and its
    // own client hears the same ending as everyone else.
    script.say('more');
    script.end();
    expect((await readRecords(reader, Number.POSITIVE_INFINITY)).at(-1)).toMatchObject({
      type: 'error',
      stream_end: true,
    });
    expect((await stores[0].conversations.getMessage(answerId))?.message).toMatchObject({
      status: 'error',
      content: 'Cut ',
    });
  });

  /** A's answer relayed on B, with text so far; then A dies (no more records, no more heartbeats). */
  async function relayThenDeath() {
    const script = scriptedAgent();
    const fleet2 = await start({ agent: script.agent, instanceLeaseMs: 600 });
    const token = await fleet2.session(0, 'alice');
    const reader = (await fleet2.ask(0, token, 'hi')).body!.getReader();
    script.say('Cut ');
    const [start_] = await readRecords(reader, 2);
    const answerId = start_.content.question_answer_id as string;
    // A's last heartbeat: from here its lease runs out.
    await fleet2.stores[0].fleet.heartbeat(services[0].instanceId);
    const follower = (
      await fleet2.call(1, 'GET', `${AGENT}/answers/${answerId}/stream/`, { token })
    ).body!.getReader();
    expect((await readRecords(follower, 2)).map((r) => r.type)).toEqual(['stream_start', 'partial_answer']);
    /** The rest of the relayed stream, or 'open' if it is still open after `ms`. */
    const rest = (ms: number) =>
      Promise.race([
        readRecords(follower, Number.POSITIVE_INFINITY),
        new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms)),
      ]);
    return { ...fleet2, script, token, answerId, rest };
  }

  it('a relay whose host went silent asks the store, and ends once the host is dead there', async () => {
    const { answerId, rest, call, token, stores, script } = await relayThenDeath();
    // No heartbeat runs: the relay's own look at the store (2 s, then every third of the lease) finds the host dead.
    expect(await rest(5_000)).toEqual([]);
    expect((await stores[1].conversations.getMessage(answerId))?.message.status).toBe('error');
    const replay = await allRecords(await call(1, 'GET', `${AGENT}/answers/${answerId}/stream/`, { token }));
    expect(replay.at(-1)).toMatchObject({ type: 'error', stream_end: true });
    script.end();
  });

  it('the lease reaper says which answers it ended, and their relays end at once', async () => {
    const { answerId, rest, stores, script } = await relayThenDeath();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await services[1].heartbeat()).toBe(1);
    // Well before the relay's first look at the store (2 s).
    expect(await rest(1_000)).toEqual([]);
    expect((await stores[1].conversations.getMessage(answerId))?.message.status).toBe('error');
    script.end();
  });

  it('a cancel sent right after its host died ends the answer stopped, as the visitor asked, when the lease runs out', async () => {
    const { call, session, stores } = await start({ instanceLeaseMs: 600 });
    const ghostId = `msg_${'0'.repeat(31)}1`;
    // An answer whose instance just died: its lease still runs, and nothing hears the cancel.
    const ghost = { ...thread('t_ghost'), projectId: PROJECT.id, integrationId: 'int_demo' };
    await stores[0].conversations.createThread(ghost);
    await stores[0].fleet.heartbeat('inst_ghost');
    await stores[0].ledger.beginAnswer({
      thread: ghost,
      newThread: false,
      question: message('q_ghost'),
      answer: answerOf(ghostId),
      instanceId: 'inst_ghost',
      events: [],
    });
    const token = await session(1, 'alice');
    expect((await call(1, 'POST', `${AGENT}/answers/${ghostId}/cancel/`, { token })).status).toBe(204);
    expect((await stores[1].conversations.getMessage(ghostId))?.message.status).toBe('streaming');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await services[1].heartbeat()).toBe(1);
    expect((await stores[1].conversations.getMessage(ghostId))?.message.status).toBe('stopped');
  });

  it('a reattach to a host that died but whose lease still runs waits for the store, and ends as it does', async () => {
    const { call, session, stores } = await start({ instanceLeaseMs: 2_400 });
    const ghostId = `msg_${'0'.repeat(31)}2`;
    const ghost = { ...thread('t_ghost2'), projectId: PROJECT.id, integrationId: 'int_demo' };
    await stores[0].conversations.createThread(ghost);
    await stores[0].fleet.heartbeat('inst_ghost');
    await stores[0].ledger.beginAnswer({
      thread: ghost,
      newThread: false,
      question: message('q_ghost2'),
      answer: answerOf(ghostId),
      instanceId: 'inst_ghost',
      events: [],
    });
    const token = await session(1, 'alice');
    const started = Date.now();
    const records = await allRecords(await call(1, 'GET', `${AGENT}/answers/${ghostId}/stream/`, { token }));
    // Not before the store had the end: the host's lease (2.4 s) ran out first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(records.map((r) => r.type)).toEqual(['stream_start', 'error']);
    expect((await stores[1].conversations.getMessage(ghostId))?.message.status).toBe('error');
  });

  it("ends a dead instance's answer at once when a reattach finds it", async () => {
    const script = scriptedAgent();
    const { call, session, ask, stores } = await start({ agent: script.agent, instanceLeaseMs: 300 });
    const token = await session(0, 'alice');
    const reader = (await ask(0, token, 'hi')).body!.getReader();
    const [start_] = await readRecords(reader, 1);
    const answerId = start_.content.question_answer_id as string;
    await new Promise((resolve) => setTimeout(resolve, 400));
    await stores[1].fleet.heartbeat(services[1].instanceId);
    const replay = await allRecords(await call(1, 'GET', `${AGENT}/answers/${answerId}/stream/`, { token }));
    expect(replay.at(-1)).toMatchObject({ type: 'error', stream_end: true });
    expect((await stores[1].conversations.getMessage(answerId))?.message.status).toBe('error');
    script.end();
  });
});
