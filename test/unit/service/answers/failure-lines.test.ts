/**
 * Every failed answer writes one log line (decision 513) and counts as failed once (decisions
 * 497, 512), through the routes: the agent's failures as `agent_failed`, the service's guards and
 * an answer lost with its instance as `answer_failed`, each with the answer's ids and its stored
 * code, never the owner, the question or a key. Under `npm run test:postgres`
 * (SERVICE_TEST_FLEET=2) each request goes to the next of two instances on one database.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_CHARS, MAX_TOOL_ROUNDS } from '../../../../contract/limits.js';
import {
  type Agent,
  AgentError,
  type AgentService,
  createAgentService,
  type LogEntry,
  memoryStores,
  type Stores,
} from '../../../../service/index.js';
import { utcDay } from '../../../../service/kernel/clock.js';
import {
  AGENT,
  PROJECT,
  allRecords,
  chatRecords,
  makeService,
  readRecords,
  scriptedAgent,
} from '../../../fixtures/service.js';

const QUESTION = 'What does alice-private-question cost?';

/** The failure lines of a log, and what any of them would give away. */
const failureLines = (logs: LogEntry[]) => logs.filter((l) => /^(agent|answer)_failed$/.test(l.msg));
const expectNothingPrivate = (logs: LogEntry[]) =>
  expect(JSON.stringify(failureLines(logs))).not.toMatch(/alice|private-question|key_demo|Bearer/);

/** A service whose agent is `agent`, the log kept; alice's question, and its answer to the end. */
async function askWith(agent: Agent, options: { maxAnswerMs?: number } = {}) {
  const logs: LogEntry[] = [];
  const ctx = makeService({ agent, log: (e) => logs.push(e), ...options });
  const token = await ctx.session('alice');
  const { records } = await chatRecords(ctx, token, { message: QUESTION });
  const { thread_id: thread, question_answer_id: answer } = records[0].content as Record<string, string>;
  return { ctx, token, logs, records, thread, answer };
}

/** The failed answers Activity counts today, in all and for the integration (the rollup rebuilt first). */
async function failedToday(storage: Stores, now: number) {
  await storage.activity.refreshActivity();
  const { totals, byIntegration } = await storage.activity.activitySummary(
    PROJECT.id,
    utcDay(now),
    utcDay(now),
  );
  return {
    total: totals.failed_answers,
    byIntegration: byIntegration.map((i) => [i.integrationId, i.failed_answers]),
  };
}

describe('a failed answer writes one log line, with its ids and code', () => {
  const alwaysTools: Agent = {
    async *answer({ rounds }) {
      yield {
        type: 'tool_calls',
        calls: [{ id: `call_${rounds.length}`, name: 'open_page', arguments: {} }],
      };
    },
  };
  const cases: [string, string, Agent, { maxAnswerMs?: number }?][] = [
    ['answer_failed', 'answer_empty', { async *answer() {} }],
    [
      'answer_failed',
      'answer_too_long',
      {
        async *answer() {
          yield { type: 'text', text: 'x'.repeat(MAX_ANSWER_CHARS + 1) };
        },
      },
    ],
    [
      'answer_failed',
      'answer_time_limit',
      {
        async *answer({ signal }) {
          yield { type: 'text', text: 'Thinking' };
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
        },
      },
      { maxAnswerMs: 50 },
    ],
    [
      'agent_failed',
      'agent_threw',
      {
        async *answer() {
          yield { type: 'text', text: 'Partly' };
          throw new RangeError(`about ${QUESTION}`);
        },
      },
    ],
    [
      'agent_failed',
      'kb_offline',
      {
        async *answer() {
          yield { type: 'text', text: 'So far, ' };
          throw new AgentError('The knowledge base is offline.', 'kb_offline', 'start the search service');
        },
      },
    ],
  ];
  it.each(cases)('%s, code %s', async (msg, code, agent, options) => {
    const { ctx, logs, records, thread, answer } = await askWith(agent, options);
    expect(records.at(-1)).toMatchObject({ type: 'error', stream_end: true });
    expect(failureLines(logs)).toEqual([
      expect.objectContaining({ level: 'warn', msg, project: PROJECT.id, thread, answer, code }),
    ]);
    // The code is the one the console shows for it.
    expect((await ctx.service.storage.conversations.getMessage(answer))?.message.failure?.code).toBe(code);
    expectNothingPrivate(logs);
  });

  it('answer_failed, code answer_tool_rounds: after the last round the page may have', async () => {
    const { ctx, token, logs, records, thread, answer } = await askWith(alwaysTools);
    let end = records.at(-1)!;
    for (let round = 1; end.type === 'tool_calls'; round++) {
      expect(round).toBeLessThanOrEqual(MAX_TOOL_ROUNDS);
      expect(failureLines(logs)).toEqual([]);
      const [call] = end.content.tool_calls as { id: string }[];
      const next = await chatRecords(ctx, token, {
        thread_id: thread,
        tool_results: [{ tool_call_id: call.id, output: 'done' }],
      });
      end = next.records.at(-1)!;
    }
    expect(end).toMatchObject({ type: 'error', stream_end: true });
    expect(failureLines(logs)).toEqual([
      expect.objectContaining({
        msg: 'answer_failed',
        project: PROJECT.id,
        thread,
        answer,
        code: 'answer_tool_rounds',
      }),
    ]);
  });

  it('answer_failed, code service_shutdown: an answer a closing instance cuts', async () => {
    const logs: LogEntry[] = [];
    const script = scriptedAgent();
    const stores = memoryStores();
    const service = createAgentService({
      projects: [PROJECT],
      agent: script.agent,
      rateLimit: false,
      storage: stores,
      log: (e) => logs.push(e),
    });
    const minted = await service.handle(
      new Request(`${AGENT}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
        body: '{"external_owner_id":"alice"}',
      }),
    );
    const token = ((await minted.json()) as { session_token: string }).session_token;
    const chat = await service.handle(
      new Request(`${AGENT}/chat/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: JSON.stringify({ integration_id: 'int_demo', message: QUESTION }),
      }),
    );
    const reader = chat.body!.getReader();
    script.say('Half ');
    const [head] = await readRecords(reader, 2);
    await service.close();
    expect((await readRecords(reader, Number.POSITIVE_INFINITY)).at(-1)).toMatchObject({ type: 'error' });
    expect(failureLines(logs)).toEqual([
      expect.objectContaining({
        msg: 'answer_failed',
        thread: head.content.thread_id,
        answer: head.content.question_answer_id,
        code: 'service_shutdown',
      }),
    ]);
  });

  it('no line for an answer that ends well, or one the visitor stopped', async () => {
    const script = scriptedAgent();
    const logs: LogEntry[] = [];
    const ctx = makeService({ agent: script.agent, log: (e) => logs.push(e) });
    const token = await ctx.session('alice');
    script.say('Fine.');
    script.end();
    expect((await chatRecords(ctx, token, { message: QUESTION })).records.at(-1)?.type).toBe('identifiers');
    const stopped = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'Another?' },
    });
    const reader = stopped.body!.getReader();
    script.say('Half ');
    const [head] = await readRecords(reader, 2);
    await ctx.call('POST', `${AGENT}/answers/${head.content.question_answer_id as string}/cancel/`, {
      token,
    });
    await readRecords(reader, Number.POSITIVE_INFINITY);
    expect(failureLines(logs)).toEqual([]);
  });
});

