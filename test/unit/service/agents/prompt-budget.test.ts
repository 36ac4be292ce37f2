import { describe, expect, it } from 'vitest';
import {
  AgentError,
  type AgentInput,
  type AgentOutput,
  type ToolRound,
} from '../../../../service/agents/types.js';
import { OpenAiAgent, type OpenAiAgentOptions } from '../../../../service/agents/openai.js';
import { estimateTokens } from '../../../../service/agents/history-budget.js';
import { extractHtml } from '../../../../service/docs/html.js';
import { StaticDocs } from '../../../../service/docs/ranking.js';
import type { Section } from '../../../../service/docs/types.js';
import { messageRecord } from '../../../fixtures/records.js';

const LIMIT = 64 * 1024;
const paragraph = (i: number) =>
  i % 10
    ? `Topic ${i} covers vacuum, statistics and planner settings of table ${i}, nothing else. `.repeat(8)
    : `Replication slot ${i} keeps the write-ahead log a standby still needs; drop an unused slot or the disk fills up. `.repeat(
        8,
      );

/** A 1.6 MB page (the crawler indexes pages up to 2 MB) of 200 sections, one in ten about the question's words (read once: it takes a second). */
let huge: { sections: Section[]; docs: StaticDocs } | undefined;
function hugePage() {
  if (!huge) {
    const sections = readHugePage();
    huge = { sections, docs: new StaticDocs(sections) };
  }
  return huge;
}
function readHugePage(): Section[] {
  const body = Array.from(
    { length: 200 },
    (_, i) => `<h2 id="topic-${i}">Topic ${i}</h2><p>${paragraph(i).repeat(8)}</p>`,
  ).join('');
  return extractHtml(`<title>Huge</title><main><h1>Huge</h1>${body}</main>`, 'https://docs.test/huge')
    .sections;
}

/** Everything the agent yields for the disk question (or `input`), in order. */
async function answered(agent: OpenAiAgent, input: Partial<AgentInput> = {}): Promise<AgentOutput[]> {
  const outputs: AgentOutput[] = [];
  for await (const output of agent.answer({
    message: 'why does my disk fill up with replication slot data',
    history: [],
    tools: [],
    rounds: [],
    partial: '',
    signal: new AbortController().signal,
    ...input,
  }))
    outputs.push(output);
  return outputs;
}

/** Runs the agent once with a recording fetch: the request body it sent and what it yielded. */
async function ask(
  options: Partial<OpenAiAgentOptions> & Pick<OpenAiAgentOptions, 'docs'>,
  input: Partial<AgentInput> = {},
) {
  let body = '';
  const agent = new OpenAiAgent({
    baseUrl: 'http://model.test/v1',
    model: 'm',
    fetch: async (_url, init) => {
      body = typeof init?.body === 'string' ? init.body : '';
      return new Response(
        'data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
        {
          headers: { 'Content-Type': 'text/event-stream' },
        },
      );
    },
    ...options,
  });
  const outputs = await answered(agent, input);
  const bytes = new TextEncoder().encode(body).length;
  const request = JSON.parse(body) as { messages: { role: string; content: string | null }[] };
  return { bytes, request, outputs };
}

