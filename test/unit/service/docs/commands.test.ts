import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFolder, type StaticSite } from '../../../../scripts/static-site.mjs';
import { DemoAgent } from '../../../../service/agents/demo.js';
import { OpenAiAgent } from '../../../../service/agents/openai.js';
import { parseAnswerTests, searchCommand, testCommand } from '../../../../service/docs-cli.js';
import { DocsLibrary } from '../../../../service/docs/library.js';
import { suggestSynonym } from '../../../../service/docs/synonyms.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import { upstream } from '../../../fixtures/model-upstream.js';
import { memoryStores } from '../../../../service/storage/memory/index.js';

/** `agent-chat-service search` and `test` (docs-cli.ts), on a project's docs crawled from a local site. */
const SITE = join(import.meta.dirname, '../../../fixtures/docs-site');
const P = 'proj_a';
const open: StaticSite[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((site) => site.close()));
});

/** The fixture site crawled as project P's docs: what the commands read. */
async function crawled() {
  const site = await serveFolder(SITE);
  open.push(site);
  const library = new DocsLibrary({
    store: memoryStores().docs,
    clock: new ManualClock(),
    network: { allowPrivate: true },
    crawl: { retryDelayMs: 1 },
  });
  await library.addSource(P, `${site.url}/docs/`);
  await library.tick();
  return { site, docs: library.project(P), library };
}

