import { cp, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFolder, type StaticSite } from '../../../../scripts/static-site.mjs';
import {
  CrawlExcludedStartError,
  crawlSite,
  type CrawledPage,
  type CrawlProgress,
  type CrawlResult,
} from '../../../../service/docs/crawler.js';
import { StaticDocs } from '../../../../service/docs/ranking.js';
import { pdfThreads } from '../../../../service/kernel/pdf-thread.js';
import { pdfDocument } from '../../../fixtures/files.js';

const SITE = join(import.meta.dirname, '../../../fixtures/docs-site');
const open: StaticSite[] = [];
const temps: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((site) => site.close()));
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The fixture site, with a page that fails and one over the test's size cap. */
async function serve(
  root = SITE,
  routes: Record<string, (res: ServerResponse) => void> = {},
  gate?: (res: ServerResponse) => boolean,
) {
  const site = await serveFolder(root, {
    gate: gate && ((_req, res) => gate(res)),
    routes: {
      '/docs/broken.html': (_req, res) => res.writeHead(500).end('down'),
      '/docs/huge.html': (_req, res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/html' })
          .end(`<title>Huge</title><main><p>${'word '.repeat(40_000)}</p></main>`),
      ...Object.fromEntries(Object.entries(routes).map(([path, route]) => [path, (_req, res) => route(res)])),
    },
  });
  open.push(site);
  return site;
}

const OPTIONS = { maxPageBytes: 64 * 1024, retryDelayMs: 1 };
const paths = (result: CrawlResult, base: string) => result.pages.map((page) => page.url.slice(base.length));
const fetched = (site: StaticSite) => site.requests.map((r) => r.path);
/** A copy of the fixture site, served and crawled once: what a re-crawl revalidates against. */
async function crawledOnce() {
  const root = await mkdtemp(join(tmpdir(), 'docs-site-'));
  temps.push(root);
  await cp(SITE, root, { recursive: true });
  const site = await serve(root);
  const first = await crawlSite(`${site.url}/docs/`, OPTIONS);
  return { root, site, first, previous: new Map(first.pages.map((page) => [page.url, page])) };
}
/** The fixture site's pages a crawl of `/docs/` indexes. */
const FIXTURE_PAGES = [
  '/docs/',
  '/docs/guide/install.html',
  '/docs/guide/linked-only.html',
  '/docs/notes.md',
  '/docs/private/open.html',
  '/docs/reference/config.html',
];

describe('crawlSite on a local static site', () => {
  it('reads robots.txt and the sitemap first, then follows links, on the host and under the path given', async () => {
    const site = await serve();
    const result = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(paths(result, site.url)).toEqual(FIXTURE_PAGES);
    const order = fetched(site);
    expect(order.slice(0, 2)).toEqual(['/robots.txt', '/docs/sitemap.xml']);
    // The sitemap's pages next, fetched a few at a time: they may arrive in either order.
    expect(order.slice(2, 4).sort()).toEqual(['/docs/guide/install.html', '/docs/reference/config.html']);
    // Disallowed by robots.txt, off the path, off the host, not a page: never requested.
    for (const never of ['/docs/private/secret.html', '/outside.html', '/docs/logo.png'])
      expect(order).not.toContain(never);
    // What robots.txt kept out is counted (once, from the sitemap and a link alike), not failed.
    expect(result.disallowed).toBe(1);
    expect(result.failures.map((f) => f.url)).not.toContain(`${site.url}/docs/private/secret.html`);
    expect(result.complete).toBe(true);
    expect(result.truncated).toBe(false);
  });

  it('reports the pages that failed with their reasons, after one retry of a server error', async () => {
    const site = await serve();
    const { failures } = await crawlSite(`${site.url}/docs/`, OPTIONS);
    const byPath = Object.fromEntries(failures.map((f) => [f.url.slice(site.url.length), f.reason]));
    expect(byPath).toEqual({
      '/docs/broken.html': 'the server answered 500',
      '/docs/missing.html': 'not found (404)',
      '/docs/huge.html': 'the page is over 64 KB: not indexed',
    });
    expect(fetched(site).filter((path) => path === '/docs/broken.html')).toHaveLength(2);
    expect(fetched(site).filter((path) => path === '/docs/missing.html')).toHaveLength(1);
  });

  it('says of each failed page the first page that linked it, or the sitemap that listed it', async () => {
    const site = await serve(SITE, { '/docs/reference/config.html': (res) => res.writeHead(404).end() });
    const { failures } = await crawlSite(`${site.url}/docs/`, OPTIONS);
    const from = Object.fromEntries(failures.map((f) => [f.url.slice(site.url.length), f.from]));
    expect(from).toEqual({
      '/docs/broken.html': { url: `${site.url}/docs/`, by: 'link' },
      '/docs/missing.html': { url: `${site.url}/docs/`, by: 'link' },
      '/docs/huge.html': { url: `${site.url}/docs/`, by: 'link' },
      // Listed in the sitemap before the start page linked it: the sitemap is what lists it.
      '/docs/reference/config.html': { url: `${site.url}/docs/sitemap.xml`, by: 'sitemap' },
    });
  });

  it('slows the whole crawl when the site answers 429, and still reads every page', async () => {
    // A rate limit of one request each 40 ms: a burst of four at once gets three refusals.
    let last = 0;
    const site = await serve(SITE, {}, (res) => {
      const now = Date.now();
      if (now - last >= 40) {
        last = now;
        return false;
      }
      res.writeHead(429, { 'Retry-After': '0' }).end('slow down');
      return true;
    });
    const result = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, retryDelayMs: 20 });
    expect(paths(result, site.url)).toEqual(FIXTURE_PAGES);
    expect(result.failures.map((f) => f.reason).sort()).toEqual([
      'not found (404)',
      'the page is over 64 KB: not indexed',
      'the server answered 500',
    ]);
    expect(result.complete).toBe(true);
    const refused = site.requests.filter((r) => r.status === 429).length;
    const answered = site.requests.length - refused;
    // Slowed once for all: fewer refusals than pages, where each request alone would retry into more.
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(answered);
  });

  it("keeps robots.txt's Crawl-delay between its requests, and gives a page up after 4 refusals", async () => {
    const root = await mkdtemp(join(tmpdir(), 'docs-'));
    temps.push(root);
    await cp(SITE, root, { recursive: true });
    await writeFile(
      join(root, 'robots.txt'),
      'User-agent: *\nCrawl-delay: 0.05\nSitemap: /docs/sitemap.xml\n',
    );
    const site = await serve(root, {
      '/docs/reference/config.html': (res) => res.writeHead(503, { 'Retry-After': '0' }).end('busy'),
    });
    const result = await crawlSite(`${site.url}/docs/`, OPTIONS);
    // 50 ms from each request's start to the next: the whole span, which a stalled event loop
    // cannot shorten as it can one gap between two arrivals.
    const starts = site.requests.map((r) => r.at).sort((a, b) => a - b);
    expect(starts.at(-1)! - starts[0]).toBeGreaterThanOrEqual((starts.length - 1) * 50 * 0.8);
    expect(result.failures).toContainEqual({
      url: `${site.url}/docs/reference/config.html`,
      reason: 'the server answered 503',
      from: { url: `${site.url}/docs/sitemap.xml`, by: 'sitemap' },
    });
    expect(fetched(site).filter((path) => path === '/docs/reference/config.html')).toHaveLength(4);
  });

  it('keeps the main content with its headings and anchors, without navigation, footers, scripts or styles', async () => {
    const site = await serve();
    const { pages } = await crawlSite(`${site.url}/docs/`, OPTIONS);
    const install = pages.find((page) => page.url.endsWith('/guide/install.html'))!;
    expect(install.title).toBe('Installing Acme');
    expect(install.sections.map((s) => [s.url.slice(site.url.length), s.headings])).toEqual([
      ['/docs/guide/install.html', []],
      ['/docs/guide/install.html#requirements', ['Requirements']],
      ['/docs/guide/install.html#upgrading', ['Upgrading from version 1']],
      // A heading without an anchor of its own is reached by its enclosing heading's.
      ['/docs/guide/install.html#upgrading', ['Upgrading from version 1', 'Rolling back']],
    ]);
    expect(install.sections[1].text).toBe(
      'You need `npm` and a database.\n\n- PostgreSQL 15 or later\n\n- 2 GB of memory',
    );
    expect(install.sections[2].text).toContain('```\nacme migrate --to 2\n```');
    expect(install.sections[3].text).toContain('| Version | Supported until |');
    const all = JSON.stringify(pages);
    for (const noise of ['Sidebar text', 'Copyright footer', 'Footer text', 'script text', 'style text', '¶'])
      expect(all).not.toContain(noise);
    const config = pages.find((page) => page.url.endsWith('/reference/config.html'))!;
    expect(config.sections.map((s) => s.url.slice(site.url.length))).toContain(
      '/docs/reference/config.html#max_locks_per_transaction',
    );
    // A list of links only is navigation, not content.
    expect(JSON.stringify(config.sections)).not.toContain('Troubleshooting');
    const notes = pages.find((page) => page.url.endsWith('/notes.md'))!;
    expect(notes.sections.map((s) => s.url.slice(site.url.length))).toEqual([
      '/docs/notes.md#version-2',
      '/docs/notes.md#version-1',
    ]);
  });

  it('reads the canonical page in place of a copy, and ignores a canonical address off the site', async () => {
    const site = await serve();
    const { pages } = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(JSON.stringify(pages)).not.toContain('as an older address said');
    expect(fetched(site)).toContain('/docs/guide/alias.html');
    expect(pages.filter((page) => page.title === 'Installing Acme')).toHaveLength(1);
    expect(pages.some((page) => page.url === `${site.url}/docs/reference/config.html`)).toBe(true);
  });

  it('drops a page served at two addresses with the same content, keeping the shorter address', async () => {
    const site = await serve();
    const { pages } = await crawlSite(`${site.url}/docs/index.html`, OPTIONS);
    expect(fetched(site)).toEqual(expect.arrayContaining(['/docs/index.html', '/docs/']));
    expect(pages.filter((page) => page.title === 'Acme docs').map((p) => p.url)).toEqual([
      `${site.url}/docs/`,
    ]);
  });

  it('revalidates with ETag on a re-crawl: unchanged pages come back without sections, changed and removed ones are told apart', async () => {
    const { root, site, first, previous } = await crawledOnce();

    site.requests.length = 0;
    const again = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, previous });
    expect(again.pages.map((p) => [p.url, p.status])).toEqual(first.pages.map((p) => [p.url, 'unchanged']));
    expect(again.pages.every((p) => p.sections.length === 0)).toBe(true);
    // Every page the index holds answered 304 (and the copies of them it remembers, below).
    const known = new Set(first.pages.map((page) => page.url.slice(site.url.length)));
    expect(site.requests.filter((r) => known.has(r.path)).map((r) => r.status)).toEqual(
      [...known].map(() => 304),
    );
    // Links of a page that answered 304 are followed from the last crawl: nothing goes missing.
    expect(fetched(site)).toContain('/docs/guide/linked-only.html');

    await writeFile(
      join(root, 'docs/guide/linked-only.html'),
      '<title>Troubleshooting</title><main><h1>Troubleshooting</h1><p>Rewritten.</p></main>',
    );
    await unlink(join(root, 'docs/notes.md'));
    const third = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, previous });
    const status = Object.fromEntries(third.pages.map((p) => [p.url.slice(site.url.length), p.status]));
    expect(status['/docs/guide/linked-only.html']).toBe('changed');
    expect(status['/docs/notes.md']).toBeUndefined();
    // Linked from a page that answered 304: the link is the one the last crawl saw.
    expect(third.failures).toContainEqual({
      url: `${site.url}/docs/notes.md`,
      reason: 'not found (404)',
      from: { url: `${site.url}/docs/`, by: 'link' },
    });
    expect(status['/docs/guide/install.html']).toBe('unchanged');
  });

  it('a no-change re-crawl revalidates every address it read, copies included: nothing is read whole twice', async () => {
    const site = await serve();
    const first = await crawlSite(`${site.url}/docs/`, OPTIONS);
    // Read whole the first time: /docs/index.html serves /docs/ again, alias.html names install.html canonical.
    const read = fetched(site);
    expect(read).toEqual(expect.arrayContaining(['/docs/index.html', '/docs/guide/alias.html']));
    const previous = new Map(first.pages.map((page) => [page.url, page]));
    const firstBytes = site.requests.reduce((sum, r) => sum + r.bytes, 0);

    site.requests.length = 0;
    const again = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, previous });
    expect(paths(again, site.url)).toEqual(FIXTURE_PAGES);
    expect(again.pages.every((page) => page.status === 'unchanged')).toBe(true);
    // The same addresses as the first time, and every page or copy answered 304: only robots.txt,
    // the sitemap and the pages that fail (a 500, a 404, one over the size cap) have a body.
    expect(fetched(site).sort()).toEqual([...read].sort());
    const bodies = site.requests.filter((r) => r.status !== 304).map((r) => r.path);
    expect([...new Set(bodies)].sort()).toEqual([
      '/docs/broken.html',
      '/docs/huge.html',
      '/docs/missing.html',
      '/docs/sitemap.xml',
      '/robots.txt',
    ]);
    const pageBytes = (requests: StaticSite['requests']) =>
      requests.filter((r) => !bodies.includes(r.path)).reduce((sum, r) => sum + r.bytes, 0);
    expect(pageBytes(site.requests)).toBe(0);
    expect(site.requests.reduce((sum, r) => sum + r.bytes, 0)).toBeLessThan(firstBytes);
    // The copies are remembered with the page they copy, and so again after this crawl.
    const copies = (result: CrawlResult) =>
      Object.fromEntries(
        result.pages
          .filter((page) => page.copies?.length)
          .map((page) => [
            page.url.slice(site.url.length),
            page.copies!.map((c) => c.url.slice(site.url.length)),
          ]),
      );
    expect(copies(first)).toEqual({
      '/docs/': ['/docs/index.html'],
      '/docs/guide/install.html': ['/docs/guide/alias.html'],
    });
    expect(copies(again)).toEqual(copies(first));
  });

  it('a copy that changed is read again: one that no longer names a canonical page is a page of its own', async () => {
    const { root, site, previous } = await crawledOnce();
    await writeFile(
      join(root, 'docs/guide/alias.html'),
      '<title>Upgrading</title><main><h1>Upgrading Acme</h1><p>Stop the server first.</p></main>',
    );
    site.requests.length = 0;
    const again = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, previous });
    expect(site.requests.find((r) => r.path === '/docs/guide/alias.html')?.status).toBe(200);
    const alias = again.pages.find((page) => page.url === `${site.url}/docs/guide/alias.html`);
    expect(alias).toMatchObject({ status: 'new', title: 'Upgrading Acme' });
    expect(alias?.sections.map((section) => section.text)).toEqual(['Stop the server first.']);
    const install = again.pages.find((page) => page.url === `${site.url}/docs/guide/install.html`);
    expect(install).toMatchObject({ status: 'unchanged', copies: [] });
  });

  it('revalidates with Last-Modified when a server sends no ETag', async () => {
    const modified = 'Tue, 01 Dec 2026 10:00:00 GMT';
    const seen: (string | undefined)[] = [];
    const site = await serveFolder(SITE, {
      routes: {
        '/robots.txt': (_req, res) => res.writeHead(404).end(),
        '/docs/sitemap.xml': (_req, res) => res.writeHead(404).end(),
        '/docs/': (req, res) => {
          seen.push(req.headers['if-modified-since']);
          if (req.headers['if-modified-since'] === modified) return res.writeHead(304).end();
          res
            .writeHead(200, { 'Content-Type': 'text/html', 'Last-Modified': modified })
            .end('<title>Only</title><p>One page.</p>');
        },
      },
    });
    open.push(site);
    const first = await crawlSite(`${site.url}/docs/`, OPTIONS);
    const again = await crawlSite(`${site.url}/docs/`, {
      ...OPTIONS,
      previous: new Map(first.pages.map((p) => [p.url, p])),
    });
    expect(seen).toEqual([undefined, modified]);
    expect(again.pages.map((p) => p.status)).toEqual(['unchanged']);
  });

  it('crawls nothing, and says the crawl is incomplete, while robots.txt answers with a server error', async () => {
    const site = await serve(SITE, { '/robots.txt': (res) => res.writeHead(500).end() });
    const result = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(result.pages).toEqual([]);
    expect(result.complete).toBe(false);
    expect(result.failures).toEqual([
      {
        url: `${site.url}/robots.txt`,
        reason: 'the server answered 500: nothing is crawled until robots.txt answers',
      },
    ]);
    expect(fetched(site)).toEqual(['/robots.txt', '/robots.txt']);
  });

  it('starts from a sitemap, and stops at the page cap', async () => {
    const site = await serve();
    const fromSitemap = await crawlSite(`${site.url}/docs/sitemap.xml`, OPTIONS);
    expect(paths(fromSitemap, site.url)).toContain('/docs/guide/install.html');
    const capped = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, maxPages: 2 });
    console.log(capped.pages.map((p) => p.url));
    expect(capped.truncated).toBe(true);
    expect(capped.pages).toHaveLength(2);
  });

  it('stops at the text cap: the pages read before it are kept, no page past it is read', async () => {
    const site = await serve();
    const textOf = (page: CrawledPage) =>
      page.sections.reduce((n, s) => n + s.text.length, page.title.length);
    const whole = await crawlSite(`${site.url}/docs/`, OPTIONS);
    const total = whole.pages.reduce((n, page) => n + textOf(page), 0);
    expect(whole.truncated).toBe(false);
    const cap = Math.round(total / 2);
    const capped = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, maxTextChars: cap });
    expect(capped.truncated).toBe(true);
    expect(capped.pages.length).toBeGreaterThan(0);
    expect(capped.pages.length).toBeLessThan(whole.pages.length);
    expect(capped.pages.reduce((n, page) => n + textOf(page), 0)).toBeLessThanOrEqual(cap);
  });

  it('reads a gzipped sitemap, and refuses one that inflates past its cap', async () => {
    const sitemap = await readFile(join(SITE, 'docs/sitemap.xml'));
    // Compressed before the crawl, so no handler holds the process the crawler's timer runs in.
    const bombBytes = gzipSync(Buffer.alloc(20 << 20, ' '));
    const site = await serve(SITE, {
      '/docs/sitemap.xml.gz': (res) =>
        res.writeHead(200, { 'Content-Type': 'application/gzip' }).end(gzipSync(sitemap)),
      '/docs/bomb.xml.gz': (res) => res.writeHead(200, { 'Content-Type': 'application/gzip' }).end(bombBytes),
    });
    const result = await crawlSite(`${site.url}/docs/sitemap.xml.gz`, OPTIONS);
    expect(paths(result, site.url)).toContain('/docs/reference/config.html');
    expect(result.failures.map((f) => f.url)).not.toContain(`${site.url}/docs/sitemap.xml.gz`);

    const bomb = await crawlSite(`${site.url}/docs/bomb.xml.gz`, OPTIONS);
    expect(bomb.pages).toEqual([]);
    expect(bomb.failures).toEqual([
      { url: `${site.url}/docs/bomb.xml.gz`, reason: 'the sitemap is over 640 KB or damaged: not read' },
    ]);
  });

  it('tells how far it has got: robots.txt, the sitemap, then each page read or failed, in order', async () => {
    const site = await serve();
    const steps: CrawlProgress[] = [];
    const result = await crawlSite(`${site.url}/docs/`, {
      ...OPTIONS,
      onProgress: (step) => steps.push({ ...step }),
    });
    expect(steps.slice(0, 3)).toEqual([
      { phase: 'robots', pagesRead: 0, pagesFailed: 0 },
      { phase: 'sitemap', pagesRead: 0, pagesFailed: 0 },
      { phase: 'pages', pagesRead: 0, pagesFailed: 0 },
    ]);
    // One step after each request of a page: the counts only grow, to the result's.
    const pages = steps.slice(3);
    expect(pages.length).toBeGreaterThanOrEqual(FIXTURE_PAGES.length + 3);
    expect(pages.every((step) => step.phase === 'pages')).toBe(true);
    for (let i = 1; i < pages.length; i++) {
      expect(pages[i].pagesRead).toBeGreaterThanOrEqual(pages[i - 1].pagesRead);
      expect(pages[i].pagesFailed).toBeGreaterThanOrEqual(pages[i - 1].pagesFailed);
    }
    // Read: 7 pages, one of them a copy of another the result keeps once; failed: the 3 failures.
    expect(steps.at(-1)).toEqual({ phase: 'pages', pagesRead: 7, pagesFailed: result.failures.length });
    expect(result.pages).toHaveLength(6);
  });

  it('has at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = (res: ServerResponse) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<title>Slow</title><p>Slow page.</p>');
      }, 20);
    };
    const links = Array.from({ length: 12 }, (_, i) => `<a href="p${i}.html">${i}</a>`).join('');
    const site = await serveFolder(SITE, {
      routes: {
        '/many/': (_req, res) =>
          res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<title>Many</title><p>Start.</p>${links}`),
        ...Object.fromEntries(
          Array.from({ length: 12 }, (_, i) => [
            `/many/p${i}.html`,
            (_req: unknown, res: ServerResponse) => slow(res),
          ]),
        ),
      },
    });
    open.push(site);
    const result = await crawlSite(`${site.url}/many/`, { ...OPTIONS, concurrency: 3 });
    expect(result.pages).toHaveLength(2); // the start and one slow page: the others have the same content
    expect(most).toBe(3);
  });

  it('never requests a page the owner excludes, from a link or the sitemap, and counts it apart from failures', async () => {
    const site = await serve();
    const result = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, exclude: ['/docs/guide/', '*.md'] });
    expect(paths(result, site.url)).toEqual([
      '/docs/',
      '/docs/private/open.html',
      '/docs/reference/config.html',
    ]);
    // install.html is in the sitemap, the others are linked from the start page.
    for (const never of [
      '/docs/guide/install.html',
      '/docs/guide/linked-only.html',
      '/docs/guide/alias.html',
      '/docs/notes.md',
    ])
      expect(fetched(site)).not.toContain(never);
    expect(result.excluded).toBe(4);
    expect(result.failures.map((f) => f.url)).not.toContain(`${site.url}/docs/guide/install.html`);
    expect(result.complete).toBe(true);
  });

  it('does not follow the links of an excluded page, and matches its path without the query', async () => {
    const page = (body: string) => (res: ServerResponse) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<title>Page</title><main>${body}</main>`);
    const site = await serve(SITE, {
      '/robots.txt': (res) => res.writeHead(404).end(),
      '/docs/sitemap.xml': (res) => res.writeHead(404).end(),
      '/docs/': page(
        '<p>Start.</p><a href="releases/5.0.html?lang=en">Release notes</a><a href="current.html">Current</a>',
      ),
      '/docs/current.html': page('<p>The current page.</p>'),
      '/docs/releases/5.0.html': page('<p>Old news.</p><a href="../only-from-releases.html">Only here</a>'),
      '/docs/only-from-releases.html': page('<p>Reached only through the release notes.</p>'),
    });
    const result = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, exclude: ['*/releases/'] });
    expect(paths(result, site.url)).toEqual(['/docs/', '/docs/current.html']);
    expect(fetched(site)).not.toContain('/docs/releases/5.0.html');
    expect(fetched(site)).not.toContain('/docs/only-from-releases.html');
    expect(result.excluded).toBe(1);
  });

  it('refuses to start from an address its own patterns exclude, before any request', async () => {
    const site = await serve();
    const crawl = crawlSite(`${site.url}/docs/guide/`, { ...OPTIONS, exclude: ['/docs/guide/'] });
    await expect(crawl).rejects.toBeInstanceOf(CrawlExcludedStartError);
    await expect(crawl).rejects.toThrow(
      `${site.url}/docs/guide/ is itself excluded by the pattern /docs/guide/: nothing would be crawled.`,
    );
    expect(fetched(site)).toEqual([]);
  });
});