describe('what goes upstream stays bounded, whatever the docs are', () => {
  it('sends the best sections of a 1.6 MB page up to the document budget, never the page', async () => {
    const { sections, docs } = hugePage();
    expect(sections.every((s) => s.text.length <= 4_000)).toBe(true);
    const { bytes, request, outputs } = await ask({ docs });
    expect(bytes).toBeLessThanOrEqual(LIMIT);
    const documents = request.messages[0].content!.split('# Documents\n\n')[1];
    expect(estimateTokens(documents)).toBeLessThanOrEqual(6_000 + 50);
    expect(documents.length).toBeGreaterThan(10_000);
    const sources = outputs.find((o) => o.type === 'sources');
    expect(sources?.type === 'sources' && sources.sources).toHaveLength(1);
  });

  it('takes a smaller document budget when configured', async () => {
    const { request } = await ask({ docs: hugePage().docs, docsTokens: 1_000 });
    const documents = request.messages[0].content!.split('# Documents\n\n')[1];
    expect(estimateTokens(documents)).toBeLessThanOrEqual(1_000);
  });

  it('keeps a request of sections in a 3-byte script and a long history under 64 KB, newest turns first', async () => {
    const cjk = Array.from({ length: 40 }, (_, i) => ({
      url: `https://docs.test/cjk#s${i}`,
      pageUrl: 'https://docs.test/cjk',
      title: '複製スロット',
      headings: [`複製スロット ${i}`],
      text: `replication slot disk ${'複製スロットはディスクを使います。'.repeat(200)}`,
    }));
    const history = Array.from({ length: 120 }, (_, i) =>
      messageRecord({
        id: `m${i}`,
        role: i % 2 ? 'assistant' : 'user',
        content: `${i % 2 ? 'answer' : 'question'} ${i} ${'履歴'.repeat(1_000)}`,
        createdAt: i * 1000,
      }),
    );
    const { bytes, request } = await ask(
      { docs: new StaticDocs(cjk), historyTokens: 1_000_000 },
      { history },
    );
    expect(bytes).toBeLessThanOrEqual(LIMIT);
    const earlier = request.messages.slice(1, -1);
    expect(earlier.length).toBeGreaterThan(0);
    expect(earlier.at(-1)!.content).toContain('answer 119');
    expect(earlier[0].role).toBe('user');
  });

  it('cuts a huge tool output rather than send an oversized request', async () => {
    const rounds: ToolRound[] = [
      {
        calls: [{ id: 'call_1', name: 'read_log', arguments: {} }],
        results: [{ tool_call_id: 'call_1', output: 'log line '.repeat(20_000) }],
      },
    ];
    const { bytes, request } = await ask({ docs: hugePage().docs }, { rounds });
    expect(bytes).toBeLessThanOrEqual(LIMIT);
    const tool = request.messages.find((m) => m.role === 'tool')!;
    expect(tool.content).toMatch(/… \(cut: too long for the model request\)$/);
  });

  it.each([6_000, 100_000])(
    'keeps every request under 64 KB when the model searches twice over huge sections (document budget %i)',
    async (docsTokens) => {
      const bodies: string[] = [];
      const search = (query: string) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: `call_${bodies.length}`, function: { name: 'search_docs', arguments: JSON.stringify({ query }) } }] }, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`;
      const replies = [
        search('vacuum statistics planner settings'),
        search('replication slot write-ahead log standby'),
        'data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      ];
      const agent = new OpenAiAgent({
        baseUrl: 'http://model.test/v1',
        model: 'm',
        docs: hugePage().docs,
        docsTokens,
        fetch: async (_url, init) => {
          bodies.push(init?.body as string);
          return new Response(replies[bodies.length - 1], {
            headers: { 'Content-Type': 'text/event-stream' },
          });
        },
      });
      const outputs = await answered(agent);
      expect(bodies).toHaveLength(3);
      const sizes = bodies.map((body) => new TextEncoder().encode(body).length);
      for (const size of sizes) expect(size).toBeLessThanOrEqual(LIMIT);
      const last = JSON.parse(bodies[2]) as {
        messages: { role: string; content: string }[];
        tools?: unknown[];
      };
      expect(last.tools).toBeUndefined();
      const outputsOfSearches = last.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      expect(outputsOfSearches).toHaveLength(2);
      for (const text of outputsOfSearches) {
        expect(text).toMatch(/^## Huge › Topic \d+\nURL: https:\/\/docs\.test\/huge#topic-\d+/);
        expect(text).not.toContain('(cut: too long');
      }
      // All sections of the request together stay within the document budget.
      const documents = last.messages[0].content.split('# Documents\n\n')[1];
      const sections = [documents, ...outputsOfSearches].reduce((sum, text) => sum + estimateTokens(text), 0);
      expect(sections).toBeLessThanOrEqual(docsTokens + 50);
      expect(documents).toContain('## Huge › Topic');
      const sources = outputs.find((o) => o.type === 'sources');
      expect(sources?.type === 'sources' && sources.sources[0].source_url).toMatch(/#topic-\d+$/);
    },
  );

  it('fails the answer with a clear error when the question alone is over the limit', async () => {
    const attempt = ask({ docs: new StaticDocs([]), maxRequestBytes: 2_000 }, { message: 'x'.repeat(3_000) });
    await expect(attempt).rejects.toThrow(AgentError);
    await expect(attempt).rejects.toMatchObject({ code: 'model_request_too_large' });
  });
});
