import { describe, expect, it } from 'vitest';
import { type Agent, type AgentInput } from '../../../../service/index.js';
import {
  AGENT,
  PROJECT,
  chatRecords,
  errorBody,
  makeService,
  readRecords,
  scriptedAgent,
} from '../../../fixtures/service.js';

async function thread(ctx: ReturnType<typeof makeService>, token: string, id: string) {
  return (await ctx.call('GET', `${AGENT}/threads/${id}/`, { token })).json();
}

describe('chat (§4)', () => {
  it('streams stream_start first, sources, text deltas and identifiers last', async () => {
    const { session, chat } = makeService();
    const { events, text, threadId } = await chat(
      await session('alice'),
      'How do I theme the widget with CSS?',
    );
    const questionAnswerId = expect.stringMatching(/^msg_/);
    expect(events[0]).toEqual({
      type: 'start',
      threadId: expect.stringMatching(/^th_[0-9a-f]{32}$/),
      questionAnswerId,
    });
    // §9: the id in stream_start names the same answer the closing identifiers do.
    expect((events[0] as { questionAnswerId?: string }).questionAnswerId).toBe(
      (events.at(-1) as { questionAnswerId?: string }).questionAnswerId,
    );
    expect(events.findIndex((e) => e.type === 'sources')).toBeLessThan(
      events.findIndex((e) => e.type === 'delta'),
    );
    expect(events.at(-1)).toEqual({ type: 'end', threadId, questionAnswerId });
    expect(events.filter((e) => e.type === 'delta').length).toBeGreaterThan(0);
    expect(text).toContain('--agent-chat-color-accent');
  });

  it('coalesces the text of one answer per tick: one write, one partial_answer, for what came meanwhile', async () => {
    const script = scriptedAgent();
    const { session, call } = makeService({ agent: script.agent });
    const response = await call('POST', `${AGENT}/chat/`, {
      token: await session('alice'),
      body: { integration_id: 'int_demo', message: 'hi' },
    });
    const reader = response.body!.getReader();
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    const read = async () => chunks.push(decoder.decode((await reader.read()).value));
    await read(); // stream_start, at once
    script.say('One ');
    script.say('two ');
    script.say('three ');
    await read();
    expect(
      chunks[1]
        .split('\u241E')
        .filter(Boolean)
        .map((r) => JSON.parse(r).chunk),
    ).toEqual([{ type: 'partial_answer', content: { text: 'One two three ' }, stream_end: false }]);
    script.say('four.');
    script.end();
    await read();
    await read();
    expect(
      chunks
        .slice(2)
        .join('')
        .split('\u241E')
        .filter(Boolean)
        .map((r) => JSON.parse(r).chunk.type),
    ).toEqual(['partial_answer', 'identifiers']);
  });

  it('answers with text/plain; charset=utf-8, telling nginx not to buffer the stream', async () => {
    const { session, chat } = makeService();
    const { response } = await chat(await session(), 'hello');
    expect(response.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    // nginx buffers a proxied answer by default: without this the visitor sees it all at the end.
    expect(response.headers.get('X-Accel-Buffering')).toBe('no');
  });

  it('continues a thread and records both sides of each turn, oldest first', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = await ctx.chat(token, 'What is the session endpoint?');
    const second = await ctx.chat(token, 'And theming?', first.threadId);
    expect(second.threadId).toBe(first.threadId);
    const detail = await thread(ctx, token, first.threadId!);
    expect(detail.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(detail.messages[1]).toMatchObject({ content: first.text, status: 'complete' });
    expect(detail.messages[1].sources.length).toBeGreaterThan(0);
  });

  it.each([
    ['an empty message', { integration_id: 'int_demo', message: '   ' }, 400, 'invalid_request'],
    ['a missing message', { integration_id: 'int_demo' }, 400, 'invalid_request'],
    ['an unknown integration', { integration_id: 'int_nope', message: 'hi' }, 400, 'invalid_request'],
    [
      'a malformed thread_id',
      { integration_id: 'int_demo', message: 'hi', thread_id: '../../etc' },
      400,
      'invalid_request',
    ],
    [
      'a numeric thread_id',
      { integration_id: 'int_demo', message: 'hi', thread_id: 7 },
      400,
      'invalid_request',
    ],
    [
      'an unknown thread',
      { integration_id: 'int_demo', message: 'hi', thread_id: `th_${'0'.repeat(32)}` },
      404,
      'not_found',
    ],
    [
      'a message over 16,000 characters',
      { integration_id: 'int_demo', message: 'x'.repeat(16_001) },
      413,
      'payload_too_large',
    ],
  ])('rejects %s', async (_label, body, status, code) => {
    const { call, session } = makeService();
    const response = await call('POST', `${AGENT}/chat/`, { token: await session('alice'), body });
    expect(response.status).toBe(status);
    expect((await errorBody(response)).code).toBe(code);
  });

  it('names an unknown integration and where to check it, for the site owner reading the 400', async () => {
    // The visitor reads "Something went wrong"; the page's owner, in the answer or the
    // agent-chat-error event, what is wrong with the page (seen with a typo in WordPress's settings).
    const { call, session } = makeService();
    const token = await session('alice');
    const typo = await call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_typo', message: 'hi' },
    });
    expect((await errorBody(typo)).detail).toBe(
      'integration_id "int_typo" is not an integration of this project: check the page\'s integration-id against the console\'s Integrations page.',
    );
    const missing = await call('POST', `${AGENT}/chat/`, { token, body: { message: 'hi' } });
    expect((await errorBody(missing)).detail).toBe(
      "integration_id is missing: set the page's integration-id.",
    );
  });

  it('rejects malformed JSON with 400', async () => {
    const { call, session } = makeService();
    const response = await call('POST', `${AGENT}/chat/`, {
      token: await session('alice'),
      rawBody: '{"message": "hi"',
    });
    expect(response.status).toBe(400);
  });

  it('accepts a message of exactly 16,000 characters', async () => {
    const { chat, session } = makeService();
    const { response } = await chat(await session(), 'x'.repeat(16_000));
    expect(response.status).toBe(200);
  });

  it(
    "gives the agent a long thread's newest 200 messages as history, oldest first",
    { timeout: 60_000 },
    async () => {
      const inputs: AgentInput[] = [];
      const agent: Agent = {
        async *answer(input) {
          inputs.push(input);
          yield { type: 'text', text: `answer ${inputs.length}` };
        },
      };
      const { session, chat } = makeService({ agent });
      const token = await session('alice');
      let threadId: string | null = null;
      for (let i = 1; i <= 110; i++) threadId = (await chat(token, `question ${i}`, threadId)).threadId;
      await chat(token, 'question 111', threadId);
      const history = inputs.at(-1)!.history;
      expect(history).toHaveLength(200);
      expect(history.slice(0, 2).map((m) => m.content)).toEqual(['question 11', 'answer 11']);
      expect(history.slice(-2).map((m) => m.content)).toEqual(['question 110', 'answer 110']);
      // A short thread's history is all of it.
      expect(inputs[2].history.map((m) => m.content)).toEqual([
        'question 1',
        'answer 1',
        'question 2',
        'answer 2',
      ]);
    },
  );

  it('derives the title from the first message, at most 80 characters', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const long = `${'word '.repeat(40)}end`;
    const { threadId } = await ctx.chat(token, long);
    await ctx.chat(token, 'a later message', threadId);
    const detail = await thread(ctx, token, threadId!);
    expect(detail.title.length).toBeLessThanOrEqual(80);
    expect(detail.title.startsWith('word word')).toBe(true);
  });

  it('ends with an error record and keeps the partial answer when the agent fails', async () => {
    const failing: Agent = {
      async *answer() {
        yield { type: 'text', text: 'Partial ' };
        throw new Error('model crashed');
      },
    };
    const logs: unknown[] = [];
    const ctx = makeService({ agent: failing, log: (entry) => logs.push(entry) });
    const token = await ctx.session('alice');
    const { events, threadId } = await ctx.chat(token, 'hi');
    expect(events.at(-1)).toEqual({ type: 'error', reason: 'The agent could not finish this answer.' });
    const detail = await thread(ctx, token, threadId!);
    // Logged by name only (the model's message may quote the conversation), with the answer's ids.
    expect(logs).toEqual([
      {
        level: 'warn',
        msg: 'agent_failed',
        project: PROJECT.id,
        thread: threadId,
        answer: detail.messages[1].id,
        code: 'agent_threw',
        error: 'Error',
      },
    ]);
    expect(detail.messages[1]).toMatchObject({ role: 'assistant', content: 'Partial ', status: 'error' });
  });

  it('keeps generating after the client disconnects and stores the whole answer (§4, changed)', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const token = await ctx.session('alice');
    const controller = new AbortController();
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi' },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    script.say('Hello ');
    const [start] = await readRecords(reader, 2);
    controller.abort();
    await reader.cancel();
    script.say('there, ');
    script.say('friend.');
    script.end();
    const threadId = start.content.thread_id as string;
    await expect.poll(async () => (await thread(ctx, token, threadId)).messages[1]?.status).toBe('complete');
    expect((await thread(ctx, token, threadId)).messages[1].content).toBe('Hello there, friend.');
    expect(script.aborted()).toBe(0);
  });

  it('ignores a field of the chat body it does not know, as a newer widget of the same version may send one (decision 730)', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const { response, records } = await chatRecords(ctx, token, {
      message: 'How do I theme the widget with CSS?',
      a_later_release_field: { anything: true },
    });
    expect(response.status).toBe(200);
    expect(records.at(-1)).toMatchObject({ type: 'identifiers' });
  });
});
