/**
 * A failed answer reads the same wherever it is read (wire contract §9; decisions 524, 525): a
 * reattach to an answer that has already failed ends with the very `error` record its live
 * stream ended with, for an agent's failure, a guard (the time limit) and an answer lost with
 * its instance; and a lost answer counts as a message (its question's, and now its own), as it
 * counts as one failed answer, however many instances end it at once. On every engine the service ships (memory, PGlite, and
 * PostgreSQL under `npm run test:postgres`), two instances on one database where it matters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Agent,
  AgentError,
  type AgentService,
  createAgentService,
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
import { engines } from '../../../fixtures/storages.js';

/** The words every stream of a lost answer ends with, as one whose instance lost it says. */
const LOST_REASON = 'This answer is no longer being generated.';

describe.each(engines())('a failed answer, reattached to: $name', { timeout: 60_000 }, (engine) => {
  const opened: AgentService[] = [];
  afterEach(async () => {
    // The first instance closes the bundle; the others share it.
    for (const service of opened.splice(0).reverse()) await service.close().catch(() => {});
  });

  /** A service on a fresh bundle of this engine, closed after the test. */
  async function serviceWith(agent: Agent, options: { maxAnswerMs?: number } = {}) {
    const storage = await engine.open();
    const ctx = makeService({ agent, storage, ...options });
    opened.push(ctx.service);
    return { ctx, storage };
  }

  /** Alice's question to `agent`: its live records, then a reattach's, the answer ended. */
  async function liveThenReattached(agent: Agent, options: { maxAnswerMs?: number } = {}) {
    const { ctx } = await serviceWith(agent, options);
    const token = await ctx.session('alice');
    const live = (await chatRecords(ctx, token, { message: 'Where is my order?' })).records;
    const answer = live[0].content.question_answer_id as string;
    const again = await allRecords(await ctx.call('GET', `${AGENT}/answers/${answer}/stream/`, { token }));
    return { live, again };
  }

  const cases: [string, Agent, { maxAnswerMs?: number }?][] = [
    [
      "an agent's own failure (an AgentError: its reason)",
      {
        async *answer() {
          yield { type: 'text', text: 'So far, ' };
          throw new AgentError('The knowledge base is offline.', 'kb_offline', 'start the search service');
        },
      },
    ],
    [
      'an agent that threw anything else',
      {
        async *answer() {
          yield { type: 'text', text: 'Partly' };
          throw new RangeError('boom');
        },
      },
    ],
    [
      'the time limit',
      {
        async *answer({ signal }) {
          yield { type: 'text', text: 'Thinking' };
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
        },
      },
      { maxAnswerMs: 50 },
    ],
    ['an agent that ended without a word', { async *answer() {} }],
  ];

  it.each(cases)('%s: the end it had live, record for record', async (_, agent, options) => {
    const { live, again } = await liveThenReattached(agent, options);
    expect(live.at(-1)).toMatchObject({ type: 'error', stream_end: true });
    // Not the generic words a reattach gave every failure: the live reason, whatever it was.
    expect(again.at(-1)).toEqual(live.at(-1));
    expect(again.map((r) => r.type)).toEqual(live.map((r) => r.type));
  });

  /**
   * Alice's answer generating on a second instance on the same database, which says "Half "
   * and then dies (its lease row goes, and it never renews it).
   */
  async function lostAnswer() {
    const { ctx, storage } = await serviceWith(scriptedAgent().agent);
    const script = scriptedAgent();
    /** Another instance on the same bundle (its close keeps the bundle open). */
    const instance = (agent: Agent) => {
      const service = createAgentService({
        projects: [PROJECT],
        clock: ctx.clock,
        rateLimit: false,
        agent,
        storage: new Proxy(storage, {
          get: (target, name) => (name === 'close' ? async () => {} : target[name as keyof Stores]),
        }),
      });
      opened.push(service);
      return service;
    };
    const doomed = instance(script.agent);
    const second = instance(scriptedAgent().agent);
    const token = await ctx.session('alice');
    const chat = await doomed.handle(
      new Request(`${AGENT}/chat/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: JSON.stringify({ integration_id: 'int_demo', message: 'Where is my order?' }),
      }),
    );
    script.say('Half ');
    const live = chat.body!.getReader();
    const [head] = await readRecords(live, 2);
    await storage.fleet.retireInstance(doomed.instanceId);
    const answer = head.content.question_answer_id as string;
    /** A reattach through `s`; after an hour, with a new session of alice's (hers has expired). */
    const reattach = (s: AgentService = ctx.service, bearer = token) =>
      s.handle(
        new Request(`${AGENT}/answers/${answer}/stream/`, { headers: { Authorization: `Bearer ${bearer}` } }),
      );
    return { ctx, storage, doomed, second, answer, reattach, live };
  }

  it('a lost answer: the reattach that ends it, and every later one, say it is no longer generated', async () => {
    const { ctx, reattach } = await lostAnswer();
    const ending = await allRecords(await reattach());
    expect(ending.at(-1)).toEqual({ type: 'error', content: { reason: LOST_REASON }, stream_end: true });
    ctx.clock.advance(60 * 60_000);
    await ctx.service.maintain();
    const later = await ctx.session('alice');
    expect((await allRecords(await reattach(ctx.service, later))).at(-1)).toEqual(ending.at(-1));
  });

  it("a lost answer's own instance, shut down cleanly after another ended it: its stream ends as the reattach's, not with shutdown words", async () => {
    const { reattach, doomed, live } = await lostAnswer();
    // Its instance was retired: a reattach through a live one ends the answer as lost.
    const ending = (await allRecords(await reattach())).at(-1);
    expect(ending).toEqual({ type: 'error', content: { reason: LOST_REASON }, stream_end: true });
    // The instance was alive after all, and now shuts down cleanly: its own stream's end.
    await doomed.close();
    const rest = await readRecords(live, Number.POSITIVE_INFINITY);
    expect(rest.at(-1)).toEqual(ending);
  });

  it('a lost answer the maintenance ended: the same end as one a reattach ended', async () => {
    const { ctx, reattach } = await lostAnswer();
    ctx.clock.advance(60 * 60_000);
    expect(await ctx.service.maintain()).toMatchObject({ answers: 1 });
    const later = await ctx.session('alice');
    expect((await allRecords(await reattach(ctx.service, later))).at(-1)).toEqual({
      type: 'error',
      content: { reason: LOST_REASON },
      stream_end: true,
    });
  });

  /** The messages and failed answers Activity counts today (the rollup rebuilt first). */
  async function today(storage: Stores, now: number) {
    await storage.activity.refreshActivity();
    const { totals, byIntegration } = await storage.activity.activitySummary(
      PROJECT.id,
      utcDay(now),
      utcDay(now),
    );
    return {
      messages: totals.messages,
      failed: totals.failed_answers,
      byIntegration: byIntegration.map((i) => [i.integrationId, i.messages, i.failed_answers]),
    };
  }

  it('a lost answer counts as a message and as failed, once each, while both instances end it at once', async () => {
    const { ctx, storage, doomed, second, reattach } = await lostAnswer();
    // The two live instances reap, and reattach to it, at the same moment.
    const [, reattached] = await Promise.all([
      Promise.all([ctx.service.heartbeat(), second.heartbeat()]),
      Promise.all([reattach(ctx.service), reattach(second), reattach(ctx.service), reattach(second)]),
    ]);
    for (const response of reattached)
      expect((await allRecords(response)).at(-1)).toEqual({
        type: 'error',
        content: { reason: LOST_REASON },
        stream_end: true,
      });
    // As an answer that failed on its own instance: its question and its answer, one failed.
    expect(await today(storage, ctx.clock.now())).toEqual({
      messages: 2,
      failed: 1,
      byIntegration: [['int_demo', 2, 1]],
    });
    // The maintenance, and its instance waking to end it too, count nothing more.
    ctx.clock.advance(60 * 60_000);
    await ctx.service.maintain();
    await doomed.close();
    expect(await today(storage, ctx.clock.now())).toMatchObject({ messages: 2, failed: 1 });
  });

  it('a lost answer the visitor had asked to stop counts as a message, not as failed', async () => {
    const { ctx, storage, answer, reattach } = await lostAnswer();
    await storage.ledger.requestStop(answer);
    expect((await allRecords(await reattach())).at(-1)).toMatchObject({ type: 'identifiers' });
    expect(await today(storage, ctx.clock.now())).toEqual({
      messages: 2,
      failed: 0,
      byIntegration: [['int_demo', 2, 0]],
    });
  });

  it('an answer left waiting for tool results, ended by the maintenance, counts as a message, not as failed', async () => {
    const { ctx, storage } = await serviceWith({
      async *answer() {
        yield { type: 'tool_calls', calls: [{ id: 'call_1', name: 'open_page', arguments: {} }] };
      },
    });
    const token = await ctx.session('alice');
    const { records } = await chatRecords(ctx, token, { message: 'Open my order' });
    expect(records.at(-1)).toMatchObject({ type: 'tool_calls', stream_end: true });
    // Only its question so far: a paused answer has not ended.
    expect(await today(storage, ctx.clock.now())).toMatchObject({ messages: 1, failed: 0 });
    ctx.clock.advance(60 * 60_000);
    expect(await ctx.service.maintain()).toMatchObject({ answers: 1 });
    expect(await today(storage, ctx.clock.now())).toMatchObject({ messages: 2, failed: 0 });
  });
});
