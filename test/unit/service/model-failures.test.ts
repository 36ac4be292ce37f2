import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMarkdownDocs, OpenAiAgent, type OpenAiAgentOptions } from '../../../service/node.js';
import type { Agent, LogEntry } from '../../../service/index.js';
import { AgentError } from '../../../service/agents/types.js';
import { AGENT, PROJECT, QUERY, allRecords, makeService } from '../../fixtures/service.js';

/**
 * A scripted OpenAI-compatible upstream for what an off-the-shelf mock cannot produce: HTTP
 * errors with Retry-After, HTML error pages, errors and cuts mid-stream, malformed events, a
 * slow first token, tool-call deltas, usage chunks. Each request runs the next script (the last
 * one repeats).
 */
type Script = (res: ServerResponse, request: { body: Record<string, unknown>; socket: Socket }) => unknown;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function upstream(...scripts: Script[]) {
  const requests: Record<string, unknown>[] = [];
  const times: number[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as Record<string, unknown>;
    requests.push(body);
    times.push(Date.now());
    await scripts[Math.min(requests.length, scripts.length) - 1](res, { body, socket: req.socket });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, times };
}

const delta = (content: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const finish = (reason = 'stop') =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: reason }] })}\n\n`;
const usage = (prompt: number, completion: number) =>
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } })}\n\n`;
const DONE = 'data: [DONE]\n\n';
const SSE = { 'Content-Type': 'text/event-stream' };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A whole streamed answer of `words`, then usage and [DONE]. */
const answers =
  (words: string[], tokens: [number, number] = [100, 10]): Script =>
  (res) => {
    res.writeHead(200, SSE);
    for (const word of words) res.write(delta(word));
    res.end(finish() + usage(...tokens) + DONE);
  };
const status =
  (
    code: number,
    headers: Record<string, string> = {},
    body = '{"error":{"message":"nope","type":"server_error","code":"overloaded"}}',
  ): Script =>
  (res) => {
    res.writeHead(code, { 'Content-Type': 'application/json', ...headers }).end(body);
  };

const QUESTION = 'How do I change the accent color of the theme?';

async function setup(baseUrl: string, options: Partial<OpenAiAgentOptions> = {}) {
  const docs = await loadMarkdownDocs(
    join(import.meta.dirname, '../../fixtures/docs'),
    'https://example.test/docs',
  );
  const logs: LogEntry[] = [];
  const agent = new OpenAiAgent({
    baseUrl,
    model: 'test-model',
    docs,
    retryBaseMs: 20,
    log: (e) => logs.push(e),
    ...options,
  });
  const ctx = makeService({ agent, log: (e) => logs.push(e) });
  const token = await ctx.session('alice');
  async function ask(message = QUESTION, extra: Record<string, unknown> = {}, as = token) {
    const records = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token: as,
        body: { integration_id: 'int_demo', message, ...extra },
      }),
    );
    const threadId = records[0].content.thread_id as string;
    const stored = (await ctx.service.storage.conversations.getThread(threadId))!.messages.at(-1)!;
    const text = records
      .filter((r) => r.type === 'partial_answer')
      .map((r) => r.content.text)
      .join('');
    const steps = records
      .filter((r) => r.type === 'agent_activity_update')
      .map((r) => r.content as { id: string; status: string; summary: string });
    return { records, end: records.at(-1)!, stored, text, steps, threadId };
  }
  return { ctx, token, logs, ask };
}

