import { describe, expect, it } from 'vitest';
import { type Agent } from '../../../../service/index.js';
import { errorBody, makeService, chatRecords, textOf, threadJson } from '../../../fixtures/service.js';

const OPEN_PAGE = {
  name: 'open_page',
  description: 'Opens a page of the site',
  parameters: { type: 'object', properties: { page: { type: 'string' } }, required: ['page'] },
};

describe('§7 client-side tools', () => {
  it('calls a declared tool the question asks for, then continues the same answer with its result', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = await chatRecords(ctx, token, { message: 'Open the pricing page', tools: [OPEN_PAGE] });
    const end = first.records.at(-1)!;
    expect(end.type).toBe('tool_calls');
    expect(end.stream_end).toBe(true);
    const [call] = end.content.tool_calls as {
      id: string;
      name: string;
      arguments: Record<string, unknown>;
    }[];
    expect(call).toEqual({ id: expect.any(String), name: 'open_page', arguments: { page: 'pricing' } });
    const threadId = first.records[0].content.thread_id as string;
    const answerId = first.records[0].content.question_answer_id;
    expect((await threadJson(ctx, token, threadId)).messages[1].status).toBe('streaming');

    const next = await chatRecords(ctx, token, {
      thread_id: threadId,
      tool_results: [{ tool_call_id: call.id, output: { opened: '/pricing' } }],
      tools: [OPEN_PAGE],
    });
    expect(next.records[0].content).toEqual({ thread_id: threadId, question_answer_id: answerId });
    expect(next.records.at(-1)?.type).toBe('identifiers');
    // In the tool's own terms, never its wire name.
    expect(textOf(next.records)).toBe('I opened the pricing page.');
    const detail = await threadJson(ctx, token, threadId);
    expect(detail.messages).toHaveLength(2);
    expect(detail.messages[1]).toMatchObject({
      status: 'complete',
      question_answer_id: answerId,
      tool_calls: [
        {
          id: call.id,
          name: 'open_page',
          arguments: { page: 'pricing' },
          status: 'completed',
          output: { opened: '/pricing' },
        },
      ],
    });
  });

  it('takes a refusal as an error result and says so', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = await chatRecords(ctx, token, { message: 'Open the pricing page', tools: [OPEN_PAGE] });
    const [call] = first.records.at(-1)!.content.tool_calls as { id: string }[];
    const next = await chatRecords(ctx, token, {
      thread_id: first.records[0].content.thread_id,
      tool_results: [{ tool_call_id: call.id, error: 'denied by the visitor' }],
    });
    expect(textOf(next.records)).toBe("OK, I won't open the pricing page.");
    const detail = await threadJson(ctx, token, first.records[0].content.thread_id as string);
    expect(detail.messages[1].tool_calls[0]).toMatchObject({
      status: 'error',
      error: 'denied by the visitor',
    });
  });

  it.each([
    ['a 33rd tool', { tools: Array.from({ length: 33 }, (_, i) => ({ ...OPEN_PAGE, name: `t${i}` })) }],
    ['a bad tool name', { tools: [{ ...OPEN_PAGE, name: 'open page' }] }],
    ['a long description', { tools: [{ ...OPEN_PAGE, description: 'x'.repeat(1025) }] }],
    ['parameters that are not an object', { tools: [{ ...OPEN_PAGE, parameters: 'none' }] }],
  ])('rejects %s with 400', async (_label, extra) => {
    const ctx = makeService();
    const { response } = await chatRecords(ctx, await ctx.session('alice'), { message: 'hi', ...extra });
    expect(response.status).toBe(400);
    expect((await errorBody(response)).code).toBe('invalid_request');
  });

  it('needs exactly one result for every pending call', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = await chatRecords(ctx, token, { message: 'Open the pricing page', tools: [OPEN_PAGE] });
    const threadId = first.records[0].content.thread_id;
    const [call] = first.records.at(-1)!.content.tool_calls as { id: string }[];
    for (const results of [
      [{ tool_call_id: 'call_other', output: 1 }],
      [
        { tool_call_id: call.id, output: 1 },
        { tool_call_id: call.id, output: 2 },
      ],
      [{ tool_call_id: call.id }],
    ]) {
      const { response } = await chatRecords(ctx, token, { thread_id: threadId, tool_results: results });
      expect(response.status).toBe(400);
    }
    // A thread with no paused answer has nothing to continue.
    const plain = await chatRecords(ctx, token, { message: 'How do I theme it?' });
    const { response } = await chatRecords(ctx, token, {
      thread_id: plain.records[0].content.thread_id,
      tool_results: [{ tool_call_id: call.id, output: 1 }],
    });
    expect(response.status).toBe(400);
  });

  it('ends the answer with an error record on a 9th tool round', async () => {
    const greedy: Agent = {
      async *answer({ rounds }) {
        yield { type: 'text', text: `round ${rounds.length + 1} ` };
        yield {
          type: 'tool_calls',
          calls: [{ id: `call_${rounds.length}`, name: 'open_page', arguments: {} }],
        };
      },
    };
    const ctx = makeService({ agent: greedy });
    const token = await ctx.session('alice');
    let { records } = await chatRecords(ctx, token, { message: 'loop', tools: [OPEN_PAGE] });
    const threadId = records[0].content.thread_id;
    for (let round = 1; round <= 8; round++) {
      expect(records.at(-1)?.type).toBe('tool_calls');
      const [call] = records.at(-1)!.content.tool_calls as { id: string }[];
      ({ records } = await chatRecords(ctx, token, {
        thread_id: threadId,
        tool_results: [{ tool_call_id: call.id, output: null }],
        tools: [OPEN_PAGE],
      }));
    }
    expect(records.at(-1)).toMatchObject({ type: 'error', stream_end: true });
    const detail = await threadJson(ctx, token, threadId as string);
    expect(detail.messages[1].status).toBe('error');
    expect(detail.messages[1].content).toBe(Array.from({ length: 9 }, (_, i) => `round ${i + 1} `).join(''));
  });

  it('lets only one of two simultaneous continuations run the answer on', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = await chatRecords(ctx, token, { message: 'Open the pricing page', tools: [OPEN_PAGE] });
    const [call] = first.records.at(-1)!.content.tool_calls as { id: string }[];
    const body = {
      thread_id: first.records[0].content.thread_id,
      tool_results: [{ tool_call_id: call.id, output: 1 }],
    };
    const statuses = (await Promise.all([chatRecords(ctx, token, body), chatRecords(ctx, token, body)]))
      .map((r) => r.response.status)
      .sort((a, b) => a - b);
    expect(statuses).toEqual([200, 400]);
  });

  it('ends an answer that waited more than 10 minutes for tool results as stopped', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = await chatRecords(ctx, token, { message: 'Open the pricing page', tools: [OPEN_PAGE] });
    const threadId = first.records[0].content.thread_id as string;
    const [call] = first.records.at(-1)!.content.tool_calls as { id: string }[];
    ctx.clock.advance(10 * 60_000 + 1);
    expect((await threadJson(ctx, token, threadId)).messages[1].status).toBe('stopped');
    const { response } = await chatRecords(ctx, token, {
      thread_id: threadId,
      tool_results: [{ tool_call_id: call.id, output: 1 }],
    });
    expect(response.status).toBe(400);
    expect((await ctx.service.maintain()).answers).toBe(0);
    expect((await ctx.service.storage.conversations.getThread(threadId))?.messages[1].status).toBe('stopped');
  });
});
