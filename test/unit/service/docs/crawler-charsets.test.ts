/**
 * A docs site that is not all UTF-8: a page's charset from its Content-Type, else its
 * `<meta charset>`; a sitemap's from its Content-Type (the protocol's are UTF-8, gzipped ones
 * always). The site is a local server on 127.0.0.1, read through the service's own transport.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlSite } from '../../../../service/docs/crawler.js';
import { siteFetch } from '../../../../service/docs/site-network.js';

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** Latin-1 bytes of `text` (each character below 256 is its own byte). */
const latin1 = (text: string) => Buffer.from(text, 'latin1');

async function site(routes: Record<string, { type: string; body: Buffer }>) {
  const server = createServer((req, res) => {
    const route = routes[req.url ?? '/'];
    if (!route) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': route.type }).end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  closers.push(() => server.closeAllConnections());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the crawler and charsets', () => {
  it('reads a page in the charset its Content-Type names, else its <meta charset>, and a sitemap in its own', async () => {
    const page = (title: string, head = '') =>
      latin1(`<html><head>${head}<title>${title}</title></head><main><p>Café crème.</p></main></html>`);
    const base = await site({
      '/docs/sitemap.xml': {
        type: 'application/xml; charset=iso-8859-1',
        body: latin1(
          '<?xml version="1.0"?><urlset><url><loc>/docs/r%C3%A9sum%C3%A9.html</loc></url>' +
            '<url><loc>/docs/m\u00e9ta.html</loc></url></urlset>',
        ),
      },
      '/docs/r%C3%A9sum%C3%A9.html': { type: 'text/html; charset=iso-8859-1', body: page('Résumé') },
      '/docs/m%C3%A9ta.html': { type: 'text/html', body: page('Méta', '<meta charset="windows-1252">') },
    });
    const result = await crawlSite(`${base}/docs/sitemap.xml`, {
      fetch: siteFetch({ allowPrivate: true }),
      retryDelayMs: 1,
    });
    expect(result.failures).toEqual([]);
    expect(
      result.pages.map((p) => [p.title, p.sections[0].text]).sort(([a], [b]) => a.localeCompare(b)),
    ).toEqual([
      ['Méta', 'Café crème.'],
      ['Résumé', 'Café crème.'],
    ]);
  });
});