describe('model agent: failures end as errors and keep the text', () => {
  it('an error event inside a 200 stream, after text: error record, text kept, stored as error', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.write(delta('Set the accent '));
      res.end(
        `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } })}\n\n`,
      );
    });
    const { ask, logs } = await setup(model.baseUrl);
    const { end, text, stored } = await ask();
    expect(text).toBe('Set the accent ');
    expect(end).toEqual({
      type: 'error',
      content: { reason: 'The assistant is not available right now. Please try again in a moment.' },
      stream_end: true,
    });
    expect(stored).toMatchObject({ status: 'error', content: 'Set the accent ' });
    // Text had streamed: retrying would say it twice.
    expect(model.requests).toHaveLength(1);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'agent_failed', code: 'model_stream_error' }));
    // The model's own message (which may quote the conversation) is never logged.
    expect(JSON.stringify(logs)).not.toContain('processing your request');
  });

  it('a stream cut mid-answer (the socket dies): error, text kept', async () => {
    const model = await upstream((res, { socket }) => {
      res.writeHead(200, SSE);
      res.write(delta('Half an '));
      res.write(delta('answer'));
      setTimeout(() => socket.destroy(), 30);
    });
    const { ask } = await setup(model.baseUrl);
    const { end, text, stored } = await ask();
    expect(text).toBe('Half an answer');
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The answer was cut off because the connection to the model broke.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: 'Half an answer' });
  });

  it('a stream that closes cleanly without [DONE] or a finish reason is cut, not complete', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.end(delta('Set the accent'));
    });
    const { ask } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end.type).toBe('error');
    expect(stored).toMatchObject({ status: 'error', content: 'Set the accent' });
  });

  it.each([
    ['an event that is not JSON', 'data: {"choices": [{"delta": {"content": "x"\n\n'],
    ['an event that is not an object', 'data: 42\n\n'],
    ['a line over 1 MiB', `data: ${'x'.repeat(1.1 * 1024 * 1024)}`],
  ])('malformed SSE (%s) after text: error, text kept', async (_name, bad) => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.write(delta('Before the break. '));
      res.end(bad);
    });
    const { ask } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end).toMatchObject({ type: 'error', stream_end: true });
    expect(stored).toMatchObject({ status: 'error', content: 'Before the break. ' });
  });

  it('finish_reason "length": the cut answer is an error, not a whole one', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.end(delta('A long answer that') + finish('length') + DONE);
    });
    const { ask } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: "The answer was cut off: it reached the model's length limit." },
    });
    expect(stored).toMatchObject({ status: 'error', content: 'A long answer that' });
  });

  it('an empty answer ([DONE] and nothing said) is an error', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.end(finish() + DONE);
    });
    const { ask } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end).toMatchObject({ type: 'error', content: { reason: 'The model sent an empty answer.' } });
    expect(stored.status).toBe('error');
  });

  it('a 200 that is an HTML page, not an event stream: error, with a hint for the operator', async () => {
    const model = await upstream((res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>Captive portal</html>'),
    );
    const { ask, logs } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end.type).toBe('error');
    expect(stored.status).toBe('error');
    expect(logs).toContainEqual(
      expect.objectContaining({
        code: 'model_not_streaming',
        hint: expect.stringContaining('OPENAI_BASE_URL'),
      }),
    );
  });

  it('a server that ignores stream:true and sends one JSON completion still answers', async () => {
    const model = await upstream((res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          choices: [
            { index: 0, message: { role: 'assistant', content: 'Whole answer.' }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 50, completion_tokens: 3 },
        }),
      ),
    );
    const { ask } = await setup(model.baseUrl);
    const { end, text, stored } = await ask();
    expect(text).toBe('Whole answer.');
    expect(end.type).toBe('identifiers');
    expect(stored.usage).toEqual({ promptTokens: 50, completionTokens: 3 });
  });
});

