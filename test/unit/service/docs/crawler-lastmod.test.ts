/** A re-crawl that asks nothing of the pages a sitemap's <lastmod> vouches for (decision 752). */
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFolder, type StaticSite } from '../../../../scripts/static-site.mjs';
import {
  crawlSite,
  LASTMOD_TRUST_MS,
  sitemapLastmod,
  type CrawlResult,
  type PageState,
} from '../../../../service/docs/crawler.js';
import { DocsLibrary } from '../../../../service/docs/library.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import type { LogEntry } from '../../../../service/kernel/log.js';
import { storageSuite } from '../../../fixtures/storages.js';

const open: StaticSite[] = [];
const temps: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((site) => site.close()));
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const T0 = Date.parse('2026-02-01T00:00:00Z');
const DAY = 86_400_000;
const JANUARY = '2026-01-01T00:00:00Z';
const PAGES = ['a', 'b', 'c'];

/** A site of three pages, each linked from /docs/ and listed by the sitemap with `lastmods`. */
async function site(lastmods: Record<string, string | null> = { a: JANUARY, b: JANUARY, c: JANUARY }) {
  const root = await mkdtemp(join(tmpdir(), 'docs-lastmod-'));
  temps.push(root);
  await mkdir(join(root, 'docs'));
  const served = await serveFolder(root);
  open.push(served);
  const files = {
    root,
    served,
    async page(name: string, text: string) {
      await writeFile(
        join(root, 'docs', `${name}.html`),
        `<title>${name}</title><main><p>${text}</p></main>`,
      );
    },
    async sitemap(marks: Record<string, string | null>) {
      const urls = Object.entries(marks).map(
        ([name, lastmod]) =>
          `<url><loc>${served.url}/docs/${name}.html</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`,
      );
      await writeFile(join(root, 'docs', 'sitemap.xml'), `<urlset>${urls.join('')}</urlset>`);
      const links = Object.keys(marks).map((name) => `<a href="${name}.html">${name}</a>`);
      await writeFile(
        join(root, 'docs', 'index.html'),
        `<title>Docs</title><main><p>Docs ${links.join(' ')}</p></main>`,
      );
    },
  };
  for (const name of PAGES) await files.page(name, `Page ${name}, as first written.`);
  await files.sitemap(lastmods);
  return files;
}

const OPTIONS = { retryDelayMs: 1, concurrency: 1 };
const byUrl = (result: CrawlResult) =>
  new Map<string, PageState>(result.pages.map((page) => [page.url, page]));
/** The page paths a crawl asked the site for, and how the site answered. */
/** The pages asked for, by name: sorted, since a crawl asks for a few at once, in any order. */
const asked = (served: StaticSite) =>
  served.requests
    .filter((r) => r.path.endsWith('.html'))
    .map((r) => `${r.path.slice('/docs/'.length)} ${r.status}`)
    .sort();
const statuses = (result: CrawlResult, base: string) =>
  Object.fromEntries(result.pages.map((page) => [page.url.slice(base.length), page.status]));