describe('an answer lost with its instance', () => {
  /**
   * Another instance on the same database (its close keeps the store open) that generates
   * alice's answer, says "Half " and then dies: its lease row goes, and it never renews it.
   */
  async function lostAnswer() {
    const logs: LogEntry[] = [];
    const ctx = makeService({ log: (e) => logs.push(e) });
    const storage = ctx.service.storage;
    const script = scriptedAgent();
    const doomed = createAgentService({
      projects: [PROJECT],
      clock: ctx.clock,
      rateLimit: false,
      agent: script.agent,
      log: (e) => logs.push(e),
      storage: new Proxy(storage, {
        get: (target, name) => (name === 'close' ? async () => {} : target[name as keyof Stores]),
      }),
    });
    const token = await ctx.session('alice');
    const chat = await doomed.handle(
      new Request(`${AGENT}/chat/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: JSON.stringify({ integration_id: 'int_demo', message: QUESTION }),
      }),
    );
    script.say('Half ');
    const [head] = await readRecords(chat.body!.getReader(), 2);
    await storage.fleet.retireInstance(doomed.instanceId);
    const { thread_id: thread, question_answer_id: answer } = head.content as Record<string, string>;
    return { ctx, logs, token, thread, answer, doomed };
  }

  it('is counted failed once and writes one line, while every instance reaps and reattaches to it at once', async () => {
    const { ctx, logs, token, thread, answer, doomed } = await lostAnswer();
    const reattach = (s: AgentService) =>
      s.handle(
        new Request(`${AGENT}/answers/${answer}/stream/`, { headers: { Authorization: `Bearer ${token}` } }),
      );
    const [, reattached] = await Promise.all([
      Promise.all(ctx.services.map((s) => s.heartbeat())),
      Promise.all(ctx.services.map(reattach)),
    ]);
    for (const response of reattached)
      expect((await allRecords(response)).at(-1)).toMatchObject({ type: 'error', stream_end: true });
    // Its text is what its instance last saved (once a second); how it ended is what counts here.
    expect((await ctx.service.storage.conversations.getMessage(answer))?.message).toMatchObject({
      status: 'error',
      failure: { code: 'answer_lost' },
    });
    expect(failureLines(logs)).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'answer_failed',
        project: PROJECT.id,
        thread,
        answer,
        code: 'answer_lost',
      }),
    ]);
    expectNothingPrivate(logs);
    expect(await failedToday(ctx.service.storage, ctx.clock.now())).toEqual({
      total: 1,
      byIntegration: [['int_demo', 1]],
    });
    // Its instance wakes to end it too: the stored end stands, and nothing more is written or counted.
    await doomed.close();
    expect(failureLines(logs)).toHaveLength(1);
    expect(await failedToday(ctx.service.storage, ctx.clock.now())).toMatchObject({ total: 1 });
  });

  it('the maintenance ends it when no instance comes by: counted, and one line', async () => {
    const { ctx, logs, thread, answer, doomed } = await lostAnswer();
    ctx.clock.advance(60 * 60_000);
    expect(await ctx.service.maintain()).toMatchObject({ answers: 1 });
    expect(failureLines(logs)).toEqual([
      expect.objectContaining({
        msg: 'answer_failed',
        project: PROJECT.id,
        thread,
        answer,
        code: 'answer_lost',
      }),
    ]);
    expect(await failedToday(ctx.service.storage, ctx.clock.now())).toMatchObject({ total: 1 });
    await doomed.close();
  });
});