describe('crawlSite where the start address sends the crawler on, and pages without text', () => {
  /** A site of routes only (no files), the way a host that only redirects is. */
  async function routesOnly(routes: Record<string, (res: ServerResponse) => void>) {
    const empty = await mkdtemp(join(tmpdir(), 'agent-chat-empty-'));
    temps.push(empty);
    return serve(empty, routes);
  }
  const refreshTo = (target: string) =>
    `<!doctype html><title>Moved</title><meta http-equiv="refresh" content="0; URL='${target}'"><p>Redirecting to <a href="${target}">the docs</a></p>`;
  const html = (res: ServerResponse, body: string) =>
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(body);

  it('follows the start address to another host, and crawls the site it leads to with that host’s robots.txt and sitemap', async () => {
    const docs = await serve();
    const old = await routesOnly({
      '/docs/': (res) => res.writeHead(301, { Location: `${docs.url}/docs/` }).end(),
    });
    const result = await crawlSite(`${old.url}/docs/`, OPTIONS);
    expect(paths(result, docs.url)).toEqual(FIXTURE_PAGES);
    // The new host's robots.txt keeps its private folder out, as on a crawl started there.
    expect(fetched(docs).slice(0, 2)).toEqual(['/robots.txt', '/docs/sitemap.xml']);
    expect(fetched(docs)).not.toContain('/docs/private/secret.html');
    expect(result.complete).toBe(true);
  });

  it('reads a page that refreshes at once as a redirect: the start moves, another page stands for its target', async () => {
    const docs = await serve(SITE, {
      '/docs/old-install.html': (res) => html(res, refreshTo('guide/install.html')),
    });
    const old = await routesOnly({ '/': (res) => html(res, refreshTo(`${docs.url}/docs/`)) });
    const result = await crawlSite(`${old.url}/`, OPTIONS);
    expect(result.pages[0].url).toBe(`${docs.url}/docs/`);
    expect(paths(result, docs.url)).toContain('/docs/guide/install.html');
    // The root's page of docs is `/docs/`: the target's folder, not the host's whole root.
    expect(fetched(docs)).not.toContain('/outside.html');

    const moved = await crawlSite(`${docs.url}/docs/old-install.html`, { ...OPTIONS, maxPages: 3 });
    expect(moved.pages.map((page) => page.title)).toContain('Installing Acme');
    expect(moved.pages.map((page) => page.title)).not.toContain('Moved');
  });

  it('does not follow the start address to another site, and says which address to add', async () => {
    const docs = await serve();
    const elsewhere = docs.url.replace('127.0.0.1', 'localhost');
    const old = await routesOnly({
      '/docs/': (res) => res.writeHead(302, { Location: `${elsewhere}/docs/` }).end(),
    });
    const result = await crawlSite(`${old.url}/docs/`, OPTIONS);
    expect(result.pages).toEqual([]);
    expect(result.failures).toEqual([
      {
        url: `${old.url}/docs/`,
        reason: `redirects to ${elsewhere}/docs/, another site: add that address as the source`,
      },
    ]);
    expect(fetched(docs)).toEqual([]);
  });

  it('stops after 5 moves of the start address, and says so', async () => {
    const hops = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [
        `/v${i}/`,
        (res: ServerResponse) => res.writeHead(302, { Location: `/v${i + 1}/` }).end(),
      ]),
    );
    const site = await routesOnly(hops);
    const result = await crawlSite(`${site.url}/v0/`, OPTIONS);
    expect(result.pages).toEqual([]);
    expect(result.failures).toEqual([{ url: `${site.url}/v5/`, reason: 'redirects more than 5 times' }]);
    expect(fetched(site).filter((path) => path.endsWith('/'))).toEqual([
      '/v0/',
      '/v1/',
      '/v2/',
      '/v3/',
      '/v4/',
      '/v5/',
    ]);
  });

  it('says when no page read has text, and that the site may be drawn by JavaScript', async () => {
    const site = await routesOnly({
      '/app/': (res) =>
        html(
          res,
          '<!doctype html><html><head><title>Acme Docs</title><script type="module" src="/app/main.js"></script></head>' +
            '<body><div id="root"><a href="/app/empty.html"></a><a href="/app/moved.html"></a></div>' +
            '<noscript>You need to enable JavaScript to run this app.</noscript></body></html>',
        ),
      '/app/empty.html': (res) => html(res, '<title>Empty</title><main><h1>Empty</h1></main>'),
      '/app/moved.html': (res) => res.writeHead(301).end(),
    });
    const result = await crawlSite(`${site.url}/app/`, OPTIONS);
    expect(result.pages).toEqual([]);
    const reasons = Object.fromEntries(result.failures.map((f) => [f.url.slice(site.url.length), f.reason]));
    expect(reasons).toEqual({
      '/app/': expect.stringMatching(
        /^no text in the HTML of any page read: the site may draw its pages with JavaScript/,
      ),
      '/app/moved.html': 'redirects to no readable address',
    });
    // Nothing read says nothing about which pages are gone.
    expect(result.complete).toBe(false);
  });

  it('leaves a page of links alone, on a site whose other pages have text', async () => {
    const site = await serve(SITE, {
      '/docs/': (res) =>
        html(
          res,
          '<html><head><title>Acme</title><script src="/docs/searchtools.js"></script></head><body><main><h1>Acme</h1>' +
            '<nav><ul><li><a href="guide/install.html">Installing</a></li></ul></nav></main></body></html>',
        ),
    });
    const result = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(result.failures.map((f) => f.url.slice(site.url.length))).not.toContain('/docs/');
    expect(
      result.pages.find((page) => page.url.endsWith('/guide/install.html'))!.sections.length,
    ).toBeGreaterThan(0);
    expect(result.complete).toBe(true);
  });
});

