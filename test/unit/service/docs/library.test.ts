import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFolder, type StaticSite } from '../../../../scripts/static-site.mjs';
import { OpenAiAgent } from '../../../../service/agents/openai.js';
import { parseAnswerTests, searchCommand, testCommand } from '../../../../service/docs-cli.js';
import { readDocsFolder } from '../../../../service/docs/folder.js';
import { DocsInputError, DocsLibrary } from '../../../../service/docs/library.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import { memoryStores } from '../../../../service/storage/memory/index.js';
import { DemoAgent } from '../../../../service/agents/demo.js';

const SITE = join(import.meta.dirname, '../../../fixtures/docs-site');
const open: StaticSite[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((site) => site.close()));
});

async function fixture() {
  const site = await serveFolder(SITE);
  open.push(site);
  const storage = memoryStores();
  const clock = new ManualClock();
  const library = (options = {}) =>
    new DocsLibrary({
      store: storage.docs,
      clock,
      readFolder: readDocsFolder,
      crawl: { retryDelayMs: 1 },
      ...options,
    });
  return { site, storage, clock, library };
}

const pageRequests = (site: StaticSite) => site.requests.filter((r) => /\.(html|md)$|\/$/.test(r.path));

describe('DocsLibrary: the docs in the database, shared by a fleet', () => {
  it('crawls a due source once however many instances tick, and a restart reads the index without crawling', async () => {
    const { site, library } = await fixture();
    const [a, b] = [library(), library()];
    await a.addSource(`${site.url}/docs/`);
    const crawled = await Promise.all([a.tick(), b.tick()]);
    expect(crawled.sort((x, y) => x - y)).toEqual([0, 1]);
    const fetched = pageRequests(site).length;
    expect(fetched).toBeGreaterThan(0);

    // Both instances, and a third started later, answer from the one stored index.
    const restarted = library();
    for (const instance of [a, b, restarted]) {
      const [hit] = await instance.search('max_locks_per_transaction');
      expect(hit.section.url).toBe(`${site.url}/docs/reference/config.html#max_locks_per_transaction`);
    }
    expect(await restarted.tick()).toBe(0);
    expect(pageRequests(site)).toHaveLength(fetched);
  });

  it('re-crawls on its schedule with revalidation, and other instances see a change within their freshness', async () => {
    const { site, clock, library, storage } = await fixture();
    const crawler = library({ recrawlEveryMs: 3_600_000 });
    const reader = library({ freshnessMs: 5_000 });
    const source = await crawler.addSource(`${site.url}/docs/`);
    await crawler.tick();
    const first = async () => (await reader.search('acme_cancel_backend'))[0]?.section.url;
    expect(await first()).toBe(`${site.url}/docs/guide/linked-only.html#kill-query`);
    expect(await crawler.tick()).toBe(0);
    clock.advance(3_600_000);
    site.requests.length = 0;
    expect(await crawler.tick()).toBe(1);
    expect(
      pageRequests(site)
        .filter((r) => r.status === 200)
        .map((r) => r.path),
    ).toEqual(expect.not.arrayContaining(['/docs/guide/install.html']));
    expect(pageRequests(site).filter((r) => r.status === 304).length).toBeGreaterThan(3);
    const [summary] = await crawler.sources();
    expect(summary.lastRun).toMatchObject({ pagesNew: 0, pagesChanged: 0, pagesRemoved: 0 });

    // Removed by one instance: another keeps its index until its freshness runs out.
    await crawler.removeSource(source.id);
    expect(await first()).toBe(`${site.url}/docs/guide/linked-only.html#kill-query`);
    clock.advance(5_000);
    await reader.search('warm');
    await expect.poll(first).toBeUndefined();
    expect(await storage.docs.listDocSections()).toEqual([]);
  });

  it('refuses a location that is neither a website nor a folder, in plain words', async () => {
    const { library } = await fixture();
    await expect(library().addSource('ftp://docs.example.com/')).rejects.toThrow(
      new DocsInputError('ftp://docs.example.com/: only http and https sites can be crawled.'),
    );
    await expect(library({ readFolder: undefined }).addSource('./docs')).rejects.toThrow(/is not a URL/);
  });

  it('reads a folder, and records a folder that does not exist as a failed crawl that keeps nothing', async () => {
    const { library } = await fixture();
    const docs = library();
    await docs.addSource(join(SITE, 'docs'), 'https://acme.example/docs');
    await docs.addSource(join(SITE, 'nowhere'));
    await docs.tick();
    const sources = await docs.sources();
    const folder = sources.find((s) => s.location === join(SITE, 'docs'))!;
    const missing = sources.find((s) => s.location === join(SITE, 'nowhere'))!;
    expect(folder.pages).toBe(8);
    expect((await docs.search('How do I stop a long query'))[0].section.url).toBe(
      'https://acme.example/docs/guide/linked-only.html#kill-query',
    );
    expect(missing.lastRun?.failures).toEqual([
      { url: join(SITE, 'nowhere'), reason: 'the folder does not exist' },
    ]);
  });
});

