/**
 * A hostile docs site against the crawler's bounds (decisions 287, 651): pages that drip or never
 * end, sitemaps that nest, loop or list without end, addresses without end. The site is a local
 * server on 127.0.0.1, read through the service's own transport (`siteFetch`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { gzipSync } from 'node:zlib';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { crawlSite, type CrawlOptions } from '../../../../service/docs/crawler.js';
import { siteFetch } from '../../../../service/docs/site-network.js';
import { pdfDocument } from '../../../fixtures/files.js';

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A site whose every path `route` answers; robots.txt is a 404 (no rules) unless `routesRobots`. */
async function hostileSite(
  route: (path: string, req: IncomingMessage, res: ServerResponse) => void,
  routesRobots = false,
) {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    paths.push(path);
    res.on('error', () => {});
    if (path === '/robots.txt' && !routesRobots) return res.writeHead(404).end();
    route(path, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  closers.push(() => server.closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

/**
 * Garbage collections every few milliseconds until stopped: what a busy service does, and what
 * took a timeout signal held only weakly before it fired (Node 20).
 */
function collecting(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const timer = setInterval(gc, 10);
  return () => clearInterval(timer);
}

const html = (res: ServerResponse, body: string) =>
  res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<title>Page</title><main>${body}</main>`);

const OPTIONS: CrawlOptions = {
  fetch: siteFetch({ allowPrivate: true }),
  retryDelayMs: 1,
  maxPageBytes: 64 * 1024,
  timeoutMs: 1_000,
};

describe('the crawler against a hostile docs site', () => {
  it('gives up a page that never answers, as a timeout, and reads the others', async () => {
    const site = await hostileSite((path, _req, res) => {
      // Not even the status line: the time limit runs out before any header.
      if (path === '/docs/silent.html') return;
      if (path === '/docs/')
        return html(res, '<p>Start.</p><a href="silent.html">s</a><a href="next.html">n</a>');
      if (path === '/docs/next.html') return html(res, '<p>Next.</p>');
      res.writeHead(404).end();
    });
    const result = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(result.pages.map((page) => page.url.slice(site.url.length)).sort()).toEqual([
      '/docs/',
      '/docs/next.html',
    ]);
    expect(result.failures).toEqual([
      {
        url: `${site.url}/docs/silent.html`,
        reason: 'no answer within 1 s',
        from: { url: `${site.url}/docs/`, by: 'link' },
      },
    ]);
  });

  it('gives up a page that drips for ever, and reads the others', async () => {
    const site = await hostileSite((path, _req, res) => {
      if (path === '/docs/drip.html') {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        const timer = setInterval(() => res.write('<p>a'), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (path === '/docs/')
        return html(res, '<p>Start.</p><a href="drip.html">d</a><a href="next.html">n</a>');
      if (path === '/docs/next.html') return html(res, '<p>Next.</p>');
      res.writeHead(404).end();
    });
    const started = Date.now();
    const stop = collecting();
    onTestFinished(stop);
    // A crawl the library runs has a signal of its own (the library closing): each request's limit goes with it.
    const crawl = new AbortController();
    const result = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, signal: crawl.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.pages.map((page) => page.url.slice(site.url.length)).sort()).toEqual([
      '/docs/',
      '/docs/next.html',
    ]);
    expect(result.failures).toEqual([
      {
        url: `${site.url}/docs/drip.html`,
        reason: 'no answer within 1 s',
        from: { url: `${site.url}/docs/`, by: 'link' },
      },
    ]);
    expect(result.complete).toBe(true);

    // robots.txt that drips: nothing is crawled, and the crawl says so instead of failing whole.
    const dripping = await hostileSite((_path, _req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const timer = setInterval(() => res.write('#'), 50);
      res.on('close', () => clearInterval(timer));
    }, true);
    const stopped = await crawlSite(`${dripping.url}/docs/`, OPTIONS);
    expect(stopped.failures).toEqual([
      {
        url: `${dripping.url}/robots.txt`,
        reason: 'no answer within 1 s: nothing is crawled until robots.txt answers',
      },
    ]);
    expect(stopped.complete).toBe(false);
    expect(dripping.paths).toEqual(['/robots.txt']);
  });

  it('refuses a page without end, and a sitemap index that nests and loops, within their caps', async () => {
    let sitemaps = 0;
    const site = await hostileSite((path, _req, res) => {
      if (path === '/docs/endless.html') {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        const more = () => {
          while (res.write('<p>' + 'x'.repeat(16_384))) {}
        };
        res.on('drain', more);
        return more();
      }
      const index = /^\/docs\/sitemap(\d*)\.xml$/.exec(path);
      if (index) {
        sitemaps++;
        const n = Number(index[1] || 0);
        // Each index names itself, the one before and two new ones: a loop and a tree without end.
        const names = [n, Math.max(0, n - 1), 2 * n + 1, 2 * n + 2].map(
          (i) => `<sitemap><loc>${site.url}/docs/sitemap${i}.xml</loc></sitemap>`,
        );
        return res
          .writeHead(200, { 'Content-Type': 'application/xml' })
          .end(`<sitemapindex>${names.join('')}</sitemapindex>`);
      }
      if (path === '/docs/') return html(res, '<p>Start.</p><a href="endless.html">e</a>');
      res.writeHead(404).end();
    });
    const result = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(sitemaps).toBe(50);
    expect(result.failures).toEqual([
      {
        url: `${site.url}/docs/endless.html`,
        reason: 'the page is over 64 KB: not indexed',
        from: { url: `${site.url}/docs/`, by: 'link' },
      },
    ]);
  });

  it('reads no more sitemaps once their addresses fill the page cap, and holds no more addresses than it may read', async () => {
    const site = await hostileSite((path, _req, res) => {
      const listed = /^\/docs\/sitemap(\d*)\.xml$/.exec(path);
      if (listed && !listed[1]) {
        const names = Array.from(
          { length: 50 },
          (_, i) => `<sitemap><loc>${site.url}/docs/sitemap${i + 1}.xml</loc></sitemap>`,
        );
        return res
          .writeHead(200, { 'Content-Type': 'application/xml' })
          .end(`<sitemapindex>${names.join('')}</sitemapindex>`);
      }
      if (listed) {
        const urls = Array.from(
          { length: 2_000 },
          (_, i) => `<url><loc>${site.url}/docs/p${listed[1]}-${i}</loc></url>`,
        );
        return res
          .writeHead(200, { 'Content-Type': 'application/xml' })
          .end(`<urlset>${urls.join('')}</urlset>`);
      }
      html(res, `<p>${path}</p>`);
    });
    const result = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, maxPages: 10 });
    expect(result.pages).toHaveLength(10);
    expect(result.truncated).toBe(true);
    // The index and the first sitemap: its 2,000 addresses already hold more than 10 pages.
    expect(site.paths.filter((path) => path.includes('sitemap'))).toEqual([
      '/docs/sitemap.xml',
      '/docs/sitemap1.xml',
    ]);
  });

  it('stops an endless calendar at the page cap, and never follows an address past 2,048 characters', async () => {
    const site = await hostileSite((path, _req, res) => {
      const day = Number(/[?&]d=(\d+)/.exec(path)?.[1] ?? 0);
      // Each day links to the next, and to an address that grows with it.
      html(
        res,
        `<p>Day ${day}.</p><a href="cal?d=${day + 1}">next</a><a href="cal?d=${day}&q=${'x'.repeat(2_100)}">long</a>`,
      );
    });
    const result = await crawlSite(`${site.url}/docs/cal?d=0`, { ...OPTIONS, maxPages: 20 });
    expect(result.pages).toHaveLength(20);
    expect(result.truncated).toBe(true);
    expect(site.paths.filter((path) => path.startsWith('/docs/cal?'))).toHaveLength(20);
    expect(site.paths.every((path) => path.length < 2_048)).toBe(true);
  });

  it('reads a page sent gzipped, and stops one that inflates past the page limit without holding it', async () => {
    // 64 MB of spaces in 64 KB: past the 64 KB page limit once inflated. Compressed before the
    // crawl: compressing it in the handler held this process (the crawler's too) past its 1 s
    // timeout on a loaded machine.
    const bomb = gzipSync(Buffer.alloc(64 << 20, ' '));
    const site = await hostileSite((path, req, res) => {
      const gzip = { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' };
      // A static site's pre-compressed file, sent whatever the request asked for.
      if (path === '/docs/')
        return res
          .writeHead(200, gzip)
          .end(
            gzipSync('<title>Zipped</title><main><p>Read through gzip.</p><a href="bomb.html">b</a></main>'),
          );
      if (path === '/docs/bomb.html') {
        expect(req.headers['accept-encoding']).toContain('gzip');
        return res.writeHead(200, gzip).end(bomb);
      }
      res.writeHead(404).end();
    });
    const result = await crawlSite(`${site.url}/docs/`, OPTIONS);
    expect(result.pages.map((page) => page.title)).toEqual(['Zipped']);
    expect(result.pages[0].sections[0].text).toBe('Read through gzip.');
    expect(result.failures).toEqual([
      {
        url: `${site.url}/docs/bomb.html`,
        reason: 'the page is over 64 KB: not indexed',
        from: { url: `${site.url}/docs/`, by: 'link' },
      },
    ]);
  });

  it("indexes a PDF's first pages up to its cap, however many it has", async () => {
    const words = ['apple', 'birch', 'cedar', 'daisy', 'elder'];
    const pdf = pdfDocument({
      pages: words.map((word, i) => [`The ${word} chapter, part ${i + 1}.`, `Notes on the ${word}.`]),
    });
    const site = await hostileSite((path, _req, res) => {
      if (path === '/docs/') return html(res, '<p>Start.</p><a href="manual.pdf">manual</a>');
      if (path === '/docs/manual.pdf')
        return res.writeHead(200, { 'Content-Type': 'application/pdf' }).end(pdf);
      res.writeHead(404).end();
    });
    const result = await crawlSite(`${site.url}/docs/`, { ...OPTIONS, maxPdfPages: 3 });
    const manual = result.pages.find((page) => page.url.endsWith('.pdf'))!;
    expect(manual.sections.map((section) => section.url.slice(site.url.length))).toEqual([
      '/docs/manual.pdf#page=1',
      '/docs/manual.pdf#page=2',
      '/docs/manual.pdf#page=3',
    ]);
  });

  it('takes an answer without a body that names an encoding, and a body that is no gzip, without a stray error', async () => {
    const site = await hostileSite((path, _req, res) => {
      if (path === '/empty') return res.writeHead(204, { 'Content-Encoding': 'gzip' }).end();
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' }).end('not gzip at all');
    });
    const get = siteFetch({ allowPrivate: true });
    const empty = await get(`${site.url}/empty`);
    expect([empty.status, empty.body]).toEqual([204, null]);
    const damaged = await get(`${site.url}/damaged`);
    await expect(damaged.text()).rejects.toThrow();
    // A decoder's error with no reader would reach the process as an uncaught exception: give it a turn.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
});