describe('crawlSite with PDFs', () => {
  const GUIDE = pdfDocument({
    title: 'Acme Installation Guide',
    pages: [
      ['Acme Installation Guide'],
      ['You need PostgreSQL 15.'],
      ['Run acme migrate --to 1 to roll back.'],
    ],
    outline: [
      { title: 'Requirements', page: 2 },
      { title: 'Rolling back', page: 3 },
    ],
  });

  /** A site whose start page links a PDF in scope, one without text, one too large and one out of scope. */
  async function pdfSite(root: string) {
    await mkdir(join(root, 'docs'), { recursive: true });
    await mkdir(join(root, 'other'), { recursive: true });
    await writeFile(
      join(root, 'docs/index.html'),
      '<title>Acme docs</title><main><p>Start.</p><a href="guide.pdf">Guide</a> <a href="scan.pdf">Scan</a> ' +
        '<a href="huge.pdf">Huge</a> <a href="../other/manual.pdf">Other</a></main>',
    );
    await writeFile(join(root, 'docs/guide.pdf'), GUIDE);
    await writeFile(join(root, 'docs/scan.pdf'), pdfDocument({ pages: [[], []] }));
    await writeFile(join(root, 'other/manual.pdf'), GUIDE);
    const site = await serveFolder(root, {
      routes: {
        // A declared length over the cap: refused before a byte of it is read.
        '/docs/huge.pdf': (_req, res) => {
          res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': 25_000_000 });
          // The rest never comes: the crawler has no need of it.
          res.write('%PDF-1.4\n');
        },
      },
    });
    open.push(site);
    return site;
  }

  async function tempRoot() {
    const root = await mkdtemp(join(tmpdir(), 'docs-pdf-site-'));
    temps.push(root);
    return root;
  }

  it('follows a .pdf link in scope, not one out of it, and indexes each PDF page at #page=N', async () => {
    const accepts: (string | undefined)[] = [];
    const site = await pdfSite(await tempRoot());
    const result = await crawlSite(`${site.url}/docs/`, {
      ...OPTIONS,
      fetch: (input, init) => {
        accepts.push(new Headers(init?.headers).get('Accept') ?? undefined);
        return fetch(input, init);
      },
    });
    expect(paths(result, site.url)).toEqual(['/docs/', '/docs/guide.pdf']);
    expect(fetched(site)).not.toContain('/other/manual.pdf');
    const guide = result.pages.find((page) => page.url.endsWith('/guide.pdf'))!;
    expect(guide.title).toBe('Acme Installation Guide');
    expect(guide.links).toEqual([]);
    expect(guide.sections.map((s) => [s.url.slice(site.url.length), s.headings, s.text])).toEqual([
      ['/docs/guide.pdf#page=1', ['Page 1'], 'Acme Installation Guide'],
      ['/docs/guide.pdf#page=2', ['Requirements'], 'You need PostgreSQL 15.'],
      ['/docs/guide.pdf#page=3', ['Rolling back'], 'Run acme migrate --to 1 to roll back.'],
    ]);
    // PDFs are asked for, below pages.
    expect(accepts[0]).toMatch(/application\/pdf;q=0\.\d/);
    // A search over the crawl finds the PDF's page.
    const docs = new StaticDocs(result.pages.flatMap((page) => page.sections));
    expect((await docs.search('how do I roll back'))[0].section.url).toBe(
      `${site.url}/docs/guide.pdf#page=3`,
    );
  });

  it("reads a crawl's PDFs on one thread of pdf.js, and leaves none behind", async () => {
    const root = await tempRoot();
    await mkdir(join(root, 'docs'), { recursive: true });
    const names = Array.from({ length: 6 }, (_, i) => `manual-${i}.pdf`);
    await writeFile(
      join(root, 'docs/index.html'),
      `<title>Manuals</title><main><p>Start.</p>${names.map((n) => `<a href="${n}">${n}</a>`).join(' ')}</main>`,
    );
    for (const [i, name] of names.entries())
      await writeFile(join(root, 'docs', name), pdfDocument({ pages: [[`Manual ${i} says hello.`]] }));
    const site = await serveFolder(root);
    open.push(site);
    const before = pdfThreads().started;
    const result = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(
      result.pages
        .filter((p) => p.url.endsWith('.pdf'))
        .map((p) => p.sections[0].text)
        .sort(),
    ).toEqual(names.map((_, i) => `Manual ${i} says hello.`));
    // Two at most side by side (725), each kept for the PDF after it.
    expect(pdfThreads().started - before).toBeLessThanOrEqual(2);
    expect(pdfThreads().alive).toBe(0);
  });

  it('reports a PDF without text and one over the cap as failures that say why', async () => {
    const site = await pdfSite(await tempRoot());
    const { failures } = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(Object.fromEntries(failures.map((f) => [f.url.slice(site.url.length), f.reason]))).toEqual({
      '/docs/scan.pdf': 'no text: a scanned PDF? it has no text layer to index',
      '/docs/huge.pdf': 'the PDF is over 20 MB: not indexed',
    });
    const small = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, maxPdfBytes: 1_000 });
    expect(small.failures).toContainEqual({
      url: `${site.url}/docs/guide.pdf`,
      reason: 'the PDF is over 1 KB: not indexed',
      from: { url: `${site.url}/docs/`, by: 'link' },
    });
  });

  it('revalidates a PDF: a 304 keeps it, the same content served again is unchanged, new content is changed', async () => {
    const root = await tempRoot();
    const site = await pdfSite(root);
    const first = await crawlSite(`${site.url}/docs/`, OPTIONS);
    const previous = new Map(first.pages.map((page) => [page.url, page]));
    const status = (result: CrawlResult) =>
      result.pages.find((page) => page.url.endsWith('/guide.pdf'))?.status;

    site.requests.length = 0;
    expect(status(await crawlSite(`${site.url}/docs/`, { ...OPTIONS, previous }))).toBe('unchanged');
    expect(site.requests.find((r) => r.path === '/docs/guide.pdf')?.status).toBe(304);

    // Written again (a new ETag), with the same pages: read, and found the same.
    await writeFile(join(root, 'docs/guide.pdf'), new Uint8Array([...GUIDE, 0x0a]));
    site.requests.length = 0;
    const same = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, previous });
    expect(site.requests.find((r) => r.path === '/docs/guide.pdf')?.status).toBe(200);
    expect(status(same)).toBe('unchanged');

    await writeFile(join(root, 'docs/guide.pdf'), pdfDocument({ pages: [['A rewritten guide.']] }));
    const changed = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, previous });
    expect(status(changed)).toBe('changed');
    expect(changed.pages.find((p) => p.url.endsWith('/guide.pdf'))?.sections.map((s) => s.text)).toEqual([
      'A rewritten guide.',
    ]);
  });
});

