import { Parser } from 'htmlparser2';

/**
 * The addresses a sitemap lists: `<url><loc>` pages, and `<sitemap><loc>` sitemaps of a
 * sitemap index (the crawler reads those in turn). Read as it streams, with no document kept:
 * a sitemap may be 20 MiB, and its tree took 316 MB at the peak (decision 653).
 */
export function parseSitemap(xml: string): { pages: string[]; sitemaps: string[] } {
  const pages: string[] = [];
  const sitemaps: string[] = [];
  const local = (name: string) => name.replace(/^.*:/, '').toLowerCase();
  /** Open elements by local name; an entry's first `<loc>` is its address. */
  const open: string[] = [];
  let entry: { kind: string; loc: string | null } | null = null;
  let text: string | null = null;
  const parser = new Parser(
    {
      onopentag(name) {
        const tag = local(name);
        if (!entry && (tag === 'url' || tag === 'sitemap')) entry = { kind: tag, loc: null };
        else if (entry && tag === 'loc' && open.at(-1) === entry.kind && entry.loc === null) text = '';
        open.push(tag);
      },
      ontext(data) {
        if (text !== null) text += data;
      },
      onclosetag(name) {
        const tag = local(name);
        open.pop();
        if (entry && tag === 'loc' && text !== null) {
          entry.loc = text.trim();
          text = null;
        } else if (entry && tag === entry.kind && !open.includes(entry.kind)) {
          if (entry.loc) (entry.kind === 'url' ? pages : sitemaps).push(entry.loc);
          entry = null;
        }
      },
    },
    { xmlMode: true, recognizeCDATA: true },
  );
  parser.end(xml);
  return { pages, sitemaps };
}
