import { parseDocument } from 'htmlparser2';

interface Node {
  type: string;
  name?: string;
  children?: Node[];
  data?: string;
}

/**
 * The addresses a sitemap lists: `<url><loc>` pages, and `<sitemap><loc>` sitemaps of a
 * sitemap index (the crawler reads those in turn).
 */
export function parseSitemap(xml: string): { pages: string[]; sitemaps: string[] } {
  const document = parseDocument(xml, { xmlMode: true }) as unknown as Node;
  const pages: string[] = [];
  const sitemaps: string[] = [];
  const text = (node: Node): string =>
    node.type === 'text' || node.type === 'cdata'
      ? (node.data ?? (node.children ?? []).map(text).join(''))
      : (node.children ?? []).map(text).join('');
  const local = (node: Node) => (node.name ?? '').replace(/^.*:/, '').toLowerCase();
  const walk = (node: Node) => {
    for (const child of node.children ?? []) {
      const name = local(child);
      if (name === 'url' || name === 'sitemap') {
        const loc = child.children?.find((c) => local(c) === 'loc');
        const href = loc ? text(loc).trim() : '';
        if (href) (name === 'url' ? pages : sitemaps).push(href);
      } else walk(child);
    }
  };
  walk(document);
  return { pages, sitemaps };
}
