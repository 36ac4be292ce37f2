/** DocsLibrary: each project's docs in the database, crawled on a schedule by one instance, searched through its own index. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { serveFolder, type StaticSite } from '../../../../scripts/static-site.mjs';
import { readDocsFolder } from '../../../../service/docs/folder.js';
import { DocsInputError, DocsLibrary } from '../../../../service/docs/library.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import { memoryStores } from '../../../../service/storage/memory/index.js';
import { openSqlStores } from '../../../../service/storage/sql/index.js';
import type { DocCrawlProgress, DocsStore } from '../../../../service/storage/types.js';
import { pdfDocument } from '../../../fixtures/files.js';
import { heldSite } from '../../../fixtures/held-site.js';
import { sqlEngines } from '../../../fixtures/storages.js';

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
      network: { allowPrivate: true },
      crawl: { retryDelayMs: 1 },
      ...options,
    });
  return { site, storage, clock, library };
}

const P = 'proj_a';

/** `docs` with the crawl progress it is given kept in `writes`, in order. */
function countingProgress(docs: DocsStore) {
  const writes: DocCrawlProgress[] = [];
  const store: DocsStore = Object.create(docs, {
    putDocCrawlProgress: {
      value: (progress: DocCrawlProgress) => {
        writes.push(progress);
        return docs.putDocCrawlProgress(progress);
      },
    },
  });
  return { store, writes };
}
const pageRequests = (site: StaticSite) => site.requests.filter((r) => /\.(html|md)$|\/$/.test(r.path));

