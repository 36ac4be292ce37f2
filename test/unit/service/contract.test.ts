import { describe, expect, it } from 'vitest';
import { DemoAgent, type Agent, type AgentOutput } from '../../../service/index.js';
import {
  AGENT,
  PROJECT,
  QUERY,
  allRecords,
  errorBody,
  makeService,
  readRecords,
  scriptedAgent,
} from '../../fixtures/service.js';

const OPEN_PAGE = {
  name: 'open_page',
  description: 'Opens a page of the site',
  parameters: { type: 'object', properties: { page: { type: 'string' } }, required: ['page'] },
};

type Ctx = ReturnType<typeof makeService>;

async function chatRecords(ctx: Ctx, token: string, body: Record<string, unknown>) {
  const response = await ctx.call('POST', `${AGENT}/chat/`, {
    token,
    body: { integration_id: 'int_demo', ...body },
  });
  return { response, records: response.ok ? await allRecords(response) : [] };
}

async function thread(ctx: Ctx, token: string, id: string) {
  return (await ctx.call('GET', `${AGENT}/threads/${id}/`, { token })).json();
}

const textOf = (records: { type: string; content: Record<string, unknown> }[]) =>
  records
    .filter((r) => r.type === 'partial_answer')
    .map((r) => r.content.text)
    .join('');

describe('§4 records: stream_start names the answer; activity updates', () => {
  it('sends question_answer_id in stream_start, the same id as in identifiers', async () => {
    const ctx = makeService();
    const { records } = await chatRecords(ctx, await ctx.session('alice'), {
      message: 'How do I theme the widget?',
    });
    expect(records[0]).toEqual({
      type: 'stream_start',
      content: { thread_id: expect.any(String), question_answer_id: expect.stringMatching(/^msg_/) },
      stream_end: false,
    });
    expect(records.at(-1)?.content.question_answer_id).toBe(records[0].content.question_answer_id);
  });

  it("reports the demo agent's search as agent_activity_update records, upserted by id", async () => {
    const ctx = makeService();
    const { records } = await chatRecords(ctx, await ctx.session('alice'), {
      message: 'How do I theme the widget?',
    });
    const updates = records.filter((r) => r.type === 'agent_activity_update').map((r) => r.content);
    expect(updates).toEqual([
      expect.objectContaining({
        id: 'search-1',
        name: 'search_knowledge_base',
        status: 'started',
        num_results: null,
      }),
      expect.objectContaining({
        id: 'search-1',
        name: 'search_knowledge_base',
        status: 'completed',
        num_results: expect.any(Number),
      }),
    ]);
  });

  it('sends metadata is_uncertain when the agent says so, and keeps it on the stored answer', async () => {
    const unsure: Agent = {
      async *answer() {
        yield { type: 'uncertain' } satisfies AgentOutput;
        yield { type: 'text', text: 'Maybe.' } satisfies AgentOutput;
      },
    };
    const ctx = makeService({ agent: unsure });
    const token = await ctx.session('alice');
    const { records } = await chatRecords(ctx, token, { message: 'hi' });
    expect(records.find((r) => r.type === 'metadata')?.content).toEqual({ is_uncertain: true });
    const detail = await thread(ctx, token, records[0].content.thread_id as string);
    expect(detail.messages[1].is_uncertain).toBe(true);
  });
});

describe('the demo agent is honest', () => {
  it('answers an off-topic question with "I couldn\'t find that in the docs" and no sources', async () => {
    const ctx = makeService();
    const { records } = await chatRecords(ctx, await ctx.session(), {
      message: 'Tell me about the weather in Paris',
    });
    expect(records.some((r) => r.type === 'relevant_sources')).toBe(false);
    expect(textOf(records)).toMatch(/^I couldn't find that in the docs\./);
  });

  it('still answers a short on-topic follow-up', () => {
    expect(new DemoAgent().search('And theming?')[0]?.id).toBe('theming');
  });
});

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
    expect((await thread(ctx, token, threadId)).messages[1].status).toBe('streaming');

    const next = await chatRecords(ctx, token, {
      thread_id: threadId,
      tool_results: [{ tool_call_id: call.id, output: { opened: '/pricing' } }],
      tools: [OPEN_PAGE],
    });
    expect(next.records[0].content).toEqual({ thread_id: threadId, question_answer_id: answerId });
    expect(next.records.at(-1)?.type).toBe('identifiers');
    // In the tool's own terms, never its wire name.
    expect(textOf(next.records)).toBe('I opened the pricing page.');
    const detail = await thread(ctx, token, threadId);
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
    const detail = await thread(ctx, token, first.records[0].content.thread_id as string);
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
    const detail = await thread(ctx, token, threadId as string);
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
    expect((await thread(ctx, token, threadId)).messages[1].status).toBe('stopped');
    const { response } = await chatRecords(ctx, token, {
      thread_id: threadId,
      tool_results: [{ tool_call_id: call.id, output: 1 }],
    });
    expect(response.status).toBe(400);
    expect((await ctx.service.maintain()).answers).toBe(0);
    expect((await ctx.service.storage.conversations.getThread(threadId))?.messages[1].status).toBe('stopped');
  });
});