describe('crawlSite with a sitemap that gives <lastmod>', () => {
  it('asks nothing of a page whose lastmod has not moved, reads one whose lastmod is newer, and drops one gone from the sitemap', async () => {
    const { served, page, sitemap, root } = await site();
    const start = `${served.url}/docs/`;
    const first = await crawlSite(start, { ...OPTIONS, now: () => T0 });
    expect(first.pages.find((p) => p.url.endsWith('/a.html'))).toMatchObject({
      sitemapLastmod: Date.parse(JANUARY),
      checkedAt: T0,
    });

    await page('b', 'Page b, rewritten.');
    await unlink(join(root, 'docs', 'c.html'));
    await sitemap({ a: JANUARY, b: '2026-02-01T10:00:00Z' });
    served.requests.length = 0;
    const again = await crawlSite(start, { ...OPTIONS, previous: byUrl(first), now: () => T0 + DAY });
    // a is not asked for at all; b is read; the index page has no lastmod and is revalidated.
    expect(asked(served)).toEqual(['b.html 200']);
    expect(served.requests.map((r) => r.path)).toContain('/docs/');
    // c is gone from the sitemap and from the index's links (which changed): it is no page any more.
    expect(statuses(again, start)).toEqual({ '': 'changed', 'a.html': 'unchanged', 'b.html': 'changed' });
    // A page skipped keeps the time it was last really checked; a page read, the time of this crawl.
    const marks = byUrl(again);
    expect(marks.get(`${start}a.html`)).toMatchObject({ checkedAt: T0, sitemapLastmod: Date.parse(JANUARY) });
    expect(marks.get(`${start}b.html`)).toMatchObject({
      checkedAt: T0 + DAY,
      sitemapLastmod: Date.parse('2026-02-01T10:00:00Z'),
    });
  });

  it(`revalidates a page the sitemap vouches for once it was last checked ${LASTMOD_TRUST_MS / DAY} days ago, then trusts it again`, async () => {
    const { served } = await site();
    const start = `${served.url}/docs/`;
    const first = await crawlSite(start, { ...OPTIONS, now: () => T0 });
    served.requests.length = 0;
    const late = T0 + LASTMOD_TRUST_MS;
    const again = await crawlSite(start, { ...OPTIONS, previous: byUrl(first), now: () => late });
    expect(asked(served)).toEqual(['a.html 304', 'b.html 304', 'c.html 304']);
    expect(again.pages.every((p) => p.status === 'unchanged' && p.checkedAt === late)).toBe(true);

    served.requests.length = 0;
    await crawlSite(start, { ...OPTIONS, previous: byUrl(again), now: () => late + DAY });
    expect(asked(served)).toEqual([]);
  });

  it('revalidates at each crawl the share of the pages checked longest ago that the time since the last crawl is of the bound', async () => {
    const { served } = await site();
    const start = `${served.url}/docs/`;
    const first = await crawlSite(start, { ...OPTIONS, now: () => T0 });
    // Three days since the last crawl, 3/7 of the bound: of 3 pages vouched for, the one checked longest ago.
    const previous = byUrl(first);
    previous.set(`${start}a.html`, { ...previous.get(`${start}a.html`)!, checkedAt: T0 - 3 * DAY });
    previous.set(`${start}b.html`, { ...previous.get(`${start}b.html`)!, checkedAt: T0 - DAY });
    served.requests.length = 0;
    await crawlSite(start, { ...OPTIONS, previous, now: () => T0 + 3 * DAY });
    expect(asked(served)).toEqual(['a.html 304']);
    served.requests.length = 0;
    await crawlSite(start, { ...OPTIONS, previous, now: () => T0 + 5 * DAY });
    expect(asked(served)).toEqual(['a.html 304', 'b.html 304']);
  });

  it('believes no lastmod of the site for the rest of the crawl once a page it vouched for had changed', async () => {
    const { served, page } = await site();
    const start = `${served.url}/docs/`;
    const first = await crawlSite(start, { ...OPTIONS, now: () => T0 });
    // a is due for its check, and changed while its lastmod stayed; b and c are vouched for.
    const previous = byUrl(first);
    previous.set(`${start}a.html`, { ...previous.get(`${start}a.html`)!, checkedAt: T0 - LASTMOD_TRUST_MS });
    await page('a', 'Page a, changed behind its lastmod.');
    served.requests.length = 0;
    const again = await crawlSite(start, { ...OPTIONS, previous, now: () => T0 + DAY });
    expect(asked(served)).toEqual(['a.html 200', 'b.html 304', 'c.html 304']);
    expect(statuses(again, start)).toMatchObject({ 'a.html': 'changed', 'b.html': 'unchanged' });
  });

  it('says how many pages lastmod spared and when it caught a lie, believes no lastmod at the next crawl, and believes it again once that crawl found it truthful', async () => {
    const { served, page } = await site();
    const start = `${served.url}/docs/`;
    const first = await crawlSite(start, { ...OPTIONS, now: () => T0 });
    expect(first).toMatchObject({ lastmodSpared: 0, lastmodLieAt: null });
    const previous = byUrl(first);
    previous.set(`${start}a.html`, { ...previous.get(`${start}a.html`)!, checkedAt: T0 - LASTMOD_TRUST_MS });
    await page('a', 'Page a, changed behind its lastmod.');
    const lying = await crawlSite(start, { ...OPTIONS, previous, now: () => T0 + DAY });
    expect(lying).toMatchObject({ lastmodSpared: 0, lastmodLieAt: T0 + DAY });

    // The next crawl, a day later, takes the site's word for nothing: every page is revalidated.
    served.requests.length = 0;
    const doubted = await crawlSite(start, {
      ...OPTIONS,
      previous: byUrl(lying),
      lastmodLieAt: lying.lastmodLieAt,
      now: () => T0 + 2 * DAY,
    });
    expect(asked(served)).toEqual(['a.html 304', 'b.html 304', 'c.html 304']);
    // None of the pages its lastmod vouched for had changed: it is believed again.
    expect(doubted).toMatchObject({ lastmodSpared: 0, lastmodLieAt: null });

    served.requests.length = 0;
    const trusted = await crawlSite(start, {
      ...OPTIONS,
      previous: byUrl(doubted),
      lastmodLieAt: doubted.lastmodLieAt,
      now: () => T0 + 3 * DAY,
    });
    expect(asked(served)).toEqual([]);
    expect(trusted).toMatchObject({ lastmodSpared: 3, lastmodLieAt: null });
  });

  it('keeps a lie caught before while the crawl asks for no page the lastmod vouches for', async () => {
    const { served } = await site({ a: null, b: null, c: null });
    const start = `${served.url}/docs/`;
    const first = await crawlSite(start, { ...OPTIONS, now: () => T0 });
    const again = await crawlSite(start, {
      ...OPTIONS,
      previous: byUrl(first),
      lastmodLieAt: T0 - DAY,
      now: () => T0 + DAY,
    });
    expect(again).toMatchObject({ lastmodSpared: 0, lastmodLieAt: T0 - DAY });
  });

  it('revalidates a page whose lastmod is a date alone while that day may not be over where the site is', async () => {
    const { served } = await site({ a: '2026-02-01', b: '2026-01-30' });
    const start = `${served.url}/docs/`;
    // Read at noon (UTC) of a's day: a may change again that day with the same date.
    const first = await crawlSite(start, { ...OPTIONS, now: () => T0 + DAY / 2 });
    served.requests.length = 0;
    const again = await crawlSite(start, { ...OPTIONS, previous: byUrl(first), now: () => T0 + DAY });
    expect(asked(served)).toEqual(['a.html 304']);
    // Checked at midnight UTC, still within a's day somewhere; checked a day later, it is over everywhere.
    served.requests.length = 0;
    const third = await crawlSite(start, { ...OPTIONS, previous: byUrl(again), now: () => T0 + 2 * DAY });
    expect(asked(served)).toEqual(['a.html 304']);
    served.requests.length = 0;
    await crawlSite(start, { ...OPTIONS, previous: byUrl(third), now: () => T0 + 3 * DAY });
    expect(asked(served)).toEqual([]);
  });
});

