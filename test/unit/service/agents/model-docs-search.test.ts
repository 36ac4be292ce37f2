import { describe, expect, it } from 'vitest';
import { MAX_SOURCES } from '../../../../contract/limits.js';
import { phrasesFor } from '../../../../service/agents/phrases.js';
import { StaticDocs } from '../../../../service/node.js';
import type { DocsSearch, Section } from '../../../../service/docs/types.js';
import { AGENT, allRecords } from '../../../fixtures/service.js';
import {
  DONE,
  SSE,
  type Script,
  answers,
  finish,
  setup,
  upstream,
} from '../../../fixtures/model-upstream.js';

/**
 * The model searches the docs again in its own words (decisions 472-475): the service runs the
 * search itself, gives the sections to the model as the tool's output and calls it again.
 */
const section = (page: string, title: string, text: string, heading?: string): Section => ({
  url: `https://docs.test/${page}${heading ? `#${heading.toLowerCase().replace(/\W+/g, '-')}` : ''}`,
  pageUrl: `https://docs.test/${page}`,
  title,
  headings: heading ? [heading] : [],
  text,
});
/** A manual whose words are not the visitor's: "kill a query" is `pg_cancel_backend`. */
const MANUAL = [
  section(
    'functions-admin',
    'System administration functions',
    'pg_cancel_backend(pid) cancels the current statement of the backend process with the given process ID; pg_terminate_backend(pid) ends the whole session.',
    'Server signaling functions',
  ),
  section(
    'monitoring',
    'Monitoring database activity',
    'The pg_stat_activity view shows one row per server process: its pid, state and current statement.',
  ),
  section(
    'queries',
    'Queries',
    'A query that runs forever usually lacks an index; a query reads rows from tables and joins them.',
  ),
  section(
    'tutorial',
    'Tutorial',
    'A query selects rows. Run a query with psql, then kill time reading the manual.',
  ),
];
const QUESTION = 'how do I kill a query that runs forever?';

