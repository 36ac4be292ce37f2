import { describe, expect, it } from 'vitest';
import { type Agent, type AgentOutput } from '../../../../service/index.js';
import {
  AGENT,
  allRecords,
  makeService,
  chatRecords,
  readRecords,
  scriptedAgent,
  threadJson,
} from '../../../fixtures/service.js';

describe('§9 reattach and cancel', () => {
  it('replays what an answer has so far, then follows it live to the end', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const token = await ctx.session('alice');
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi' },
    });
    const reader = response.body!.getReader();
    script.say('One ');
    script.say('two ');
    // Both words came within one tick: one partial_answer.
    const [start, partial] = await readRecords(reader, 2);
    expect(partial.content.text).toBe('One two ');
    await reader.cancel(); // the page reloads
    const answerId = start.content.question_answer_id as string;

    const again = await ctx.call('GET', `${AGENT}/answers/${answerId}/stream/`, { token });
    expect(again.status).toBe(200);
    const replay = again.body!.getReader();
    const replayed = await readRecords(replay, 2);
    expect(replayed).toEqual([
      {
        type: 'stream_start',
        content: { thread_id: start.content.thread_id, question_answer_id: answerId },
        stream_end: false,
      },
      { type: 'partial_answer', content: { text: 'One two ' }, stream_end: false },
    ]);
    script.say('three.');
    script.end();
    const rest = await readRecords(replay, Number.POSITIVE_INFINITY);
    expect(rest.map((r) => r.type)).toEqual(['partial_answer', 'identifiers']);
    expect(rest[0].content.text).toBe('three.');

    const ended = await allRecords(await ctx.call('GET', `${AGENT}/answers/${answerId}/stream/`, { token }));
    expect(ended.map((r) => r.type)).toEqual(['stream_start', 'partial_answer', 'identifiers']);
    expect(ended[1].content.text).toBe('One two three.');
  });

  it('cancel stops generating, keeps the text as stopped, ends attached streams with identifiers, and is idempotent', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const token = await ctx.session('alice');
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi' },
    });
    const reader = response.body!.getReader();
    script.say('Partial ');
    const [start] = await readRecords(reader, 2);
    const answerId = start.content.question_answer_id as string;
    const cancel = () => ctx.call('POST', `${AGENT}/answers/${answerId}/cancel/`, { token });
    expect((await cancel()).status).toBe(204);
    expect(script.aborted()).toBe(1);
    expect((await readRecords(reader, Number.POSITIVE_INFINITY)).map((r) => r.type)).toEqual(['identifiers']);
    const detail = await threadJson(ctx, token, start.content.thread_id as string);
    expect(detail.messages[1]).toMatchObject({ content: 'Partial ', status: 'stopped' });
    expect((await cancel()).status).toBe(204);
    expect((await threadJson(ctx, token, start.content.thread_id as string)).messages[1].status).toBe(
      'stopped',
    );
  });

  it('cancels even an agent that ignores its signal', async () => {
    const stubborn: Agent = {
      async *answer() {
        yield { type: 'text', text: 'Never ' } satisfies AgentOutput;
        await new Promise(() => {});
      },
    };
    const ctx = makeService({ agent: stubborn });
    const token = await ctx.session('alice');
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi' },
    });
    const [start] = await readRecords(response.body!.getReader(), 2);
    expect(
      (
        await ctx.call('POST', `${AGENT}/answers/${start.content.question_answer_id as string}/cancel/`, {
          token,
        })
      ).status,
    ).toBe(204);
    expect((await threadJson(ctx, token, start.content.thread_id as string)).messages[1]).toMatchObject({
      content: 'Never ',
      status: 'stopped',
    });
  });

  it('stops an answer cancelled as soon as its stream started, before its agent may have begun', async () => {
    // An agent that ignores its signal: only the service can end this answer.
    const stubborn: Agent = {
      async *answer() {
        await new Promise(() => {});
        yield { type: 'text', text: 'never' } satisfies AgentOutput;
      },
    };
    const ctx = makeService({ agent: stubborn });
    const token = await ctx.session('alice');
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi' },
    });
    const reader = response.body!.getReader();
    const [start] = await readRecords(reader, 1);
    expect(
      (
        await ctx.call('POST', `${AGENT}/answers/${start.content.question_answer_id as string}/cancel/`, {
          token,
        })
      ).status,
    ).toBe(204);
    expect((await readRecords(reader, Number.POSITIVE_INFINITY)).map((r) => r.type)).toEqual(['identifiers']);
    expect((await threadJson(ctx, token, start.content.thread_id as string)).messages[1]).toMatchObject({
      content: '',
      status: 'stopped',
    });
  });

  it('shows an answer still generating as streaming in the resumed thread', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const token = await ctx.session('alice');
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi' },
    });
    const [start] = await readRecords(response.body!.getReader(), 1);
    expect((await threadJson(ctx, token, start.content.thread_id as string)).messages[1].status).toBe(
      'streaming',
    );
    script.end();
  });

  it('ends an answer that generates past its limit with an error record', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent, maxAnswerMs: 50 });
    const token = await ctx.session('alice');
    const { records } = await chatRecords(ctx, token, { message: 'hi' });
    expect(records.at(-1)).toMatchObject({ type: 'error', stream_end: true });
    expect((await threadJson(ctx, token, records[0].content.thread_id as string)).messages[1].status).toBe(
      'error',
    );
  });

  it('answers 404 for an answer another owner asks about, and for unknown ids', async () => {
    const ctx = makeService();
    const { records } = await chatRecords(ctx, await ctx.session('alice'), { message: 'hi' });
    const bob = await ctx.session('bob');
    const anonymous = await ctx.session();
    const id = records[0].content.question_answer_id as string;
    for (const token of [bob, anonymous]) {
      expect((await ctx.call('GET', `${AGENT}/answers/${id}/stream/`, { token })).status).toBe(404);
      expect((await ctx.call('POST', `${AGENT}/answers/${id}/cancel/`, { token })).status).toBe(404);
    }
    expect(
      (await ctx.call('GET', `${AGENT}/answers/msg_${'0'.repeat(32)}/stream/`, { token: bob })).status,
    ).toBe(404);
  });
});