storageSuite('a re-crawl that believes the sitemap, through the library and its store', (suite) => {
  it("asks nothing of the pages the sitemap vouches for at the console's re-crawl now, counts them unchanged, and asks again past the bound", async () => {
    const stores = await suite.open();
    const { served } = await site();
    const clock = new ManualClock();
    const library = new DocsLibrary({
      store: stores.docs,
      clock,
      network: { allowPrivate: true },
      crawl: { retryDelayMs: 1 },
    });
    try {
      const source = await library.addSource('proj_a', `${served.url}/docs/`);
      await library.tick();
      const again = async (after: number) => {
        clock.advance(after);
        served.requests.length = 0;
        await library.recrawlNow('proj_a', source.id);
        await library.tick();
        return (await library.sources('proj_a'))[0].lastRun;
      };
      expect(await again(DAY)).toMatchObject({ pagesUnchanged: 4, pagesChanged: 0, pagesRemoved: 0 });
      expect(asked(served)).toEqual([]);
      expect(await again(LASTMOD_TRUST_MS)).toMatchObject({ pagesUnchanged: 4 });
      expect(asked(served)).toEqual(['a.html 304', 'b.html 304', 'c.html 304']);
      expect(await again(DAY)).toMatchObject({ pagesUnchanged: 4 });
      expect(asked(served)).toEqual([]);
    } finally {
      await library.close();
    }
  });
});

