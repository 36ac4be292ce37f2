import { Parser } from 'htmlparser2';

/** The addresses a sitemap lists: pages, and the sitemaps of a sitemap index. */
export interface SitemapEntries {
  pages: string[];
  sitemaps: string[];
  /**
   * Each page's `<lastmod>` as written, null where it gives none (decision 752): `lastmods[i]`
   * is `pages[i]`'s. An array beside the pages, its equal neighbours one string, since a
   * sitemap may list 128,650 pages and a map of their dates held 8 MiB more at the peak.
   */
  lastmods: (string | null)[];
}

/**
 * The addresses a sitemap lists: `<url><loc>` pages, and `<sitemap><loc>` sitemaps of a
 * sitemap index (the crawler reads those in turn).
 */
export function parseSitemap(xml: string): SitemapEntries {
  const parser = sitemapParser();
  parser.write(xml);
  return parser.end();
}

/**
 * A sitemap read as it streams, its text given a piece at a time (`write`), with no document
 * kept: a sitemap may be 20 MiB, and its tree took 316 MB at the peak (decision 653), its text
 * held whole 20 to 40 MB more (decision 663). `end` says what it listed.
 */
export function sitemapParser(): { write(text: string): void; end(): SitemapEntries } {
  const pages: string[] = [];
  const sitemaps: string[] = [];
  const lastmods: (string | null)[] = [];
  const local = (name: string) => name.replace(/^.*:/, '').toLowerCase();
  /** Open elements by local name; an entry's first `<loc>` is its address, its first `<lastmod>` its date. */
  const open: string[] = [];
  let entry: { kind: string; loc: string | null; lastmod: string | null } | null = null;
  let text: string | null = null;
  let field: 'loc' | 'lastmod' = 'loc';
  const parser = new Parser(
    {
      onopentag(name) {
        const tag = local(name);
        if (!entry && (tag === 'url' || tag === 'sitemap')) entry = { kind: tag, loc: null, lastmod: null };
        else if (
          entry &&
          (tag === 'loc' || tag === 'lastmod') &&
          open.at(-1) === entry.kind &&
          entry[tag] === null
        )
          [text, field] = ['', tag];
        open.push(tag);
      },
      ontext(data) {
        if (text !== null) text += data;
      },
      onclosetag(name) {
        const tag = local(name);
        open.pop();
        if (entry && tag === field && text !== null) {
          entry[field] = text.trim();
          text = null;
        } else if (entry && tag === entry.kind && !open.includes(entry.kind)) {
          if (entry.loc && entry.kind === 'url') {
            pages.push(entry.loc);
            const before = lastmods.at(-1);
            lastmods.push(entry.lastmod === before ? before : entry.lastmod);
          } else if (entry.loc) sitemaps.push(entry.loc);
          entry = null;
        }
      },
    },
    { xmlMode: true, recognizeCDATA: true },
  );
  return {
    write: (piece) => parser.write(piece),
    end: () => (parser.end(), { pages, sitemaps, lastmods }),
  };
}
