import { readdir, readFile, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { MAX_FILE_BYTES } from '../../contract/limits.js';
import { hashOf, type CrawledPage, type PageState } from './crawler.js';
import { exclusionMatcher } from './exclusions.js';
import { extractHtml } from './html.js';
import { extractMarkdown } from './markdown.js';
import { extractPdf, overCap } from './pdf.js';
import { StaticDocs } from './ranking.js';
import type { ExtractedPage } from './types.js';

/**
 * A Markdown file's address under `base`: its path without the extension, but a folder's own page
 * (`index.md`, else `README.md`) at the folder's address, as MkDocs, Docusaurus and GitHub show it.
 * `paths` are the folder's files, lowercased.
 */
function markdownUrl(base: string, path: string, paths: ReadonlySet<string>): string {
  const page = path.replace(/\.(md|markdown|mdx)$/i, '');
  const [, folder, name] = /^(.*?)([^/]*)$/.exec(page)!;
  const hasIndex = ['md', 'markdown', 'mdx'].some((ext) => paths.has(`${folder}index.${ext}`.toLowerCase()));
  const own = /^index$/i.test(name) || (/^readme$/i.test(name) && !hasIndex);
  return `${base}/${own ? folder : page}`;
}

/** One file of a folder as a page, or why it is not indexed. */
async function extract(
  file: string,
  path: string,
  url: string,
  size: number,
): Promise<ExtractedPage | string> {
  if (/\.pdf$/i.test(path))
    return size > MAX_FILE_BYTES.pdf
      ? overCap(MAX_FILE_BYTES.pdf)
      : extractPdf(new Uint8Array(await readFile(file)), url, path.split('/').pop()!);
  const text = await readFile(file, 'utf8');
  return /\.(md|markdown|mdx)$/i.test(path)
    ? extractMarkdown(text, url, path, { mdx: /\.mdx$/i.test(path) })
    : extractHtml(text, url);
}

/**
 * A folder of documentation on the service's disk (Node only): Markdown and MDX files (`.md`,
 * `.markdown`, `.mdx`), HTML pages and PDFs, each a page of sections. A Markdown file is linked at
 * `publicUrl` + its path without the extension (an `index` or `README` file at its folder's
 * address, as MkDocs, Docusaurus and GitHub show it), an HTML page or a PDF at `publicUrl` + its
 * path. A PDF that is not indexed (over 20 MB, no text) is told to `onFailed` with why. A file
 * whose size and modification time match the last read is `unchanged` and not read again.
 * `exclude` patterns match a file's path under the folder with a leading `/` (`/releases/`
 * keeps out `releases/3.0.md`; decision 417): an excluded file is not read.
 */
export async function readDocsFolder(
  dir: string,
  publicUrl: string,
  previous?: ReadonlyMap<string, PageState>,
  options: {
    exclude?: readonly string[];
    onExcluded?: (path: string) => void;
    onFailed?: (url: string, reason: string) => void;
    /** Told each page read, to count them while the folder is read (decision 435). */
    onRead?: (url: string) => void;
  } = {},
): Promise<CrawledPage[]> {
  const excluded = exclusionMatcher(options.exclude ?? []);
  const base = publicUrl.replace(/\/+$/, '');
  const files = (await readdir(dir, { recursive: true }))
    .filter((f) => /\.(md|markdown|mdx|html?|pdf)$/i.test(f))
    .sort();
  const paths = new Set(files.map((f) => f.split(sep).join('/').toLowerCase()));
  const pages: CrawledPage[] = [];
  for (const file of files) {
    const path = file.split(sep).join('/');
    if (excluded(`/${path}`)) {
      options.onExcluded?.(path);
      continue;
    }
    const markdown = /\.(md|markdown|mdx)$/i.test(path);
    const url = markdown ? markdownUrl(base, path, paths) : `${base}/${path}`;
    const info = await stat(join(dir, file));
    // The file's size and time stand for a validator, as an ETag does for a site.
    const etag = `"${info.size}-${Math.round(info.mtimeMs)}"`;
    const before = previous?.get(url);
    if (before?.etag === etag) {
      pages.push({ ...before, title: '', status: 'unchanged', sections: [] });
      options.onRead?.(url);
      continue;
    }
    const page = await extract(join(dir, file), path, url, info.size);
    if (typeof page === 'string') {
      options.onFailed?.(url, page);
      continue;
    }
    if (page.noindex) continue;
    const hash = await hashOf(
      JSON.stringify([page.title, page.sections.map((s) => [s.url.slice(url.length), s.headings, s.text])]),
    );
    const state = { url, etag, lastModified: null, hash, links: [] };
    pages.push(
      before?.hash === hash
        ? { ...state, title: page.title, status: 'unchanged', sections: [] }
        : { ...state, title: page.title, status: before ? 'changed' : 'new', sections: page.sections },
    );
    options.onRead?.(url);
  }
  return pages;
}

/** A folder read once, as a search (the library re-reads folders on its schedule). */
export async function loadDocsFolder(dir: string, publicUrl: string): Promise<StaticDocs> {
  const pages = await readDocsFolder(dir, publicUrl);
  return new StaticDocs(pages.flatMap((page) => page.sections));
}