describe('model agent: retries before the first token', () => {
  it('429 with Retry-After: waits the seconds it says, then answers', async () => {
    const model = await upstream(
      status(
        429,
        { 'Retry-After': '1' },
        '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
      ),
      answers(['Set ', 'the accent.']),
    );
    const { ask, logs } = await setup(model.baseUrl);
    const { end, text, stored, steps } = await ask();
    expect(text).toBe('Set the accent.');
    expect(end.type).toBe('identifiers');
    expect(stored.status).toBe('complete');
    expect(model.requests).toHaveLength(2);
    expect(model.times[1] - model.times[0]).toBeGreaterThanOrEqual(950);
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'model_retry', status: 429, attempt: 1, delay_ms: 1000 }),
    );
    // The visitor was told, in plain words, and the step ends when the answer starts.
    expect(steps.filter((s) => s.id === 'model-1').map((s) => [s.status, s.summary])).toEqual([
      ['started', 'The assistant is busy; trying again…'],
      ['completed', 'Started answering after 1 s'],
    ]);
  });

  it('honours retry-after-ms and HTTP-date forms too', async () => {
    const model = await upstream(
      status(503, { 'retry-after-ms': '150' }),
      status(502, { 'Retry-After': new Date(Date.now() + 1000).toUTCString() }),
      answers(['ok']),
    );
    const { ask } = await setup(model.baseUrl);
    expect((await ask()).stored.status).toBe('complete');
    expect(model.times[1] - model.times[0]).toBeGreaterThanOrEqual(140);
    // An HTTP date has whole seconds: somewhere up to a second, never at once.
    expect(model.times[2] - model.times[1]).toBeGreaterThan(0);
  });

  it('an HTML 502 from a load balancer, then an answer: retried', async () => {
    const model = await upstream(
      (res) =>
        res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html><h1>502 Bad Gateway</h1></html>'),
      answers(['Fine now.']),
    );
    const { ask } = await setup(model.baseUrl);
    const { text, stored } = await ask();
    expect(text).toBe('Fine now.');
    expect(stored.status).toBe('complete');
    expect(model.requests).toHaveLength(2);
  });

  it('an error event before the first token that says busy is retried like a 429', async () => {
    const model = await upstream(
      (res) => {
        res.writeHead(200, SSE);
        res.end(
          `data: ${JSON.stringify({ error: { message: 'Rate limit', type: 'rate_limit_error', code: 'rate_limit_exceeded' } })}\n\n`,
        );
      },
      answers(['Second try.']),
    );
    const { ask } = await setup(model.baseUrl);
    expect((await ask()).text).toBe('Second try.');
    expect(model.requests).toHaveLength(2);
  });

  it('gives up after 3 tries: error, stored as error, no text', async () => {
    const model = await upstream(status(500));
    const { ask, logs } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(model.requests).toHaveLength(3);
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The assistant is not available right now. Please try again in a moment.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: '' });
    expect(logs.filter((e) => e.msg === 'model_retry').map((e) => e.attempt)).toEqual([1, 2]);
  });

  it('retries a refused connection, then ends as an error naming the setting to check', async () => {
    const gone = await upstream(answers(['never']));
    await closers.pop()!();
    const { ask, logs } = await setup(gone.baseUrl);
    const { end, stored } = await ask();
    expect(end.type).toBe('error');
    expect(stored.status).toBe('error');
    expect(logs.filter((e) => e.msg === 'model_retry')).toHaveLength(2);
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'agent_failed',
        code: 'model_unreachable',
        hint: expect.stringContaining('OPENAI_BASE_URL'),
      }),
    );
  });

  it('does not wait out a Retry-After longer than the limit: fails at once', async () => {
    const model = await upstream(status(429, { 'Retry-After': '120' }));
    const { ask } = await setup(model.baseUrl);
    const started = Date.now();
    const { end } = await ask();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The assistant is busy right now. Please try again in a minute.' },
    });
    expect(model.requests).toHaveLength(1);
  });

  it.each([
    [401, 'model_unauthorized', 'OPENAI_API_KEY'],
    [404, 'model_not_found', 'OPENAI_MODEL'],
    [400, 'model_rejected', 'AGENT_CHAT_MODEL_USAGE'],
  ])('does not retry %i, and tells the operator what to fix', async (code, logCode, setting) => {
    const model = await upstream(
      status(
        code,
        {},
        '{"error":{"message":"Incorrect API key provided: sk-…","type":"invalid_request_error","code":"invalid_api_key"}}',
      ),
    );
    const { ask, logs } = await setup(model.baseUrl);
    const { end } = await ask();
    expect(end.type).toBe('error');
    expect(model.requests).toHaveLength(1);
    const failed = logs.find((e) => e.msg === 'agent_failed')!;
    expect(failed).toMatchObject({ code: logCode, hint: expect.stringContaining(setting) });
    expect(failed.hint).toContain('invalid_api_key');
    expect(JSON.stringify(logs)).not.toContain('Incorrect API key');
  });

  it('never retries once text has streamed', async () => {
    const model = await upstream(
      (res, { socket }) => {
        res.writeHead(200, SSE);
        res.write(delta('Partial'));
        setTimeout(() => socket.destroy(), 20);
      },
      answers(['should not be asked']),
    );
    const { ask } = await setup(model.baseUrl);
    const { stored } = await ask();
    expect(model.requests).toHaveLength(1);
    expect(stored).toMatchObject({ status: 'error', content: 'Partial' });
  });
});