describe('crawlSite reads what response headers say of a page', () => {
  const page = (title: string, links = '') =>
    `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Some words about ${title}.</p>${links}</main></body></html>`;
  const send = (body: string, headers: Record<string, string>) => (res: ServerResponse) =>
    res.writeHead(200, { 'Content-Type': 'text/html', ...headers }).end(body);

  it('honours X-Robots-Tag for every crawler or for agent-chat, and a Link header’s canonical address', async () => {
    const site = await serve(SITE, {
      '/docs/': send(
        page(
          'Home',
          ['hidden', 'for-google', 'ours-none', 'copy', 'valued']
            .map((p) => `<a href="${p}.html">${p}</a>`)
            .join(' '),
        ),
        {},
      ),
      '/docs/hidden.html': send(page('Hidden', '<a href="behind-hidden.html">next</a>'), {
        'X-Robots-Tag': 'noindex',
      }),
      '/docs/behind-hidden.html': send(page('Behind hidden'), {}),
      '/docs/for-google.html': send(page('For Google'), { 'X-Robots-Tag': 'googlebot: noindex, nofollow' }),
      '/docs/ours-none.html': send(page('Ours none', '<a href="behind-none.html">next</a>'), {
        'X-Robots-Tag': 'max-snippet: 20, agent-chat: none',
      }),
      '/docs/behind-none.html': send(page('Behind none'), {}),
      '/docs/copy.html': send(page('Copy'), { Link: '<guide/install.html>; rel="canonical"' }),
      '/docs/valued.html': send(page('Valued'), { 'X-Robots-Tag': 'unavailable_after: 2030-01-01' }),
    });
    const result = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, maxPages: 40 });
    const titles = result.pages.map((p) => p.title);
    // noindex: not indexed, its links followed; another crawler's word does not count; none: neither.
    expect(titles).not.toContain('Hidden');
    expect(titles).toContain('Behind hidden');
    expect(titles).toContain('For Google');
    expect(titles).not.toContain('Ours none');
    expect(fetched(site)).not.toContain('/docs/behind-none.html');
    expect(titles).toContain('Valued');
    // The copy names its canonical page by header: that page is read in its place.
    expect(titles).not.toContain('Copy');
    expect(titles).toContain('Installing Acme');
  });
});
