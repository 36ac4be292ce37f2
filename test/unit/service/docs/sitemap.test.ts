import { describe, expect, it } from 'vitest';
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
      '<url></url><url><x><loc>https://a.test/nested</loc></x></url>' +
      '</urlset>';
    expect(parseSitemap(xml)).toEqual({
      pages: ['https://a.test/x?a=1&b=2', 'https://a.test/c', 'https://a.test/p', 'https://a.test/first'],
      sitemaps: [],
    });
    const index =
      '<sm:sitemapindex xmlns:sm="x"><sm:sitemap><sm:loc>https://a.test/s1.xml</sm:loc></sm:sitemap>' +
      '<sitemap><LOC>https://a.test/s2.xml</LOC></sitemap></sm:sitemapindex>';
    expect(parseSitemap(index)).toEqual({
      pages: [],
      sitemaps: ['https://a.test/s1.xml', 'https://a.test/s2.xml'],
    });
  });

  it('reads a file cut short to its end, as the parser closes what is open, and nothing from text that is no XML', () => {
    expect(parseSitemap('<urlset><url><loc>https://a.test/a</loc></url><url><loc>https://a.test/b')).toEqual({
      pages: ['https://a.test/a', 'https://a.test/b'],
      sitemaps: [],
    });
    expect(parseSitemap('<!doctype html><p>Not found</p>')).toEqual({ pages: [], sitemaps: [] });
  });
});
