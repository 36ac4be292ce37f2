import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDocsFolder, OpenAiAgent } from '../../../../service/node.js';
import { AGENT, allRecords, makeService } from '../../../fixtures/service.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures');
const OPEN_PAGE = {
  name: 'open_page',
  description: 'Opens a page of the site',
  parameters: { type: 'object', properties: { page: { type: 'string' } } },
};

interface Seen {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    stream: boolean;
    messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: unknown[];
  };
}

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A local Chat Completions endpoint that replays recorded SSE streams, in `chunkSize`-byte pieces. */
async function fakeModel(streams: string[], chunkSize = 7) {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    seen.push({ headers: req.headers, body: JSON.parse(raw) });
    const name = streams[seen.length - 1];
    if (!name) return void res.writeHead(500).end('{"error":{"message":"no stream"}}');
    const text = await readFile(join(FIXTURES, 'openai', name), 'utf8');
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    // Split anywhere, even inside a line or a JSON string.
    for (let i = 0; i < text.length; i += chunkSize) res.write(text.slice(i, i + chunkSize));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

async function agentOver(streams: string[]) {
  const model = await fakeModel(streams);
  const docs = await loadDocsFolder(join(FIXTURES, 'docs'), 'https://example.test/docs');
  return {
    model,
    agent: new OpenAiAgent({ baseUrl: model.baseUrl, model: 'gpt-4o-mini', apiKey: 'sk-test', docs }),
  };
}

describe('OpenAiAgent (OpenAI-compatible streaming Chat Completions)', () => {
  it("answers from the retrieved docs with sources, streaming the model's deltas", async () => {
    const { model, agent } = await agentOver(['answer.sse']);
    const ctx = makeService({ agent });
    const token = await ctx.session('alice');
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'How do I change the accent color of the theme?' },
    });
    const records = await allRecords(response);
    expect(records.find((r) => r.type === 'relevant_sources')?.content.relevant_sources).toEqual([
      {
        title: 'Theming the widget',
        subtitle: null,
        source_url: 'https://example.test/docs/theming',
        source_type: 'documentation',
        section: null,
        score: expect.any(Number),
      },
    ]);
    expect(
      records
        .filter((r) => r.type === 'partial_answer')
        .map((r) => r.content.text)
        .join(''),
    ).toBe('Set `--agent-chat-color-accent` on the element.');
    expect(records.at(-1)?.type).toBe('identifiers');

    const [request] = model.seen;
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body).toMatchObject({ model: 'gpt-4o-mini', stream: true });
    // With docs, the model may search them again in its own words (decision 472).
    expect(request.body.tools).toMatchObject([{ type: 'function', function: { name: 'search_docs' } }]);
    expect(request.body.messages[0].role).toBe('system');
    expect(request.body.messages[0].content).toContain(
      '--agent-chat-color-accent` on the `agent-chat` element',
    );
    expect(request.body.messages[0].content).not.toContain('Pricing plans');
    expect(request.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'How do I change the accent color of the theme?',
    });
  });

  it('passes client tools as function tools and continues the answer with their results', async () => {
    const { model, agent } = await agentOver(['tool-call.sse', 'after-tool.sse']);
    const ctx = makeService({ agent });
    const token = await ctx.session('alice');
    const first = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: 'int_demo', message: 'Open the pricing page', tools: [OPEN_PAGE] },
      }),
    );
    expect(first.at(-1)).toEqual({
      type: 'tool_calls',
      content: { tool_calls: [{ id: 'call_abc123', name: 'open_page', arguments: { page: 'pricing' } }] },
      stream_end: true,
    });
    expect(model.seen[0].body.tools).toEqual([
      { type: 'function', function: OPEN_PAGE },
      { type: 'function', function: expect.objectContaining({ name: 'search_docs' }) },
    ]);

    const threadId = first[0].content.thread_id;
    const next = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: {
          integration_id: 'int_demo',
          thread_id: threadId,
          tool_results: [{ tool_call_id: 'call_abc123', output: { ok: true } }],
          tools: [OPEN_PAGE],
        },
      }),
    );
    expect(
      next
        .filter((r) => r.type === 'partial_answer')
        .map((r) => r.content.text)
        .join(''),
    ).toBe('I opened the pricing page.');
    expect(next.some((r) => r.type === 'relevant_sources')).toBe(false);
    // After the pause the model searches no more (decision 475).
    expect(model.seen[1].body.tools).toEqual([{ type: 'function', function: OPEN_PAGE }]);
    expect(model.seen[1].body.messages.slice(-3)).toEqual([
      { role: 'user', content: 'Open the pricing page' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_abc123',
            type: 'function',
            function: { name: 'open_page', arguments: '{"page":"pricing"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_abc123', content: '{"ok":true}' },
    ]);
  });

  it('ends with an error record when the model answers an error status', async () => {
    const { agent } = await agentOver([]);
    const ctx = makeService({ agent });
    const records = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token: await ctx.session('alice'),
        body: { integration_id: 'int_demo', message: 'theme colors' },
      }),
    );
    expect(records.at(-1)).toMatchObject({ type: 'error', stream_end: true });
  });

  it('flags an answer with no matching document as uncertain and cites nothing', async () => {
    const { model, agent } = await agentOver(['answer.sse']);
    const ctx = makeService({ agent });
    const records = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token: await ctx.session(),
        body: { integration_id: 'int_demo', message: 'Tell me about the weather in Paris' },
      }),
    );
    expect(records.some((r) => r.type === 'relevant_sources')).toBe(false);
    expect(records.find((r) => r.type === 'metadata')?.content).toEqual({ is_uncertain: true });
    expect(model.seen[0].body.messages[0].content).toContain('(no document matched this question)');
  });
});

describe("OpenAiAgent's search for a follow-up", () => {
  it("searches the docs with the thread's last question beside the new one", async () => {
    const model = await fakeModel(['answer.sse', 'answer.sse']);
    const searched: (string | undefined)[][] = [];
    const docs = {
      search: async (question: string, _limit?: number, earlier?: string) => {
        searched.push([question, earlier]);
        return [];
      },
    };
    const ctx = makeService({ agent: new OpenAiAgent({ baseUrl: model.baseUrl, model: 'm', docs }) });
    const token = await ctx.session('alice');
    const first = await ctx.chat(token, 'how do I back up the database?');
    await ctx.chat(token, 'and restore it?', first.threadId);
    expect(searched).toEqual([
      ['how do I back up the database?', undefined],
      ['and restore it?', 'how do I back up the database?'],
    ]);
  });
});