describe('agent-chat-service search and test', () => {
  it('search prints the ranked sections with their scores', async () => {
    const { site, library } = await fixture();
    const docs = library();
    await docs.addSource(`${site.url}/docs/`);
    await docs.tick();
    const lines: string[] = [];
    expect(await searchCommand(docs, 'what is max_locks_per_transaction', (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toMatch(
      /^ 1\. 0\.0\d{3}  match +\d+\.\d\d  Configuration › Locks › max_locks_per_transaction \(integer\)$/,
    );
    expect(lines[1]).toBe(`    ${site.url}/docs/reference/config.html#max_locks_per_transaction`);
    expect(await searchCommand(docs, 'zebra quantum lasagna', () => {})).toBe(1);
  });

  it('test runs each question through the agent, prints a table and fails on a missing page or phrase', async () => {
    const { site, library } = await fixture();
    const docs = library();
    await docs.addSource(`${site.url}/docs/`);
    await docs.tick();
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
    expect(await testCommand(new DemoAgent({ docs }), tests, (l) => lines.push(l))).toBe(1);
    expect(lines[0]).toMatch(/^#\s+result\s+rank\s+question\s+why$/);
    expect(lines.slice(1, 5).map((l) => l.split(/\s{2,}/).slice(0, 3))).toEqual([
      ['1', 'pass', '1'],
      ['2', 'pass', '1'],
      ['3', 'MISS', '-'],
      ['4', 'MISS', '1'],
    ]);
    expect(lines[3]).toContain('not among the sources');
    expect(lines[4]).toContain('the answer lacks "MariaDB"');
    expect(lines.at(-1)).toBe('2 passed, 2 failed');
    expect(await testCommand(new DemoAgent({ docs }), tests.slice(0, 2), () => {})).toBe(0);
  });

  it('test reports an answer that failed, as with an unreachable model', async () => {
    const { site, library } = await fixture();
    const docs = library();
    await docs.addSource(`${site.url}/docs/`);
    await docs.tick();
    const agent = new OpenAiAgent({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', docs, maxTries: 1 });
    const lines: string[] = [];
    const [test] = parseAnswerTests(
      '- question: what is lock_timeout\n  url: reference/config.html',
      'a.yaml',
      `${site.url}/docs/`,
    );
    expect(await testCommand(agent, [test], (l) => lines.push(l))).toBe(1);
    expect(lines[1]).toContain('the answer failed: The assistant is not available right now.');
  });

  it('reads a test file strictly: the line of a YAML error, a question without urls, a relative URL without a site', () => {
    expect(() => parseAnswerTests('- question: [unclosed\n  urls: x', 'answers.yaml')).toThrow(
      /^answers\.yaml:\d+: /,
    );
    expect(() => parseAnswerTests('- question: Where?\n', 'answers.yaml')).toThrow(
      'answers.yaml: question 1 needs "urls": the page(s) that must be among the sources.',
    );
    expect(() => parseAnswerTests('- question: Where?\n  urls: [guide.html]', 'answers.yaml')).toThrow(
      'answers.yaml: question 1: guide.html is not a URL (relative URLs need a --docs site to resolve against).',
    );
    expect(
      parseAnswerTests('questions:\n  - question: Where?\n    urls: [https://a.test/g#x]', 'a.yaml'),
    ).toEqual([{ question: 'Where?', urls: ['https://a.test/g#x'], phrases: [] }]);
  });
});
