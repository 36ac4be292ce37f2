/** A drain (decision 456): the answers in flight run to their end, new ones go elsewhere, a deadline cuts the rest. */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgentService, type AgentService, type Stores } from '../../../../service/index.js';
import { runDuties } from '../../../../service/duties.js';
import { stopOnSignals } from '../../../../service/shutdown.js';
import { AGENT, PROJECT, readRecords, scriptedAgent, textOf } from '../../../fixtures/service.js';
import { served } from '../../../fixtures/served.js';
import { engines } from '../../../fixtures/storages.js';

const RESTARTED = 'The service restarted while answering. Ask again.';

function request(service: AgentService, method: string, url: string, token?: string, body?: unknown) {
  return service.handle(
    new Request(url, {
      method,
      headers: { ...(token && { Authorization: `Bearer ${token}` }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

async function session(service: AgentService) {
  const response = await service.handle(
    new Request(`${AGENT}/sessions/`, {
      method: 'POST',
      headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
      body: '{"external_owner_id":"alice"}',
    }),
  );
  return ((await response.json()) as { session_token: string }).session_token;
}

const ask = (service: AgentService, token: string, message: string) =>
  request(service, 'POST', `${AGENT}/chat/`, token, { integration_id: 'int_demo', message });

/** A question whose answer has said "Half " and goes on when the script says more. */
async function halfAnswered(service: AgentService, script: ReturnType<typeof scriptedAgent>) {
  const token = await session(service);
  const reader = (await ask(service, token, 'hi')).body!.getReader();
  script.say('Half ');
  const [head] = await readRecords(reader, 2);
  return {
    token,
    reader,
    threadId: head.content.thread_id as string,
    answerId: head.content.question_answer_id as string,
  };
}

describe.each(engines())('a draining service on $name', { timeout: 30_000 }, (engine) => {
  let stores: Stores;
  let service: AgentService;
  afterEach(async () => {
    await service.close();
    await stores.close();
  });

  async function start() {
    const script = scriptedAgent();
    stores = await engine.open();
    service = createAgentService({
      projects: [PROJECT],
      // The test closes the store itself: it reads what the service's close stored.
      storage: { ...stores, close: async () => {} },
      agent: script.agent,
      rateLimit: false,
    });
    return { script, ...(await halfAnswered(service, script)) };
  }

  it('lets the answer in flight finish and stores it complete, while refusing new work and serving the rest', async () => {
    const { script, token, reader, threadId, answerId } = await start();
    const drained = service.drain(10_000);
    expect(service.draining).toBe(true);

    // A new question and tool results both start a model call: 503, the contract's body, a short Retry-After.
    for (const body of [
      { integration_id: 'int_demo', message: 'another' },
      {
        integration_id: 'int_demo',
        thread_id: threadId,
        tool_results: [{ tool_call_id: 'c1', output: 'x' }],
      },
    ]) {
      const refused = await request(service, 'POST', `${AGENT}/chat/`, token, body);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('Retry-After')).toBe('1');
      expect(refused.headers.get('Access-Control-Expose-Headers')).toContain('Retry-After');
      expect(await refused.json()).toEqual({
        detail: expect.stringMatching(/shutting down/),
        code: 'draining',
      });
    }
    // Reattach and history still answer.
    const reattached = (await request(service, 'GET', `${AGENT}/answers/${answerId}/stream/`, token)).body!;
    const replay = reattached.getReader();
    expect((await readRecords(replay, 2))[1].content.text).toBe('Half ');
    expect((await request(service, 'GET', `${AGENT}/threads/${threadId}/`, token)).status).toBe(200);

    script.say('and the rest.');
    script.end();
    expect(await drained).toMatchObject({ answers: 1, left: 0 });
    const rest = await readRecords(reader, Number.POSITIVE_INFINITY);
    expect(rest.at(-1)).toMatchObject({ type: 'identifiers', stream_end: true });
    expect(textOf(await readRecords(replay, Number.POSITIVE_INFINITY))).toBe('and the rest.');
    expect((await stores.conversations.getMessage(answerId))?.message).toMatchObject({
      content: 'Half and the rest.',
      status: 'complete',
    });
    expect(script.aborted()).toBe(0);
  });

  it('waits for a question let in a moment before the drain began, whose answer had not started', async () => {
    const script = scriptedAgent();
    stores = await engine.open();
    // The question's one write waits until the test lets it go: the drain begins in between.
    let entered!: () => void;
    const inWrite = new Promise<void>((resolve) => (entered = resolve));
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const ledger = Object.create(stores.ledger) as Stores['ledger'];
    ledger.beginAnswer = async (...args) => {
      entered();
      await gate;
      return stores.ledger.beginAnswer(...args);
    };
    service = createAgentService({
      projects: [PROJECT],
      storage: { ...stores, ledger, close: async () => {} },
      agent: script.agent,
      rateLimit: false,
    });
    const token = await session(service);
    const asked = ask(service, token, 'hi');
    await inWrite;
    let settled = false;
    const drained = service.drain(10_000).finally(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    proceed();
    const reader = (await asked).body!.getReader();
    const [head] = await readRecords(reader, 1);
    script.say('All of it.');
    script.end();
    await drained;
    expect(textOf(await readRecords(reader, Number.POSITIVE_INFINITY))).toBe('All of it.');
    expect(
      (await stores.conversations.getMessage(head.content.question_answer_id as string))?.message,
    ).toMatchObject({ content: 'All of it.', status: 'complete' });
  });

  it('at the deadline, leaves what still generates for close, which ends it as an error with its text (447)', async () => {
    const { script, reader, answerId } = await start();
    expect(await service.drain(50)).toMatchObject({ answers: 1, left: 1 });
    await service.close();
    expect(
      (await readRecords(reader, Number.POSITIVE_INFINITY)).map((r) => [r.type, r.content.reason]),
    ).toEqual([['error', RESTARTED]]);
    expect((await stores.conversations.getMessage(answerId))?.message).toMatchObject({
      content: 'Half ',
      status: 'error',
    });
    expect(script.aborted()).toBe(1);
  });
});

describe('a draining service on node:http', () => {
  it('fails /readyz while /healthz holds, and closes each connection after its response', async () => {
    const script = scriptedAgent();
    const { url, service, drain } = await served({
      projects: [PROJECT],
      agent: script.agent,
      rateLimit: false,
    });
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready' });
    const token = await session(service);
    const chat = await fetch(`${url}${new URL(AGENT).pathname}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify({ integration_id: 'int_demo', message: 'hi' }),
    });
    script.say('Half ');
    const reader = chat.body!.getReader();
    await readRecords(reader, 2);

    const drained = drain(10_000);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ code: 'draining' });
    const live = await fetch(`${url}/healthz`);
    expect(live.status).toBe(200);
    expect(live.headers.get('Connection')).toBe('close');
    script.end();
    expect(await drained).toMatchObject({ answers: 1, left: 0 });
    expect((await readRecords(reader, Number.POSITIVE_INFINITY)).at(-1)?.type).toBe('identifiers');
  });
});

/** The program's signals, on an emitter: what it says and how it exits. */
function signals(
  service: AgentService,
  running: { drain: AgentService['drain']; close(): Promise<void> },
  drainMs: number,
) {
  const host = new EventEmitter();
  const lines: string[] = [];
  const exited = new Promise<number>((exit) =>
    stopOnSignals({ ...running, inFlight: () => service.answersInFlight }, drainMs, {
      on: (signal, listener) => host.on(signal, listener),
      say: (line) => lines.push(line),
      exit,
    }),
  );
  return { emit: (signal: 'SIGTERM' | 'SIGINT') => host.emit(signal), lines, exited };
}

describe('the program on SIGTERM and SIGINT', () => {
  async function answering() {
    const script = scriptedAgent();
    const { service, drain, close } = await served({
      projects: [PROJECT],
      agent: script.agent,
      rateLimit: false,
    });
    const { reader, answerId } = await halfAnswered(service, script);
    return { script, service, reader, answerId, storage: service.storage, running: { drain, close } };
  }

  it('drains on the first signal, says so, and exits 0 once the answer is complete', async () => {
    const { script, service, reader, answerId, storage, running } = await answering();
    const program = signals(service, running, 30_000);
    program.emit('SIGTERM');
    expect(program.lines).toEqual([
      'draining (SIGTERM): 1 answer in flight, up to 30 s; new questions go to other instances (503), /readyz fails; a second signal stops at once.',
    ]);
    script.say('and the rest.');
    script.end();
    expect(await program.exited).toBe(0);
    expect(program.lines[1]).toMatch(/^drained in \d+\.\d s\.$/);
    expect((await allRecordsOf(reader)).at(-1)?.type).toBe('identifiers');
    expect((await storage.conversations.getMessage(answerId))?.message.status).toBe('complete');
  });

  it('a second signal cuts at once: the answer ends as an error with its text kept', async () => {
    const { reader, answerId, storage, service, running } = await answering();
    const program = signals(service, running, 30_000);
    program.emit('SIGTERM');
    program.emit('SIGINT');
    expect(program.lines[1]).toBe(
      'SIGINT again: stopping now; 1 answer in flight ends as an error, its text kept.',
    );
    expect(await program.exited).toBe(0);
    expect((await allRecordsOf(reader)).map((r) => r.content.reason)).toEqual([RESTARTED]);
    expect((await storage.conversations.getMessage(answerId))?.message).toMatchObject({
      content: 'Half ',
      status: 'error',
    });
  });

  it('says what the deadline cut', async () => {
    const { reader, service, running } = await answering();
    const program = signals(service, running, 100);
    program.emit('SIGTERM');
    expect(program.lines[0]).toMatch(/^draining \(SIGTERM\): 1 answer in flight, up to 0\.1 s;/);
    expect(await program.exited).toBe(0);
    expect(program.lines[1]).toBe(
      'cut 1 answer at the deadline (0.1 s): it ends as an error, its text kept.',
    );
    expect((await allRecordsOf(reader)).map((r) => r.content.reason)).toEqual([RESTARTED]);
  });
});

const allRecordsOf = (reader: ReadableStreamDefaultReader<Uint8Array>) =>
  readRecords(reader, Number.POSITIVE_INFINITY);

describe('the duties of a draining instance', () => {
  it("renew the lease and nothing else: maintenance, the rollup and crawls are the fleet's", async () => {
    vi.useFakeTimers();
    try {
      const ran: string[] = [];
      const did =
        <T>(name: string, value: T) =>
        async () => (ran.push(name), value);
      let draining = false;
      const duties = {
        maintain: did('maintain', {}),
        heartbeat: did('heartbeat', 0),
        refreshActivity: did('refresh', false),
        crawlDocs: did('crawl', 0),
        deliverNotifications: did('deliver', 0),
      };
      const stop = runDuties(duties, new Set(), {
        maintainEveryMs: 60_000,
        leaseMs: 30_000,
        stalenessMs: 60_000,
        log: () => {},
        draining: () => draining,
      });
      await vi.advanceTimersByTimeAsync(60_000);
      expect(new Set(ran)).toEqual(new Set(['maintain', 'heartbeat', 'refresh', 'crawl', 'deliver']));
      ran.length = 0;
      draining = true;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(ran).toEqual(Array(6).fill('heartbeat'));
      stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