describe('model agent: a slow model', () => {
  it('tells the visitor it is still working, then ends as an error at the first-token timeout', async () => {
    const model = await upstream(async (res) => {
      res.writeHead(200, SSE);
      await wait(5_000);
      res.end(delta('too late') + finish() + DONE);
    });
    const { ask, logs } = await setup(model.baseUrl, {
      firstTokenTimeoutMs: 1_200,
      stillWorkingAfterMs: 200,
    });
    const started = Date.now();
    const { end, steps, stored, records } = await ask();
    expect(Date.now() - started).toBeLessThan(3_000);
    const wait1 = steps.filter((s) => s.id === 'model-1');
    expect(wait1.map((s) => [s.status, s.summary])).toEqual([
      ['started', 'Still working on it…'],
      ['error', "The answer didn't start in time"],
    ]);
    // The still-working record came before the end, while the visitor waited.
    expect(
      records.findIndex((r) => r.type === 'agent_activity_update' && r.content.id === 'model-1'),
    ).toBeLessThan(records.length - 1);
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The model did not start answering within 1 s.' },
    });
    expect(stored.status).toBe('error');
    expect(stored.activity.find((s) => s.id === 'model-1')?.status).toBe('error');
    expect(logs).toContainEqual(expect.objectContaining({ code: 'model_first_token_timeout' }));
  });

  it('a late but timely first token completes the still-working step and the answer', async () => {
    const model = await upstream(async (res) => {
      res.writeHead(200, SSE);
      await wait(600);
      res.end(delta('Here it is.') + finish() + DONE);
    });
    const { ask } = await setup(model.baseUrl, { stillWorkingAfterMs: 150 });
    const { steps, stored } = await ask();
    expect(steps.filter((s) => s.id === 'model-1').map((s) => s.status)).toEqual(['started', 'completed']);
    expect(stored).toMatchObject({ status: 'complete', content: 'Here it is.' });
  });

  it('a fast model shows no waiting step at all', async () => {
    const model = await upstream(answers(['Quick.']));
    const { ask } = await setup(model.baseUrl);
    expect((await ask()).steps.map((s) => s.id)).toEqual(['search-1', 'search-1']);
  });

  it('a stream that goes silent after it started ends at the stall timeout, text kept', async () => {
    const model = await upstream(async (res) => {
      res.writeHead(200, SSE);
      res.write(delta('Started, then'));
      await wait(5_000);
      res.end(DONE);
    });
    const { ask } = await setup(model.baseUrl, { stallTimeoutMs: 400 });
    const { end, stored } = await ask();
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The answer stopped: the model sent nothing for 1 s.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: 'Started, then' });
  });

  it('a cancel during the wait stops the answer as stopped, not error', async () => {
    const model = await upstream(async (res) => {
      res.writeHead(200, SSE);
      await wait(5_000);
      res.end(DONE);
    });
    const { ctx, token } = await setup(model.baseUrl, { stillWorkingAfterMs: 100 });
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: QUESTION },
    });
    const reader = response.body!.getReader();
    const first = JSON.parse(new TextDecoder().decode((await reader.read()).value).split('\u241E')[0]).chunk;
    await wait(300);
    expect(
      (await ctx.call('POST', `${AGENT}/answers/${first.content.question_answer_id}/cancel/`, { token }))
        .status,
    ).toBe(204);
    const stored = (await ctx.service.storage.conversations.getThread(first.content.thread_id))!.messages.at(
      -1,
    )!;
    expect(stored.status).toBe('stopped');
    await reader.cancel();
  });
});