describe('§8 feedback', () => {
  async function answered(ctx: Ctx, token: string) {
    const { records } = await chatRecords(ctx, token, { message: 'How do I theme the widget?' });
    return {
      threadId: records[0].content.thread_id as string,
      answerId: records[0].content.question_answer_id as string,
    };
  }

  it("keeps the owner's latest reaction, shown on the resumed thread across sessions", async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const { threadId, answerId } = await answered(ctx, token);
    const send = (t: string, reaction: string, comment: unknown = null) =>
      ctx.call('POST', `${AGENT}/feedback/`, {
        token: t,
        body: { question_answer_id: answerId, reaction, comment },
      });
    expect((await send(token, 'upvote')).status).toBe(204);
    expect((await send(token, 'downvote', { incorrect: true, issue: 'Outdated' })).status).toBe(204);
    const later = await ctx.session('alice');
    const detail = await thread(ctx, later, threadId);
    expect(detail.messages[1]).toMatchObject({ question_answer_id: answerId, reaction: 'downvote' });
    expect(detail.messages[0].reaction).toBeUndefined();

    await ctx.service.refreshActivity();
    const report = await (await ctx.call('GET', `${QUERY}/activity/`, { apiKey: PROJECT.apiKey })).json();
    expect(report.totals).toMatchObject({ upvotes: 0, downvotes: 1 });
    expect(report.by_day.at(-1)).toMatchObject({ upvotes: 0, downvotes: 1 });
  });

  it('answers 404 for an answer of another owner and 400 for a bad body', async () => {
    const ctx = makeService();
    const { answerId } = await answered(ctx, await ctx.session('alice'));
    const bob = await ctx.session('bob');
    const other = await ctx.call('POST', `${AGENT}/feedback/`, {
      token: bob,
      body: { question_answer_id: answerId, reaction: 'upvote' },
    });
    expect(other.status).toBe(404);
    for (const body of [
      { question_answer_id: answerId, reaction: 'meh' },
      { question_answer_id: answerId, reaction: 'upvote', comment: { issue: 'x'.repeat(2001) } },
    ]) {
      expect((await ctx.call('POST', `${AGENT}/feedback/`, { token: bob, body })).status).toBe(400);
    }
  });
});

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
    const detail = await thread(ctx, token, start.content.thread_id as string);
    expect(detail.messages[1]).toMatchObject({ content: 'Partial ', status: 'stopped' });
    expect((await cancel()).status).toBe(204);
    expect((await thread(ctx, token, start.content.thread_id as string)).messages[1].status).toBe('stopped');
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
    expect((await thread(ctx, token, start.content.thread_id as string)).messages[1]).toMatchObject({
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
    expect((await thread(ctx, token, start.content.thread_id as string)).messages[1]).toMatchObject({
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
    expect((await thread(ctx, token, start.content.thread_id as string)).messages[1].status).toBe(
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
    expect((await thread(ctx, token, records[0].content.thread_id as string)).messages[1].status).toBe(
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

describe('§10 rename', () => {
  it('renames a thread, trimmed, without changing the list order', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const older = (await chatRecords(ctx, token, { message: 'first' })).records[0].content
      .thread_id as string;
    ctx.clock.advance(1000);
    const newer = (await chatRecords(ctx, token, { message: 'second' })).records[0].content
      .thread_id as string;
    const response = await ctx.call('PATCH', `${AGENT}/threads/${older}/`, {
      token,
      body: { title: '  My   pricing notes ' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: older,
      title: 'My pricing notes',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const list = await (await ctx.call('GET', `${AGENT}/threads/`, { token })).json();
    expect(list.threads.map((t: { id: string }) => t.id)).toEqual([newer, older]);
  });

  it.each([
    ['empty', '   '],
    ['81 characters', 'x'.repeat(81)],
    ['not a string', 7],
  ])('rejects a title that is %s', async (_label, title) => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const id = (await chatRecords(ctx, token, { message: 'first' })).records[0].content.thread_id as string;
    expect((await ctx.call('PATCH', `${AGENT}/threads/${id}/`, { token, body: { title } })).status).toBe(400);
  });

  it("answers 404 for another owner's thread and 403 without owner", async () => {
    const ctx = makeService();
    const id = (await chatRecords(ctx, await ctx.session('alice'), { message: 'first' })).records[0].content
      .thread_id as string;
    expect(
      (
        await ctx.call('PATCH', `${AGENT}/threads/${id}/`, {
          token: await ctx.session('bob'),
          body: { title: 'mine' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await ctx.call('PATCH', `${AGENT}/threads/${id}/`, {
          token: await ctx.session(),
          body: { title: 'mine' },
        })
      ).status,
    ).toBe(403);
  });
});

describe('§2 owner key', () => {
  async function ownerKey(ctx: Ctx, owner?: string) {
    const response = await ctx.call('POST', `${AGENT}/sessions/`, {
      apiKey: PROJECT.apiKey,
      body: owner === undefined ? undefined : { external_owner_id: owner },
    });
    return response.headers.get('Agent-Chat-Owner-Key');
  }

  it('is stable for an owner, differs between owners, reveals nothing and is "-" without owner', async () => {
    const ctx = makeService();
    const alice = await ownerKey(ctx, 'alice@example.com');
    expect(alice).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await ownerKey(ctx, 'alice@example.com')).toBe(alice);
    expect(await ownerKey(ctx, 'bob@example.com')).not.toBe(alice);
    expect(alice).not.toContain('alice');
    expect(await ownerKey(ctx)).toBe('-');
  });
});