storageSuite('a site whose lastmod lied, through the library and its store', (suite) => {
  it('is believed at no page of the next crawl, which the run and its log line say with the pages lastmod spared', async () => {
    const stores = await suite.open();
    const { served, page } = await site();
    const clock = new ManualClock();
    const logged: LogEntry[] = [];
    const library = new DocsLibrary({
      store: stores.docs,
      clock,
      log: (entry) => logged.push(entry),
      network: { allowPrivate: true },
      crawl: { retryDelayMs: 1 },
    });
    try {
      const source = await library.addSource('proj_a', `${served.url}/docs/`);
      await library.tick();
      const again = async (after: number) => {
        clock.advance(after);
        served.requests.length = 0;
        await library.recrawlNow('proj_a', source.id);
        await library.tick();
        return (await library.sources('proj_a'))[0].lastRun;
      };
      expect(await again(DAY)).toMatchObject({ pagesSpared: 3, lastmodLieAt: null });
      // Past the bound every page is revalidated, and a, vouched for, has changed: a lie.
      await page('a', 'Page a, changed behind its lastmod.');
      const caught = await again(LASTMOD_TRUST_MS);
      expect(caught).toMatchObject({ pagesSpared: 0, pagesChanged: 1, lastmodLieAt: clock.now() });
      const lines = logged.filter((entry) => entry.msg === 'docs_crawled');
      expect(lines.at(-2)).toMatchObject({ pages_spared: 3 });
      expect(lines.at(-2)).not.toHaveProperty('lastmod_lie_at');
      expect(lines.at(-1)).toMatchObject({
        pages_spared: 0,
        lastmod_lie_at: new Date(clock.now()).toISOString(),
      });
      // The next crawl believes no lastmod (the distrust outlived the crawl that caught it) ...
      expect(await again(DAY)).toMatchObject({ pagesSpared: 0, lastmodLieAt: null });
      expect(asked(served)).toEqual(['a.html 304', 'b.html 304', 'c.html 304']);
      // ... and, having found it truthful, the one after believes it again.
      expect(await again(DAY)).toMatchObject({ pagesSpared: 3, lastmodLieAt: null });
      expect(asked(served)).toEqual([]);
    } finally {
      await library.close();
    }
  });
});

describe('sitemapLastmod', () => {
  it('reads W3C dates and times, a date alone as its whole day in any zone, and nothing else', () => {
    expect(sitemapLastmod('2026-02-01T10:00:00+02:00')).toEqual({
      at: Date.parse('2026-02-01T08:00:00Z'),
      until: Date.parse('2026-02-01T08:00:00Z'),
    });
    expect(sitemapLastmod('2026-02-01')).toEqual({ at: T0, until: T0 + DAY + DAY / 2 });
    expect(sitemapLastmod('2026-02')).toEqual({ at: T0, until: Date.parse('2026-03-01T12:00:00Z') });
    for (const text of ['', 'yesterday', 'Feb 1, 2026', '2026-13-01', '2026-02-01T'])
      expect(sitemapLastmod(text)).toBeNull();
  });
});