describe('model agent: tool calls and usage', () => {
  it('assembles tool-call deltas of two calls, sums usage over the tool round, and reports it per day', async () => {
    const toolStream: Script = (res) => {
      res.writeHead(200, SSE);
      const part = (tool_calls: unknown[]) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls }, finish_reason: null }] })}\n\n`;
      res.write(
        part([{ index: 0, id: 'call_a', type: 'function', function: { name: 'open_page', arguments: '' } }]),
      );
      res.write(
        part([{ index: 1, id: 'call_b', type: 'function', function: { name: 'open_', arguments: '{"pa' } }]),
      );
      res.write(
        part([
          { index: 0, function: { arguments: '{"page":"pri' } },
          { index: 1, function: { name: 'page', arguments: 'ge":"team"}' } },
        ]),
      );
      res.write(part([{ index: 0, function: { arguments: 'cing"}' } }]));
      // A call of a tool the page never offered is dropped.
      res.write(
        part([
          { index: 2, id: 'call_x', type: 'function', function: { name: 'delete_account', arguments: '{}' } },
        ]),
      );
      res.end(finish('tool_calls') + usage(900, 40) + DONE);
    };
    const model = await upstream(toolStream, answers(['I opened both pages.'], [1000, 12]));
    const { ctx, token, ask } = await setup(model.baseUrl);
    const tools = [
      {
        name: 'open_page',
        description: 'Opens a page',
        parameters: { type: 'object', properties: { page: { type: 'string' } } },
      },
    ];
    const first = await ask('Open the pricing and team pages', { tools });
    expect(first.end).toEqual({
      type: 'tool_calls',
      stream_end: true,
      content: {
        tool_calls: [
          { id: 'call_a', name: 'open_page', arguments: { page: 'pricing' } },
          { id: 'call_b', name: 'open_page', arguments: { page: 'team' } },
        ],
      },
    });
    expect((model.requests[0].stream_options as { include_usage: boolean }).include_usage).toBe(true);
    expect(first.stored.usage).toEqual({ promptTokens: 900, completionTokens: 40 });

    const next = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: {
          integration_id: 'int_demo',
          thread_id: first.threadId,
          tools,
          tool_results: [
            { tool_call_id: 'call_a', output: { ok: true } },
            { tool_call_id: 'call_b', output: { ok: true } },
          ],
        },
      }),
    );
    expect(next.at(-1)?.type).toBe('identifiers');
    const stored = (await ctx.service.storage.conversations.getThread(first.threadId))!.messages.at(-1)!;
    expect(stored).toMatchObject({ status: 'complete', usage: { promptTokens: 1900, completionTokens: 52 } });

    ctx.clock.advance(86_400_000);
    await ask('And the theme?', {}, await ctx.session('alice'));
    await ctx.service.refreshActivity();
    const report = await (
      await ctx.call('GET', `${QUERY}/activity/?start=2026-11-21&end=2026-11-22`, { apiKey: PROJECT.apiKey })
    ).json();
    expect(report.totals).toMatchObject({ prompt_tokens: 2900, completion_tokens: 64 });
    expect(
      report.by_day.map((d: { prompt_tokens: number; completion_tokens: number }) => [
        d.prompt_tokens,
        d.completion_tokens,
      ]),
    ).toEqual([
      [1900, 52],
      [1000, 12],
    ]);
  });

  it('does not ask for usage when told not to, and an answer without usage counts 0', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.end(delta('No usage here.') + finish() + DONE);
    });
    const { ctx, ask } = await setup(model.baseUrl, { usage: false });
    const { stored } = await ask();
    expect(model.requests[0].stream_options).toBeUndefined();
    expect(stored.status).toBe('complete');
    expect(stored.usage).toBeUndefined();
    await ctx.service.refreshActivity();
    const report = await (
      await ctx.call('GET', `${QUERY}/activity/?start=2026-11-21&end=2026-11-21`, { apiKey: PROJECT.apiKey })
    ).json();
    expect(report.totals).toMatchObject({ prompt_tokens: 0, completion_tokens: 0 });
  });
});

describe('the answer runner never hides a failure', () => {
  const run = async (agent: Agent) => {
    const logs: LogEntry[] = [];
    const ctx = makeService({ agent, log: (e) => logs.push(e) });
    const token = await ctx.session('alice');
    const records = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: 'int_demo', message: 'hi' },
      }),
    );
    const stored = (await ctx.service.storage.conversations.getThread(
      records[0].content.thread_id as string,
    ))!.messages.at(-1)!;
    return { end: records.at(-1)!, stored, logs };
  };

  it('an agent that ends quietly without a word is an error, not an empty complete answer', async () => {
    const { end, stored } = await run({ async *answer() {} });
    expect(end).toEqual({
      type: 'error',
      content: { reason: 'The agent ended without an answer.' },
      stream_end: true,
    });
    expect(stored.status).toBe('error');
  });

  it('an AgentError ends with its own reason, keeps the text and logs its code and hint', async () => {
    const { end, stored, logs } = await run({
      async *answer() {
        yield { type: 'text', text: 'So far, ' };
        throw new AgentError('The knowledge base is offline.', 'kb_offline', 'start the search service');
      },
    });
    expect(end).toEqual({
      type: 'error',
      content: { reason: 'The knowledge base is offline.' },
      stream_end: true,
    });
    expect(stored).toMatchObject({ status: 'error', content: 'So far, ' });
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'agent_failed', code: 'kb_offline', hint: 'start the search service' }),
    );
  });

  it('any other exception ends with a generic reason and logs only its name', async () => {
    const { end, stored, logs } = await run({
      async *answer() {
        yield { type: 'text', text: 'Partly' };
        throw new RangeError('the visitor asked about secret-project-x');
      },
    });
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The agent could not finish this answer.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: 'Partly' });
    expect(JSON.stringify(logs)).not.toContain('secret-project-x');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'agent_failed', error: 'RangeError' }));
  });
});
