import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crawlSite } from '../../../../service/docs/crawler.js';
import { parseSitemap } from '../../../../service/docs/sitemap.js';

describe('parseSitemap, read as it streams', () => {
  it("takes each entry's own first <loc>: entities decoded, CDATA read, prefixes and case ignored", () => {
    const xml =
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="i">' +
      '<url><loc> https://a.test/x?a=1&amp;b=2 </loc><lastmod>2020-01-01</lastmod></url>' +
      '<url><loc><![CDATA[https://a.test/c]]></loc></url>' +
      // An image sitemap's <image:loc> is the image's, not the page's.
      '<url><loc>https://a.test/p</loc><image:image><image:loc>https://a.test/i.png</image:loc></image:image></url>' +
      '<url><loc>https://a.test/first</loc><loc>https://a.test/second</loc></url>' +
      // A <lastmod> is an entry's own, its first, given before or after its <loc>.
      '<url><lastmod> 2021-02-03T04:05:06Z </lastmod><loc>https://a.test/dated</loc><lastmod>2022</lastmod></url>' +
      '<url><loc>https://a.test/undated</loc><x><lastmod>2023-01-01</lastmod></x></url>' +
      '<url></url><url><x><loc>https://a.test/nested</loc></x></url>' +
      '</urlset>';
    expect(parseSitemap(xml)).toEqual({
      pages: [
        'https://a.test/x?a=1&b=2',
        'https://a.test/c',
        'https://a.test/p',
        'https://a.test/first',
        'https://a.test/dated',
        'https://a.test/undated',
      ],
      sitemaps: [],
      lastmods: ['2020-01-01', null, null, null, '2021-02-03T04:05:06Z', null],
    });
    const index =
      '<sm:sitemapindex xmlns:sm="x"><sm:sitemap><sm:loc>https://a.test/s1.xml</sm:loc></sm:sitemap>' +
      '<sitemap><LOC>https://a.test/s2.xml</LOC></sitemap></sm:sitemapindex>';
    expect(parseSitemap(index)).toEqual({
      pages: [],
      sitemaps: ['https://a.test/s1.xml', 'https://a.test/s2.xml'],
      lastmods: [],
    });
  });

  it('reads a file cut short to its end, as the parser closes what is open, and nothing from text that is no XML', () => {
    expect(parseSitemap('<urlset><url><loc>https://a.test/a</loc></url><url><loc>https://a.test/b')).toEqual({
      pages: ['https://a.test/a', 'https://a.test/b'],
      sitemaps: [],
      lastmods: [null, null],
    });
    expect(parseSitemap('<!doctype html><p>Not found</p>')).toEqual({
      pages: [],
      sitemaps: [],
      lastmods: [],
    });
  });
});

/** A response whose body comes in these pieces, as a network delivers it. */
const inPieces = (pieces: Uint8Array[], headers: Record<string, string> = {}) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    }),
    { headers },
  );

/** Cut `bytes` into pieces at these offsets. */
const cut = (bytes: Uint8Array, ...at: number[]) =>
  [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));

describe('a sitemap crawled, parsed as it streams (decision 663)', () => {
  const sitemap = Buffer.from(
    '<urlset><url><loc>https://a.test/docs/caf\u00e9.html</loc></url><url><loc>https://a.test/docs/b.html</loc></url></urlset>',
  );
  /** The pages a crawl of the sitemap (served by `answer`) asks for. */
  async function asked(answer: () => Response) {
    const paths: string[] = [];
    await crawlSite('https://a.test/docs/sitemap.xml', {
      retryDelayMs: 1,
      maxPageBytes: 1024,
      fetch: async (input) => {
        const url = new URL(input instanceof Request ? input.url : (input as string | URL));
        if (url.pathname === '/docs/sitemap.xml') return answer();
        paths.push(decodeURIComponent(url.pathname));
        return new Response('', { status: 404 });
      },
    });
    return paths.filter((path) => path !== '/robots.txt').sort();
  }

  it('reads an address cut between two pieces, a character cut in two among them', async () => {
    const at = sitemap.indexOf('\u00e9') + 1; // inside é's two bytes
    expect(await asked(() => inPieces(cut(sitemap, 20, at, at + 30)))).toEqual([
      '/docs/b.html',
      '/docs/café.html',
    ]);
  });

  it('inflates a gzipped one whose first piece is a single byte', async () => {
    const gzipped = gzipSync(sitemap);
    expect(await asked(() => inPieces(cut(gzipped, 1, 2, 30)))).toEqual(['/docs/b.html', '/docs/café.html']);
  });

  it('reads nothing of one past its limit as sent or inflated, whatever it said of its length', async () => {
    // The limit is 10 pages' bytes: 10 KiB. Valid addresses first, then more than the limit.
    const long = Buffer.concat([sitemap.subarray(0, -'</urlset>'.length), Buffer.alloc(11 * 1024, ' ')]);
    expect(await asked(() => inPieces(cut(long, 100)))).toEqual([]);
    expect(await asked(() => inPieces(cut(gzipSync(long), 10)))).toEqual([]);
  });
});