const part = (tool_calls: unknown[]) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls }, finish_reason: null }] })}\n\n`;
/** A reply that calls tools: `[name, arguments as sent]`, each its own call. */
const calls =
  (...list: [string, string][]): Script =>
  (res) => {
    res.writeHead(200, SSE);
    res.end(
      part(
        list.map(([name, args], index) => ({
          index,
          id: `call_${index}_${name}`,
          type: 'function',
          function: { name, arguments: args },
        })),
      ) +
        finish('tool_calls') +
        DONE,
    );
  };
const search = (query: string) => calls(['search_docs', JSON.stringify({ query })]);

type Request = {
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
  tools?: { function: { name: string } }[];
};
const toolNames = (request: Record<string, unknown>) =>
  ((request as Request).tools ?? []).map((t) => t.function.name);
const toolOutputs = (request: Record<string, unknown>) =>
  (request as Request).messages.filter((m) => m.role === 'tool').map((m) => m.content!);

/** The docs, recording every query. */
function recorded(docs: DocsSearch) {
  const queries: string[] = [];
  return {
    queries,
    docs: {
      search: (query: string, limit?: number, earlier?: string) => {
        queries.push(query);
        return docs.search(query, limit, earlier);
      },
    },
  };
}

describe('model agent: the model searches the docs again in its own words', () => {
  it('runs the search itself, and the page it found is the first of at most 5 sources, sent once before the text', async () => {
    const model = await upstream(
      search('pg_cancel_backend cancel backend'),
      answers(['Call ', '`pg_cancel_backend(pid)`.']),
    );
    const { docs, queries } = recorded(new StaticDocs(MANUAL));
    const { ask } = await setup(model.baseUrl, { docs });
    const { records, text, stored, steps } = await ask(QUESTION);

    expect(text).toBe('Call `pg_cancel_backend(pid)`.');
    expect(queries).toEqual([QUESTION, 'pg_cancel_backend cancel backend']);
    const types = records.map((r) => r.type);
    expect(types.filter((t) => t === 'relevant_sources')).toHaveLength(1);
    expect(types.indexOf('relevant_sources')).toBeLessThan(types.indexOf('partial_answer'));
    expect(types).not.toContain('metadata');
    const sources = records.find((r) => r.type === 'relevant_sources')!.content.relevant_sources as {
      source_url: string;
    }[];
    expect(sources.length).toBeLessThanOrEqual(MAX_SOURCES);
    expect(sources[0].source_url).toBe('https://docs.test/functions-admin#server-signaling-functions');
    // The first retrieval's pages follow, each page once.
    expect(sources.map((s) => s.source_url)).toContain('https://docs.test/queries');
    expect(new Set(sources.map((s) => s.source_url)).size).toBe(sources.length);
    expect(stored.sources).toEqual(sources);
    expect(steps.map((s) => [s.id, s.status, s.summary])).toContainEqual([
      'search-2',
      'completed',
      'Searched the docs for “pg_cancel_backend cancel backend”',
    ]);

    // The service ran it: the second call carries the call and its sections, in the prompt's block format.
    expect(model.requests).toHaveLength(2);
    expect(toolNames(model.requests[0])).toEqual(['search_docs']);
    const [output] = toolOutputs(model.requests[1]);
    expect(output).toMatch(
      /^## System administration functions › Server signaling functions\nURL: https:\/\/docs\.test\/functions-admin#server-signaling-functions\n\n/,
    );
    const messages = (model.requests[1] as Request).messages;
    expect(messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_0_search_docs', function: { name: 'search_docs' } }],
    });
    expect(messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_0_search_docs' });
  });

  it('searches at most twice: the third call is made without the tool, and a search it asks for anyway ends the answer', async () => {
    const model = await upstream(
      search('cancel backend'),
      search('pg_stat_activity pid'),
      search('terminate'),
    );
    const { docs, queries } = recorded(new StaticDocs(MANUAL));
    const { ask, logs } = await setup(model.baseUrl, { docs, maxTries: 1 });
    const { end, steps, stored } = await ask(QUESTION, { locale: 'de' });

    expect(model.requests.map(toolNames)).toEqual([['search_docs'], ['search_docs'], []]);
    expect(queries).toEqual([QUESTION, 'cancel backend', 'pg_stat_activity pid']);
    expect(toolOutputs(model.requests[2])).toHaveLength(2);
    expect(end).toMatchObject({ type: 'error', stream_end: true });
    expect(stored.status).toBe('error');
    expect(logs.find((l) => l.msg === 'agent_failed')).toMatchObject({ code: 'model_empty' });
    const de = phrasesFor('de');
    expect(steps.filter((s) => s.id.startsWith('search-')).map((s) => s.summary)).toEqual([
      de.searching(QUESTION),
      de.found(3),
      de.searched('cancel backend'),
      de.searched('pg_stat_activity pid'),
    ]);
    expect(de.searched('x')).toBe('Dokumentation nach „x“ durchsucht');
  });

  it('cites the pages it found when the visitor’s words found nothing, and is not uncertain', async () => {
    const model = await upstream(search('pg_cancel_backend'), answers(['Use pg_cancel_backend.']));
    const { ask } = await setup(model.baseUrl, { docs: new StaticDocs(MANUAL) });
    const { records } = await ask('how do I halt a runaway job?');
    const system = (model.requests[0] as Request).messages[0].content!;
    expect(system).toContain('(no document matched this question)');
    expect(system).toContain('search the documentation with the search_docs tool first');
    expect(toolOutputs(model.requests[1])[0]).toContain('pg_cancel_backend(pid)');
    const sources = records.find((r) => r.type === 'relevant_sources')?.content.relevant_sources as {
      source_url: string;
    }[];
    expect(sources[0].source_url).toBe('https://docs.test/functions-admin#server-signaling-functions');
    expect(records.some((r) => r.type === 'metadata')).toBe(false);
  });

  it('is uncertain when neither the question nor its searches found a document', async () => {
    const model = await upstream(search('weather forecast'), answers(["I couldn't find that in the docs."]));
    const { ask } = await setup(model.baseUrl, { docs: new StaticDocs(MANUAL) });
    const { records } = await ask('Tell me about the weather in Paris');
    expect(toolOutputs(model.requests[1])).toEqual(['(no document matched this search)']);
    expect(records.some((r) => r.type === 'relevant_sources')).toBe(false);
    expect(records.find((r) => r.type === 'metadata')?.content).toEqual({ is_uncertain: true });
  });

  it('is not offered when turned off (OPENAI_DOCS_SEARCH=0), and a call of it is a tool the page did not offer', async () => {
    const model = await upstream(search('cancel backend'));
    const { docs, queries } = recorded(new StaticDocs(MANUAL));
    const { ask, logs } = await setup(model.baseUrl, { docs, docsSearch: false, maxTries: 1 });
    const { end } = await ask(QUESTION);
    expect(model.requests).toHaveLength(1);
    expect(toolNames(model.requests[0])).toEqual([]);
    expect(queries).toEqual([QUESTION]);
    expect(end.type).toBe('error');
    expect(logs.find((l) => l.msg === 'agent_failed')).toMatchObject({
      code: 'model_empty',
      hint: 'the model called a tool this page did not offer',
    });
  });
});

describe("model agent: the model's search and the page's own tools", () => {
  const OPEN_PAGE = { name: 'open_page', description: 'Opens a page', parameters: { type: 'object' } };

  it("lets a page tool named search_docs win: the page's search goes to the browser, the service's is not offered", async () => {
    const model = await upstream(search('cancel backend'));
    const { docs, queries } = recorded(new StaticDocs(MANUAL));
    const { ask } = await setup(model.baseUrl, { docs });
    const pageSearch = {
      name: 'search_docs',
      description: "The site's own search",
      parameters: { type: 'object' },
    };
    const { end } = await ask(QUESTION, { tools: [pageSearch] });
    expect(model.requests[0].tools).toEqual([{ type: 'function', function: pageSearch }]);
    expect(end).toMatchObject({
      type: 'tool_calls',
      content: { tool_calls: [{ name: 'search_docs', arguments: { query: 'cancel backend' } }] },
    });
    expect(queries).toEqual([QUESTION]);
  });

  it('pauses for the page with its calls only when a reply also searches; after the pause it searches no more', async () => {
    const model = await upstream(
      calls(['search_docs', '{"query":"cancel backend"}'], ['open_page', '{"page":"admin"}']),
      answers(['Opened.']),
    );
    const { docs, queries } = recorded(new StaticDocs(MANUAL));
    const { ask, ctx, token } = await setup(model.baseUrl, { docs });
    const first = await ask(QUESTION, { tools: [OPEN_PAGE] });
    expect(queries).toEqual([QUESTION]);
    expect(first.end).toMatchObject({
      type: 'tool_calls',
      content: { tool_calls: [{ id: 'call_1_open_page', name: 'open_page', arguments: { page: 'admin' } }] },
    });
    const types = first.records.map((r) => r.type);
    expect(types.filter((t) => t === 'relevant_sources')).toHaveLength(1);
    expect(types.indexOf('relevant_sources')).toBeLessThan(types.indexOf('tool_calls'));

    const next = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: {
          integration_id: 'int_demo',
          thread_id: first.threadId,
          tools: [OPEN_PAGE],
          tool_results: [{ tool_call_id: 'call_1_open_page', output: { ok: true } }],
        },
      }),
    );
    expect(next.at(-1)?.type).toBe('identifiers');
    expect(next.some((r) => r.type === 'relevant_sources')).toBe(false);
    expect(toolNames(model.requests[1])).toEqual(['open_page']);
    expect(JSON.stringify(model.requests[1])).not.toContain('cancel backend');
  });
});

describe("model agent: a hostile model's searches end sensibly", () => {
  it('answers arguments that are not JSON, an empty query and a third search with an error, and cuts a 10 KB query', async () => {
    const long = `cancel ${'backend '.repeat(1_500)}`;
    const model = await upstream(
      calls(
        ['search_docs', '{"query": cancel'],
        ['search_docs', '{"query":"  "}'],
        ['search_docs', '{"query":"x"}'],
      ),
      answers(['Sorry.']),
    );
    const { docs, queries } = recorded(new StaticDocs(MANUAL));
    const { ask } = await setup(model.baseUrl, { docs });
    const { text, steps } = await ask(QUESTION);
    expect(text).toBe('Sorry.');
    expect(queries).toEqual([QUESTION]);
    expect(toolOutputs(model.requests[1])).toEqual([
      'Error: the arguments are not JSON; call search_docs with {"query": "words to search for"}.',
      'Error: the query is empty; call search_docs with {"query": "words to search for"}.',
      'Error: no more searches in this answer (at most 2).',
    ]);
    expect(model.requests.map(toolNames)).toEqual([['search_docs'], []]);
    expect(steps.filter((s) => s.id.startsWith('search-') && s.id !== 'search-1')).toEqual([]);

    const again = await upstream(
      calls(['search_docs', '{"query":"  "}']),
      search(long),
      answers(['Use pg_cancel_backend.']),
    );
    const recording = recorded(new StaticDocs(MANUAL));
    const second = await setup(again.baseUrl, { docs: recording.docs });
    const answered = await second.ask(QUESTION);
    expect(toolOutputs(again.requests[1])).toEqual([
      'Error: the query is empty; call search_docs with {"query": "words to search for"}.',
    ]);
    expect(recording.queries[1]).toHaveLength(300);
    // The next request repeats the call with the query as searched, not the 10 KB sent.
    const repeated = (again.requests[2] as Request).messages.at(-2) as {
      tool_calls: { function: { arguments: string } }[];
    };
    expect(repeated.tool_calls[0].function.arguments).toBe(JSON.stringify({ query: recording.queries[1] }));
    expect(recording.queries[1].startsWith('cancel backend backend')).toBe(true);
    expect(answered.steps.find((s) => s.id === 'search-3')?.summary.length).toBeLessThan(120);
    expect(again.requests).toHaveLength(3);
  });
});