describe('agent-chat-service search and test', () => {
  it('search prints the ranked sections with their scores', async () => {
    const { site, docs } = await crawled();
    const lines: string[] = [];
    expect(await searchCommand(docs, 'what is max_locks_per_transaction', (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toMatch(
      /^ 1\. score 0\.0\d{3}  match +\d+\.\d\d  Configuration › Locks › max_locks_per_transaction \(integer\)$/,
    );
    expect(lines[1]).toBe(`    ${site.url}/docs/reference/config.html#max_locks_per_transaction`);
    expect(await searchCommand(docs, 'zebra quantum lasagna', () => {})).toBe(1);
  });

  it('search --earlier searches a follow-up after the question before it, and says whether it did', async () => {
    const { site, docs } = await crawled();
    // Alone, "what about it?" has no word a search ranks.
    expect(await searchCommand(docs, 'what about it?', () => {})).toBe(1);
    const lines: string[] = [];
    const earlier = 'what is max_locks_per_transaction';
    expect(await searchCommand(docs, 'what about it?', (l) => lines.push(l), { earlier })).toBe(0);
    expect(lines[1]).toBe(`    ${site.url}/docs/reference/config.html#max_locks_per_transaction`);
    expect(lines.at(-1)).toBe(`Searched after the earlier question: "${earlier}"`);
    const alone: string[] = [];
    expect(await searchCommand(docs, 'how long does a lock wait', (l) => alone.push(l), { earlier })).toBe(0);
    expect(alone.at(-1)).toBe('The question does not refer back, so it was searched alone.');
  });

  it('test runs each question through the agent, prints a table and fails on a missing page or phrase', async () => {
    const { site, docs } = await crawled();
    const tests = parseAnswerTests(
      [
        '- question: How do I cancel a query that runs too long?',
        '  urls: [guide/linked-only.html]',
        '  phrases: [acme_cancel_backend]',
        '- question: what is max_locks_per_transaction',
        '  urls: [reference/config.html#max_locks_per_transaction]',
        '- question: How do I roll back an upgrade?',
        '  urls: [notes.md]',
        '- question: Which database does Acme need?',
        '  urls: [guide/install.html]',
        '  phrases: [MariaDB]',
      ].join('\n'),
      'answers.yaml',
      `${site.url}/docs/`,
    );
    const lines: string[] = [];
    expect(await testCommand(new DemoAgent(), docs, tests, (l) => lines.push(l))).toBe(1);
    expect(lines[0]).toMatch(/^#\s+result\s+rank\s+question\s+why$/);
    expect(lines.slice(1, 5).map((l) => l.split(/\s{2,}/).slice(0, 3))).toEqual([
      ['1', 'pass', '1'],
      ['2', 'pass', '1'],
      ['3', 'MISS', '-'],
      ['4', 'MISS', '1'],
    ]);
    expect(lines[3]).toContain('not among the sources');
    expect(lines[4]).toContain('the answer lacks "MariaDB"');
    expect(lines[5]).toBe('2 passed, 2 failed');
    // The missed page never says "roll back": a group an owner may add, with the page's name.
    expect(lines.slice(6)).toEqual([
      '',
      "Synonyms that may bring a missed page: the question's words the page never uses, and the page's name (the console's Synonyms box, or --docs-synonyms):",
      '  roll back, release notes  (question 3)',
    ]);
    const quiet: string[] = [];
    expect(await testCommand(new DemoAgent(), docs, tests.slice(0, 2), (l) => quiet.push(l))).toBe(0);
    expect(quiet.at(-1)).toBe('2 passed, 0 failed');
  });

  it('test says when the page was cited at another section than the anchor named, not that it missed', async () => {
    const { docs, site } = await crawled();
    const tests = parseAnswerTests(
      ['- question: what is max_locks_per_transaction', '  urls: [reference/config.html#max-locks]'].join(
        '\n',
      ),
      'answers.yaml',
      `${site.url}/docs/`,
    );
    const lines: string[] = [];
    expect(await testCommand(new DemoAgent(), docs, tests, (l) => lines.push(l))).toBe(1);
    expect(lines[1]).toMatch(
      /MISS +- +what is max_locks_per_transaction +the page is cited at #max_locks_per_transaction, not #max-locks: fix the anchor$/,
    );
    // Its words are on the page: no synonym to suggest.
    expect(lines.join('\n')).not.toContain('Synonyms that may bring');
  });

  it('test says when the section named is indexed but the question found another of its page, not to fix its anchor', async () => {
    const { docs, site } = await crawled();
    const tests = parseAnswerTests(
      ['- question: what is max_locks_per_transaction', '  urls: [reference/config.html#lock_timeout]'].join(
        '\n',
      ),
      'answers.yaml',
      `${site.url}/docs/`,
    );
    const lines: string[] = [];
    expect(await testCommand(new DemoAgent(), docs, tests, (l) => lines.push(l))).toBe(1);
    expect(lines[1]).toMatch(
      /MISS +- +what is max_locks_per_transaction +the page is cited at #max_locks_per_transaction(, #[\w-]+)*, not #lock_timeout, which its words miss$/,
    );
    expect(lines.join('\n')).not.toContain('fix the anchor');
  });

  it('test asks a follow-up after its earlier question, as the same conversation would', async () => {
    const { site, docs } = await crawled();
    const [followUp] = parseAnswerTests(
      [
        '- earlier: what is max_locks_per_transaction',
        '  question: and what about it?',
        '  urls: [reference/config.html#max_locks_per_transaction]',
      ].join('\n'),
      'answers.yaml',
      `${site.url}/docs/`,
    );
    expect(followUp.earlier).toBe('what is max_locks_per_transaction');
    const lines: string[] = [];
    expect(await testCommand(new DemoAgent(), docs, [followUp], (l) => lines.push(l))).toBe(0);
    expect(lines[1].split(/\s{2,}/).slice(0, 3)).toEqual(['1', 'pass', '1']);
    // Alone, "it" is nothing the docs can find.
    const { earlier: _, ...alone } = followUp;
    expect(await testCommand(new DemoAgent(), docs, [alone], () => {})).toBe(1);
    expect(() =>
      parseAnswerTests('- earlier: [1]\n  question: Why?\n  urls: [https://a.test/]', 'a.yaml'),
    ).toThrow('a.yaml: question 1: "earlier" must be the question asked before it.');
  });

  it("test counts the pages of the model's own searches among the answer's sources", async () => {
    const { site, docs } = await crawled();
    const tests = parseAnswerTests(
      '- question: How do I roll back an upgrade?\n  urls: [notes.md]',
      'answers.yaml',
      `${site.url}/docs/`,
    );
    // The visitor's words miss the release notes (see above); the model searches in the manual's.
    const replies = [
      `data: ${JSON.stringify({ choices: [{ delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'search_docs', arguments: '{"query":"release notes acme migrate"}' } }] }, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`,
      'data: {"choices":[{"delta":{"content":"See the release notes."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
    ];
    let calls = 0;
    const agent = new OpenAiAgent({
      baseUrl: 'http://model.test/v1',
      model: 'm',
      fetch: async () => new Response(replies[calls++], { headers: { 'Content-Type': 'text/event-stream' } }),
    });
    const lines: string[] = [];
    expect(await testCommand(agent, docs, tests, (l) => lines.push(l))).toBe(0);
    expect(calls).toBe(2);
    expect(lines[1].split(/\s{2,}/).slice(0, 3)).toEqual(['1', 'pass', '1']);
  });

  it("test says which missed pages the index does not hold, and that the site's robots.txt keeps one out", async () => {
    const { site, docs } = await crawled();
    const tests = parseAnswerTests(
      [
        '- question: What is the secret page about?',
        '  urls: [private/secret.html]',
        '- question: Where is the old page?',
        '  urls: [gone.html]',
      ].join('\n'),
      'answers.yaml',
      `${site.url}/docs/`,
    );
    const lines: string[] = [];
    const sites = [`${site.url}/docs/`];
    expect(await testCommand(new DemoAgent(), docs, tests, (l) => lines.push(l), sites)).toBe(1);
    expect(lines[1]).toMatch(
      /^1 +MISS +- +What is the secret page about\? +not in the index \(robots\.txt keeps crawlers out\)$/,
    );
    expect(lines[2]).toMatch(/^2 +MISS +- +Where is the old page\? +not in the index \(never crawled\)$/);
    expect(lines.slice(3)).toEqual([
      '0 passed, 2 failed',
      '',
      "Pages the index does not hold (each crawl's failures and exclusions are on the Sources page):",
      `  ${site.url}/docs/private/secret.html: ${site.url}/robots.txt keeps crawlers out of it; a "User-agent: agent-chat" group that allows it lets this crawler in  (question 1)`,
      `  ${site.url}/docs/gone.html: no crawl read it; is it linked from the site or its sitemap, and not excluded?  (question 2)`,
    ]);
    // A page of no site crawled (a folder's) has no robots.txt to read: nothing is fetched for it.
    const before = site.requests.length;
    await testCommand(new DemoAgent(), docs, tests.slice(0, 1), () => {}, []);
    expect(site.requests.length).toBe(before);
  });

  it('test says of a missed page the last crawl failed why, and which page links it', async () => {
    const { site, docs, library } = await crawled();
    const [test] = parseAnswerTests(
      '- question: What went missing?\n  url: missing.html',
      'a.yaml',
      `${site.url}/docs/`,
    );
    const [source] = await library.sources(P);
    const failed = source.lastRun?.failures ?? [];
    const lines: string[] = [];
    expect(
      await testCommand(new DemoAgent(), docs, [test], (l) => lines.push(l), [], fetch, [], failed),
    ).toBe(1);
    expect(lines[1]).toMatch(/not in the index \(the last crawl failed it\)$/);
    expect(lines.at(-1)).toBe(
      `  ${site.url}/docs/missing.html: the last crawl failed it: not found (404) (linked from ${site.url}/docs/)  (question 1)`,
    );
  });

  it('test reports an answer that failed, as with an unreachable model', async () => {
    const { site, docs } = await crawled();
    const agent = new OpenAiAgent({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', maxTries: 1 });
    const lines: string[] = [];
    const [test] = parseAnswerTests(
      '- question: what is lock_timeout\n  url: reference/config.html',
      'a.yaml',
      `${site.url}/docs/`,
    );
    expect(await testCommand(agent, docs, [test], (l) => lines.push(l))).toBe(1);
    expect(lines[1]).toContain('the answer failed: The assistant is not available right now.');
    // Below the table, what the operator fixes: the agent's hint, as the service's log has it.
    expect(lines.slice(-2)).toEqual([
      'What to fix for the answers that failed (as the service logs it):',
      '  model_unreachable: the model server could not be reached: check OPENAI_BASE_URL and that the server is up  (question 1)',
    ]);
  });

  it('test tells a base URL without /v1 from a wrong model, once for all the questions it failed', async () => {
    const { site, docs } = await crawled();
    const tests = parseAnswerTests(
      '- question: what is lock_timeout\n  url: reference/config.html\n- question: what is max_locks_per_transaction\n  url: reference/config.html',
      'a.yaml',
      `${site.url}/docs/`,
    );
    const router = await upstream((res) =>
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found'),
    );
    const origin = new URL(router.baseUrl).origin;
    const lines: string[] = [];
    const noV1 = new OpenAiAgent({ baseUrl: origin, model: 'm', maxTries: 1 });
    expect(await testCommand(noV1, docs, tests, (l) => lines.push(l))).toBe(1);
    expect(lines.at(-1)).toBe(
      `  model_url_not_found: nothing serves chat completions at ${origin}/chat/completions: it answered 404, naming no model; OPENAI_BASE_URL usually ends in /v1: try ${origin}/v1  (questions 1, 2)`,
    );

    const model = await upstream((res) =>
      res
        .writeHead(404, { 'Content-Type': 'application/json' })
        .end('{"error":{"message":"model \\"m\\" not found, try pulling it first","type":"api_error"}}'),
    );
    lines.length = 0;
    const wrongModel = new OpenAiAgent({ baseUrl: model.baseUrl, model: 'm', maxTries: 1 });
    expect(await testCommand(wrongModel, docs, tests.slice(0, 1), (l) => lines.push(l))).toBe(1);
    expect(lines.at(-1)).toBe(
      `  model_not_found: the model server has no model "m": it answered 404 (api_error); set OPENAI_MODEL to one of the models GET ${model.baseUrl}/models lists  (question 1)`,
    );
  });

  it('reads a test file strictly: the line of a YAML error, a question without urls, a relative URL without a site', () => {
    expect(() => parseAnswerTests('- question: [unclosed\n  urls: x', 'answers.yaml')).toThrow(
      /^answers\.yaml:\d+: /,
    );
    expect(() => parseAnswerTests('- question: Where?\n', 'answers.yaml')).toThrow(
      'answers.yaml: question 1 needs "urls": the page(s) that must be among the sources.',
    );
    expect(() => parseAnswerTests('- question: Where?\n  urls: [guide.html]', 'answers.yaml')).toThrow(
      'answers.yaml: question 1: guide.html is not a URL (relative URLs need a --docs site, a folder with an https:// --docs-url, or a website among the project sources, to resolve against).',
    );
    // A misspelt key would check less than its author meant: "phrase" tests no words at all.
    expect(() =>
      parseAnswerTests('- question: Where?\n  urls: [https://a.test/]\n  phrase: [overlap]', 'a.yaml'),
    ).toThrow(
      'a.yaml: question 1 has "phrase", which a test does not take: use "question", "urls", "url", "phrases", "earlier".',
    );
    expect(
      parseAnswerTests('questions:\n  - question: Where?\n    urls: [https://a.test/g#x]', 'a.yaml'),
    ).toEqual([{ question: 'Where?', urls: ['https://a.test/g#x'], phrases: [] }]);
  });

  it('suggests a synonym group only where words are missing: the page name without its number or site', () => {
    const page = {
      title: '3.5. Window Functions',
      text: 'A window function performs a calculation across rows.',
    };
    expect(suggestSynonym('how do I compute a running total over rows', page)).toEqual([
      'compute running total',
      'window functions',
    ]);
    expect(
      suggestSynonym('how do I make a virtual env', {
        title: 'venv — Creation of virtual environments',
        text: 'Create virtual environments.',
      }),
    ).toEqual(['make env', 'venv']);
    // Every word on the page, or all but one: it lost on weight, and a one-word group fires on every
    // question with the word. Too many missing: about something else.
    expect(suggestSynonym('window function rows', page)).toBeNull();
    expect(suggestSynonym('list the window functions', page)).toBeNull();
    expect(suggestSynonym('why is my laptop fan loud when idle', page)).toBeNull();
  });
});