describe('DocsLibrary: the docs in the database, shared by a fleet', () => {
  it('keeps the crawl lease through a crawl longer than it, so no other instance crawls beside it', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const site = await serveFolder(SITE, {
      gate: (req, res) => {
        if (!req.url?.endsWith('/guide/install.html')) return false;
        void held.then(() =>
          res
            .writeHead(200, { 'Content-Type': 'text/html' })
            .end('<title>Install</title><main><p>Slow.</p></main>'),
        );
        return true;
      },
    });
    open.push(site);
    const storage = memoryStores();
    const clock = new ManualClock();
    const library = () =>
      new DocsLibrary({
        store: storage.docs,
        clock,
        leaseMs: 150,
        network: { allowPrivate: true },
        crawl: { retryDelayMs: 1 },
      });
    const [a, b] = [library(), library()];
    await a.addSource(P, `${site.url}/docs/`);
    const crawling = a.tick();
    // The first request of a process loads the crawler's transport (a module compiled for the
    // test at its first import): it may take past the poll's default second.
    await expect
      .poll(() => site.requests.some((r) => r.path === '/robots.txt'), { timeout: 5_000 })
      .toBe(true);
    // Three leases' time passes; A renews every third of one (50 ms), so B finds it held.
    clock.advance(450);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await b.tick()).toBe(0);
    release();
    expect(await crawling).toBe(1);
    expect(site.requests.filter((r) => r.path === '/docs/guide/install.html')).toHaveLength(1);
  });

  it("crawls other projects' sources while one site holds its crawl for as long as it likes", async () => {
    const slow = await heldSite({ pages: 2 });
    onTestFinished(() => slow.close());
    const { site, clock, library } = await fixture();
    const docs = library();
    // The slow site is the older source, first due: before, every other waited for its crawl to end.
    await docs.addSource('proj_slow', slow.start);
    clock.advance(1);
    await docs.addSource(P, `${site.url}/docs/`);
    const crawling = docs.tick();
    await expect.poll(() => slow.requests.includes('/docs/held.html')).toBe(true);
    await expect
      .poll(async () => (await docs.sources(P))[0].lastRun?.complete, { timeout: 5_000 })
      .toBe(true);
    // A source added meanwhile, as the console adds one (then ticks), is crawled at once too.
    const added = await docs.addSource('proj_c', `${site.url}/docs/guide/`);
    void docs.tick();
    await expect
      .poll(async () => (await docs.sources('proj_c')).find((s) => s.id === added.id)?.lastRun?.complete, {
        timeout: 5_000,
      })
      .toBe(true);
    expect((await docs.sources('proj_slow'))[0].lastRun).toBeNull();
    slow.release();
    expect(await crawling).toBe(3);
    expect((await docs.sources('proj_slow'))[0].lastRun?.pagesNew).toBe(4);
  });

  it('crawls a due source once however many instances tick, and a restart reads the index without crawling', async () => {
    const { site, library } = await fixture();
    const [a, b] = [library(), library()];
    await a.addSource(P, `${site.url}/docs/`);
    const crawled = await Promise.all([a.tick(), b.tick()]);
    expect(crawled.sort((x, y) => x - y)).toEqual([0, 1]);
    const fetched = pageRequests(site).length;
    expect(fetched).toBeGreaterThan(0);

    // Both instances, and a third started later, answer from the one stored index.
    const restarted = library();
    for (const instance of [a, b, restarted]) {
      const [hit] = await instance.search(P, 'max_locks_per_transaction');
      expect(hit.section.url).toBe(`${site.url}/docs/reference/config.html#max_locks_per_transaction`);
    }
    expect(await restarted.tick()).toBe(0);
    expect(pageRequests(site)).toHaveLength(fetched);
  });

  it("builds, on a restarted instance, each project's index before a visitor asks, once", async () => {
    const { site, storage, library } = await fixture();
    const crawler = library();
    await crawler.addSource(P, `${site.url}/docs/`);
    await crawler.addSource('proj_b', `${site.url}/docs/`);
    expect(await crawler.tick()).toBe(2);
    let reads = 0;
    const store = new Proxy(storage.docs, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (key === 'listDocSections') reads++;
          return value.apply(target, args);
        };
      },
    });
    const restarted = library({ store });
    expect(await restarted.warm()).toBe(2);
    expect(reads).toBe(2);
    expect(await restarted.warm()).toBe(0);
    // The visitor's question is answered from the index built before it came.
    const [hit] = await restarted.search(P, 'max_locks_per_transaction');
    expect(hit.section.url).toBe(`${site.url}/docs/reference/config.html#max_locks_per_transaction`);
    expect(reads).toBe(2);
  });

  it('re-crawls on its schedule with revalidation, and other instances see a change within their freshness', async () => {
    const { site, clock, library, storage } = await fixture();
    const crawler = library({ recrawlEveryMs: 3_600_000 });
    const reader = library({ freshnessMs: 5_000 });
    const source = await crawler.addSource(P, `${site.url}/docs/`);
    await crawler.tick();
    const first = async () => (await reader.search(P, 'acme_cancel_backend'))[0]?.section.url;
    expect(await first()).toBe(`${site.url}/docs/guide/linked-only.html#kill-query`);
    expect(await crawler.tick()).toBe(0);
    clock.advance(3_600_000);
    site.requests.length = 0;
    expect(await crawler.tick()).toBe(1);
    // Nothing changed: every page answered 304, and so did its copies (/docs/index.html beside
    // /docs/, alias.html naming install.html canonical), which the store remembered with it.
    expect(
      pageRequests(site)
        .filter((r) => r.status === 200)
        .map((r) => r.path),
    ).toEqual([]);
    expect(pageRequests(site).filter((r) => r.status === 304).length).toBeGreaterThan(3);
    const [summary] = await crawler.sources(P);
    expect(summary.lastRun).toMatchObject({ pagesNew: 0, pagesChanged: 0, pagesRemoved: 0 });

    // Removed by one instance: another keeps its index until its freshness runs out.
    await crawler.removeSource(P, source.id);
    expect(await first()).toBe(`${site.url}/docs/guide/linked-only.html#kill-query`);
    clock.advance(5_000);
    await reader.search(P, 'warm');
    await expect.poll(first).toBeUndefined();
    expect(await storage.docs.listDocSections(P)).toEqual([]);
  });

  it('finds what its own crawl indexed at the next search, without waiting out its freshness', async () => {
    const { site, library } = await fixture();
    const instance = library({ freshnessMs: 60_000 });
    // Searched while the project had no docs: that empty index is what it holds.
    expect(await instance.search(P, 'acme_cancel_backend')).toEqual([]);
    await instance.addSource(P, `${site.url}/docs/`);
    await instance.tick();
    const [hit] = await instance.search(P, 'acme_cancel_backend');
    expect(hit?.section.url).toBe(`${site.url}/docs/guide/linked-only.html#kill-query`);
  });

  it("ranks with the owner's synonyms at once on the instance that took them, and on the others within their freshness", async () => {
    const { site, clock, library } = await fixture();
    const [writer, reader] = [library({ freshnessMs: 60_000 }), library({ freshnessMs: 5_000 })];
    await writer.addSource(P, `${site.url}/docs/`);
    await writer.tick();
    const first = async (instance: DocsLibrary) =>
      (await instance.search(P, 'everything is stuck forever'))[0]?.section.url;
    expect(await first(writer)).toBeUndefined();
    expect(await first(reader)).toBeUndefined();

    expect(await writer.setSynonyms(P, [['stuck', 'waits for a lock']])).toEqual([
      ['stuck', 'waits for a lock'],
    ]);
    const setting = `${site.url}/docs/reference/config.html#lock_timeout`;
    expect(await first(writer)).toBe(setting);
    expect(await first(reader)).toBeUndefined();
    clock.advance(5_000);
    await reader.search(P, 'warm');
    await expect.poll(() => first(reader)).toBe(setting);
    // Another project's index never takes them.
    expect(await writer.search('proj_b', 'everything is stuck forever')).toEqual([]);

    await expect(writer.setSynonyms(P, [['stuck', 'the']])).rejects.toThrow(
      new DocsInputError('The synonym group "stuck, the" has "the", which has no word a search ranks.'),
    );
    expect(await writer.synonyms(P)).toEqual([['stuck', 'waits for a lock']]);
  });

  it('writes how far a crawl has got while it runs, about once a second, for every instance to read; its run replaces it', async () => {
    const { storage, clock, library } = await fixture();
    const pages = 300;
    const site = await heldSite({ pages, delayMs: 5 });
    onTestFinished(() => site.close());
    // The writes the crawling instance sends, counted.
    const { store, writes } = countingProgress(storage.docs);
    const crawler = library({ store });
    const reader = library();
    const source = await crawler.addSource(P, site.start);
    const began = performance.now();
    const ticking = crawler.tick();

    // Every page but the held one read: the other instance sees it, mid-crawl.
    const crawl = async () => (await reader.sources(P))[0].crawl;
    await expect.poll(async () => (await crawl())?.pagesRead, { timeout: 15_000 }).toBe(pages + 1);
    expect(await crawl()).toEqual({
      sourceId: source.id,
      phase: 'pages',
      pagesRead: pages + 1,
      pagesFailed: 0,
      startedAt: clock.now(),
      updatedAt: clock.now(),
    });
    expect(writes.map((w) => w.phase).slice(0, 3)).toEqual(['robots', 'sitemap', 'pages']);
    // Not a write per page: a write for each phase, then about one a second.
    const seconds = (performance.now() - began) / 1000;
    expect(writes.length).toBeLessThanOrEqual(3 + Math.ceil(seconds) + 1);
    expect(writes.length).toBeLessThan(pages / 10);

    // Not written for a lease's length: a crawl that died with its instance, not one under way.
    clock.advance(10 * 60_000 - 1);
    expect((await crawl())?.pagesRead).toBe(pages + 1);
    clock.advance(2);
    expect(await crawl()).toBeNull();

    // The last page read: the crawl writes that it saves, then its run takes over.
    site.release();
    expect(await ticking).toBe(1);
    expect(writes.at(-1)).toMatchObject({ phase: 'saving', pagesRead: pages + 2, pagesFailed: 0 });
    const [done] = await reader.sources(P);
    expect(done.crawl).toBeNull();
    expect(done.lastRun).toMatchObject({ pagesNew: pages + 2 });
    expect(await storage.docs.listDocSources(P)).toEqual([expect.objectContaining({ crawl: null })]);
  });

  it('counts the pages of a folder as it reads them, and leaves no progress behind a crawl stopped by close', async () => {
    const { storage, library } = await fixture();
    const { store, writes } = countingProgress(storage.docs);
    const folder = library({ store });
    await folder.addSource(P, join(SITE, 'docs'), 'https://acme.example/docs');
    await folder.tick();
    expect(writes[0]).toMatchObject({ phase: 'pages', pagesRead: 0 });
    expect(writes.at(-1)).toMatchObject({ phase: 'saving', pagesRead: 8, pagesFailed: 0 });
    expect((await folder.sources(P))[0].crawl).toBeNull();

    // Closed mid-crawl: what it read is not applied, and its progress goes with it.
    const site = await heldSite();
    onTestFinished(() => site.close());
    const crawler = library();
    await crawler.addSource('proj_b', site.start);
    const ticking = crawler.tick();
    await expect.poll(async () => (await crawler.sources('proj_b'))[0].crawl?.pagesRead).toBe(41);
    await crawler.close();
    await ticking;
    expect((await crawler.sources('proj_b'))[0]).toMatchObject({ crawl: null, lastRun: null });
  });

  it.each(sqlEngines().map((e) => [e.name, e] as const))(
    'indexes a source with a page holding a NUL character on %s, without the character',
    async (_, engine) => {
      // One stray NUL failed the write of the whole crawl, at every crawl: the source stayed empty.
      const storage = await openSqlStores(await engine.client());
      const dir = await mkdtemp(join(tmpdir(), 'nul-docs-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      await writeFile(join(dir, 'theming.md'), '# Theming\n\nSet the theme attribute to dark.\n');
      await writeFile(join(dir, 'sessions.md'), '# Sessions\n\nA session\u0000 lasts one hour.\n');
      const library = new DocsLibrary({
        store: storage.docs,
        clock: new ManualClock(),
        readFolder: readDocsFolder,
      });
      await library.addSource(P, dir, 'https://acme.example/docs');
      await library.tick();
      expect((await library.sources(P))[0]).toMatchObject({ pages: 2, lastRun: { failures: [] } });
      const texts = (await storage.docs.listDocSections(P)).map((s) => s.text).join('\n');
      expect(texts).toContain('A session lasts one hour.');
    },
    60_000,
  );

  it('refuses a location that is neither a website nor a folder, in plain words', async () => {
    const { library } = await fixture();
    await expect(library().addSource(P, 'ftp://docs.example.com/')).rejects.toThrow(
      new DocsInputError('ftp://docs.example.com/: only http and https sites can be crawled.'),
    );
    await expect(library({ readFolder: undefined }).addSource(P, './docs')).rejects.toThrow(/is not a URL/);
  });

  it('crawls a site that was down again in 5 minutes, then twice as long each time it is still down, and on its schedule once back', async () => {
    let down = true;
    const site = await serveFolder(SITE, {
      gate: (_req, res) => {
        if (!down) return false;
        res.writeHead(503).end();
        return true;
      },
    });
    open.push(site);
    const storage = memoryStores();
    const clock = new ManualClock();
    const docs = new DocsLibrary({
      store: storage.docs,
      clock,
      recrawlEveryMs: 86_400_000,
      network: { allowPrivate: true },
      crawl: { retryDelayMs: 1 },
    });
    await docs.addSource(P, `${site.url}/docs/`);
    const MINUTE = 60_000;
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      expect(await docs.tick()).toBe(1);
      const [source] = await docs.sources(P);
      expect(source.lastRun?.complete).toBe(false);
      waits.push((source.nextCrawlAt - source.lastCrawlAt!) / MINUTE);
      // Not a minute before it is due.
      clock.advance(source.nextCrawlAt - clock.now() - MINUTE);
      expect(await docs.tick()).toBe(0);
      clock.advance(MINUTE);
    }
    expect(waits).toEqual([5, 10, 20, 40]);

    down = false;
    expect(await docs.tick()).toBe(1);
    const [back] = await docs.sources(P);
    expect(back.lastRun?.complete).toBe(true);
    expect(back.nextCrawlAt - back.lastCrawlAt!).toBe(86_400_000);
    expect((await docs.search(P, 'acme_cancel_backend'))[0]?.section.url).toBe(
      `${site.url}/docs/guide/linked-only.html#kill-query`,
    );
  });

  it("names the question's words the project's stored docs never use, and counts the owner's synonyms as theirs (decision 822)", async () => {
    const { library } = await fixture();
    const docs = library();
    await docs.addSource(P, join(SITE, 'docs'), 'https://acme.example/docs');
    await docs.tick();
    const absent = () => docs.project(P).absent('everything is stuck forever on Windows');
    expect(await absent()).toEqual(['stuck', 'forever', 'Windows']);
    await docs.setSynonyms(P, [['stuck', 'waits for a lock']]);
    expect(await absent()).toEqual(['forever', 'Windows']);
    expect(await docs.project('proj_b').absent('stuck')).toEqual([]);
  });

  it('reads a folder, and records a folder that does not exist as a failed crawl that keeps nothing', async () => {
    const { library } = await fixture();
    const docs = library();
    await docs.addSource(P, join(SITE, 'docs'), 'https://acme.example/docs');
    await docs.addSource(P, join(SITE, 'nowhere'));
    await docs.tick();
    const sources = await docs.sources(P);
    const folder = sources.find((s) => s.location === join(SITE, 'docs'))!;
    const missing = sources.find((s) => s.location === join(SITE, 'nowhere'))!;
    expect(folder.pages).toBe(8);
    expect((await docs.search(P, 'How do I stop a long query'))[0].section.url).toBe(
      'https://acme.example/docs/guide/linked-only.html#kill-query',
    );
    expect(missing.lastRun?.failures).toEqual([
      { url: join(SITE, 'nowhere'), reason: 'the folder does not exist' },
    ]);
  });

  it("records a folder's PDF that cannot be indexed among its source's failures, with why", async () => {
    const { library } = await fixture();
    const dir = await mkdtemp(join(tmpdir(), 'docs-library-'));
    try {
      await writeFile(join(dir, 'guide.md'), '# Guide\n\nRead me.');
      await writeFile(join(dir, 'scan.pdf'), pdfDocument({ pages: [[]] }));
      const docs = library();
      await docs.addSource(P, dir, 'https://acme.example/docs');
      await docs.tick();
      const [folder] = await docs.sources(P);
      expect(folder.pages).toBe(1);
      expect(folder.lastRun?.failures).toEqual([
        {
          url: 'https://acme.example/docs/scan.pdf',
          reason: 'no text: a scanned PDF? it has no text layer to index',
        },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("crawls a site without the owner's excluded paths, and a change of them crawls it again at once", async () => {
    const { storage, clock } = await fixture();
    // The fixture site, with a robots.txt that can go down.
    let robotsDown = false;
    const robots = await readFile(join(SITE, 'robots.txt'));
    const site = await serveFolder(SITE, {
      routes: {
        '/robots.txt': (_req, res) =>
          robotsDown
            ? res.writeHead(503).end()
            : res.writeHead(200, { 'Content-Type': 'text/plain' }).end(robots),
      },
    });
    open.push(site);
    const docs = new DocsLibrary({
      store: storage.docs,
      clock,
      network: { allowPrivate: true },
      crawl: { retryDelayMs: 1 },
    });
    const source = await docs.addSource(P, `${site.url}/docs/`, undefined, ['/docs/reference/']);
    expect(source.exclude).toEqual(['/docs/reference/']);
    await docs.tick();
    const only = async () => (await docs.sources(P))[0];
    expect((await only()).lastRun).toMatchObject({ pagesExcluded: 1, complete: true });
    expect(site.requests.map((r) => r.path)).not.toContain('/docs/reference/config.html');
    const config = `${site.url}/docs/reference/config.html`;
    const urls = async (q: string) => (await docs.search(P, q)).map((hit) => hit.section.pageUrl);
    expect(await urls('max_locks_per_transaction')).not.toContain(config);

    // Nothing excluded: crawled now, without waiting for the schedule.
    expect(await docs.setExclusions(P, source.id, [])).toBe(true);
    expect((await only()).nextCrawlAt).toBe(clock.now());
    await docs.tick();
    expect(await urls('max_locks_per_transaction')).toContain(config);

    // Excluded again while robots.txt is down: the crawl is incomplete, the page goes all the same.
    robotsDown = true;
    expect(await docs.setExclusions(P, source.id, ['*/reference/'])).toBe(true);
    await docs.tick();
    const after = await only();
    expect(after.exclude).toEqual(['*/reference/']);
    expect(after.lastRun).toMatchObject({ complete: false, pagesRemoved: 1 });
    expect(after.pages).toBeGreaterThan(1);
    expect((await storage.docs.listDocPages(source.id)).map((p) => p.url)).not.toContain(config);
    expect(await urls('max_locks_per_transaction')).not.toContain(config);
  });

  it("the console's search answers from the docs as stored now: an exclusion just crawled is not searched, on any instance", async () => {
    const { site, library } = await fixture();
    // The console's instance (b) searched a moment ago; the crawl runs on another (a).
    const [a, b] = [library(), library()];
    const source = await a.addSource(P, `${site.url}/docs/`);
    await a.tick();
    const config = `${site.url}/docs/reference/config.html`;
    const pages = async (hits: Promise<{ section: { pageUrl: string } }[]>) =>
      (await hits).map((hit) => hit.section.pageUrl);
    expect(await pages(b.search(P, 'max_locks_per_transaction'))).toContain(config);

    expect(await a.setExclusions(P, source.id, ['*/reference/'])).toBe(true);
    await a.tick();
    // The owner who just saw "Crawled" searches again: the page they kept out is gone at once,
    // where an answer may use the index it has for a few seconds more (the freshness).
    expect(await pages(b.project(P).searchNow('max_locks_per_transaction'))).not.toContain(config);
    expect(await pages(b.search(P, 'max_locks_per_transaction'))).not.toContain(config);
  });

  it('refuses bad exclude patterns, and one that excludes the site it is given, naming it', async () => {
    const { site, library } = await fixture();
    const docs = library();
    await expect(docs.addSource(P, `${site.url}/docs/`, undefined, ['/ok/', 'blog/'])).rejects.toThrow(
      new DocsInputError(
        'The exclude pattern "blog/" must start with / or * (a path on the site, like /blog/).',
      ),
    );
    await expect(docs.addSource(P, `${site.url}/docs/`, undefined, ['/docs'])).rejects.toThrow(
      new DocsInputError(`${site.url}/docs/ is itself excluded by /docs: nothing would be crawled.`),
    );
    expect(await docs.sources(P)).toEqual([]);
    const source = await docs.addSource(P, `${site.url}/docs/`);
    await expect(docs.setExclusions(P, source.id, [`/${'x'.repeat(200)}`])).rejects.toThrow(
      /is over 200 characters/,
    );
    expect(await docs.setExclusions(P, 'src_none', ['/blog/'])).toBe(false);
    expect((await docs.sources(P))[0].exclude).toEqual([]);
  });

  it("reads a folder without the files its patterns exclude, matched on the file's path in the folder", async () => {
    const { library } = await fixture();
    const docs = library();
    await docs.addSource(P, join(SITE, 'docs'), 'https://acme.example/docs', ['/guide/', '*.md']);
    await docs.tick();
    const [folder] = await docs.sources(P);
    // 8 pages: 3 under guide/ and notes.md are kept out.
    expect(folder.pages).toBe(4);
    expect(folder.lastRun).toMatchObject({ pagesExcluded: 4 });
    const pages = (await docs.store.listDocPages(folder.id)).map((p) => p.url);
    expect(pages.some((url) => url.includes('/guide/') || url.endsWith('/notes'))).toBe(false);
  });

  it("keeps projects apart: one project's search never finds another's pages, whatever the words", async () => {
    const { site, library } = await fixture();
    const docs = library();
    await docs.addSource(P, `${site.url}/docs/`);
    await docs.addSource('proj_b', join(SITE, 'docs'), 'https://b.example/docs');
    await docs.tick();
    const urls = async (projectId: string) =>
      (await docs.search(projectId, 'max_locks_per_transaction acme_cancel_backend', 50)).map(
        (h) => h.section.url,
      );
    expect(await urls(P)).not.toHaveLength(0);
    expect((await urls(P)).every((url) => url.startsWith(site.url))).toBe(true);
    expect((await urls('proj_b')).every((url) => url.startsWith('https://b.example/docs/'))).toBe(true);
    expect(await urls('proj_none')).toEqual([]);
    expect(await docs.project('proj_none').size?.()).toBe(0);
    // A source is removed and re-crawled only through its own project.
    const [mine] = await docs.sources(P);
    expect(await docs.removeSource('proj_b', mine.id)).toBe(false);
    expect(await docs.recrawlNow('proj_b', mine.id)).toBe(false);
    expect((await docs.sources(P)).map((s) => s.id)).toEqual([mine.id]);
  });
});
