// What a large sitemap costs a crawl in memory: a sitemap of some 19.5 MiB (the most a sitemap
// may be is 20 MiB, ten pages' limit), plain or gzipped, served on 127.0.0.1 and crawled with a
// cap of 10 pages in a child process: its peak RSS, and what it held before the crawl (the
// service loaded). `npm run build --workspace agent-chat-service` first; `--service DIR` measures
// another build (a commit's `service/dist`).
//
//   node bench/sitemap-memory.mjs [--service DIR]
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    service: { type: 'string', default: new URL('../service/dist', import.meta.url).pathname },
  },
});

if (values.child) {
  const service = await import(join(values.service, 'index.js'));
  const before = process.memoryUsage().rss;
  const at = performance.now();
  const result = await service.crawlSite(values.child, { maxPages: 10, retryDelayMs: 1 });
  process.send?.({
    ms: performance.now() - at,
    maxRss: process.resourceUsage().maxRSS * 1024,
    before,
    pages: result.pages.length,
    failures: result.failures.length,
  });
} else {
  // Addresses of some 200 bytes each, up to 19.5 MiB: what a large site's sitemap looks like.
  const entries = [];
  for (let i = 0, size = 0; size < 19.5 * 1024 * 1024; i++) {
    entries.push(
      `<url><loc>http://127.0.0.1:PORT/docs/section-${i % 97}/chapter-${i % 1013}/a-rather-long-page-name-as-generators-make-them-${i}.html</loc><lastmod>2025-01-01</lastmod></url>`,
    );
    size += entries.at(-1).length;
  }
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const port = server.address().port;
  const xml = Buffer.from(
    `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('').replaceAll('PORT', String(port))}</urlset>`,
  );
  const gz = gzipSync(xml);
  server.on('request', (req, res) => {
    if (req.url === '/docs/sitemap.xml')
      return res.writeHead(200, { 'Content-Type': 'application/xml' }).end(xml);
    if (req.url === '/docs/sitemap.xml.gz')
      return res.writeHead(200, { 'Content-Type': 'application/gzip' }).end(gz);
    if (req.url?.startsWith('/docs/'))
      return res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end('<title>Page</title><main><p>Text.</p></main>');
    res.writeHead(404).end();
  });
  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    `sitemap: ${mb(xml.length)} (${entries.length.toLocaleString('en')} addresses), gzipped ${mb(gz.length)}`,
  );
  for (const file of ['sitemap.xml', 'sitemap.xml.gz'])
    for (let run = 0; run < 3; run++) {
      const child = fork(new URL(import.meta.url).pathname, [
        '--child',
        `http://127.0.0.1:${port}/docs/${file}`,
        '--service',
        values.service,
      ]);
      const [result] = await new Promise((done) => child.once('message', (m) => done([m])));
      child.kill();
      console.log(
        `${file}: ${(result.ms / 1000).toFixed(1)} s, peak RSS ${mb(result.maxRss)} (${mb(result.before)} before the crawl), ${result.pages} pages, ${result.failures} failures`,
      );
    }
  server.closeAllConnections();
  server.close();
}
