import { readBounded } from '../kernel/bounded-body.js';
import { excludedUrl, exclusionMatcher, type ExclusionMatcher } from './exclusions.js';
import { extractHtml, resolveUrl } from './html.js';
import { extractMarkdown } from './markdown.js';
import { ALLOW_ALL, DISALLOW_ALL, PRODUCT_TOKEN, parseRobots, type Robots } from './robots.js';
import { parseSitemap } from './sitemap.js';
import type { ExtractedPage, Section } from './types.js';

/**
 * Crawls one documentation site: robots.txt first, then the sitemap's pages, then the links of
 * every page read, on the host and under the path it was given, a few requests at a time. Pages
 * read before are revalidated (ETag, Last-Modified); one whose content has not changed comes
 * back `unchanged` without its sections, and the caller keeps what it stored. All network goes
 * through `fetch`, so tests run the crawler against a local site.
 */

/** What a crawl remembers of a page it read, to revalidate it next time (keyed by its address). */
export interface PageState {
  /** The address the page was read from, without fragment. */
  url: string;
  etag: string | null;
  lastModified: string | null;
  /** SHA-256 of what was extracted: a page served again with the same content is unchanged. */
  hash: string;
  links: string[];
}

export interface CrawledPage extends PageState {
  title: string;
  /** `unchanged`: revalidated, or served with the same content; `sections` is then empty. */
  status: 'new' | 'changed' | 'unchanged';
  sections: Section[];
}

export interface CrawlFailure {
  url: string;
  reason: string;
}

export interface CrawlResult {
  pages: CrawledPage[];
  failures: CrawlFailure[];
  /**
   * False when the crawl could not tell which pages are gone (robots.txt or the start page did
   * not answer): the caller then keeps the pages it had instead of removing those not seen.
   */
  complete: boolean;
  /** The page cap stopped the crawl before every page was read. */
  truncated: boolean;
  /** Addresses on the site the owner's `exclude` patterns kept the crawl from (not failures). */
  excluded: number;
}

export interface CrawlOptions {
  fetch?: typeof fetch;
  /** Pages fetched at most (redirects and failures count). Default 5,000. */
  maxPages?: number;
  /** A page (or sitemap) larger than this is not indexed. Default 2 MiB. */
  maxPageBytes?: number;
  /** Requests at once. Default 4. */
  concurrency?: number;
  /** Per request. Default 15 s. */
  timeoutMs?: number;
  /** Pause before the one retry of a request that failed with 429, 5xx or no answer. Default 1 s. */
  retryDelayMs?: number;
  /**
   * Paths the owner keeps out (`exclusions.ts`, decision 416): a URL whose path matches one is
   * never fetched, from a link or the sitemap, so its links are not followed either.
   */
  exclude?: readonly string[];
  /** What the last crawl of this site read, by the address it was fetched from. */
  previous?: ReadonlyMap<string, PageState>;
  signal?: AbortSignal;
}

/** Extensions worth fetching: pages. Anything else with an extension (images, archives, sources) is not. */
const PAGE_EXTENSIONS = new Set([
  'html',
  'htm',
  'xhtml',
  'shtml',
  'php',
  'asp',
  'aspx',
  'jsp',
  'md',
  'markdown',
]);
const USER_AGENT = `${PRODUCT_TOKEN}-service (documentation crawler)`;
const MAX_SITEMAPS = 50;

/** Where a crawl may go: the start's origin, under its folder. */
export function scopeOf(start: string): { origin: string; prefix: string } {
  const url = new URL(start);
  const path = url.pathname;
  const last = path.slice(path.lastIndexOf('/') + 1);
  const prefix = last.includes('.') ? path.slice(0, path.lastIndexOf('/') + 1) : last ? `${path}/` : path;
  return { origin: url.origin, prefix };
}

export const isSitemap = (start: string) => /\.xml$/i.test(new URL(start).pathname);

/** A response's body as text, at most `limit` bytes; null when it is longer. */
async function readText(response: Response, limit: number): Promise<string | null> {
  const bytes = await readBounded(response, limit);
  return bytes && decode(bytes, response.headers.get('Content-Type') ?? '');
}

/** Bytes as text in the charset the header names, or a `<meta charset>` in the first 1 KB, else UTF-8. */
function decode(bytes: Uint8Array, type: string): string {
  let label = /charset=["']?([\w.:-]+)/i.exec(type)?.[1];
  if (!label && /html/i.test(type)) {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
    label = /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(label ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

export async function hashOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

const kb = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en')} KB`;

/** Links of a Markdown page: `[text](target)` and `<https://…>`. */
function markdownLinks(text: string, base: string): string[] {
  const links: string[] = [];
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|<(https?:\/\/[^>\s]+)>/g)) {
    const link = resolveUrl(match[1] ?? match[2], base);
    if (link) links.push(link);
  }
  return links;
}

/** The address a crawl starts from is one its own `exclude` patterns keep out: nothing would be read. */
export class CrawlExcludedStartError extends Error {
  override name = 'CrawlExcludedStartError';
  constructor(
    readonly start: string,
    readonly pattern: string,
  ) {
    super(`${start} is itself excluded by the pattern ${pattern}: nothing would be crawled.`);
  }
}

class Crawl {
  private readonly fetch: typeof fetch;
  private readonly maxPages: number;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly retryDelayMs: number;
  private readonly scope: { origin: string; prefix: string };
  private readonly queue: string[] = [];
  private readonly seen = new Set<string>();
  private readonly pages: CrawledPage[] = [];
  private readonly failures: CrawlFailure[] = [];
  private readonly excluded = new Set<string>();
  private readonly exclude: ExclusionMatcher;
  private robots: Robots = ALLOW_ALL;
  private fetched = 0;
  private complete = true;
  private truncated = false;

  constructor(
    private readonly start: string,
    private readonly options: CrawlOptions,
  ) {
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.maxPages = options.maxPages ?? 5_000;
    this.maxBytes = options.maxPageBytes ?? 2 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.retryDelayMs = options.retryDelayMs ?? 1_000;
    this.scope = scopeOf(start);
    this.exclude = exclusionMatcher(options.exclude ?? []);
    const pattern = excludedUrl(this.exclude, start);
    if (pattern) throw new CrawlExcludedStartError(start, pattern);
  }

  inScope(url: string): boolean {
    const parsed = new URL(url);
    if (parsed.origin !== this.scope.origin) return false;
    const path = parsed.pathname;
    if (!(path.startsWith(this.scope.prefix) || `${path}/` === this.scope.prefix)) return false;
    const last = path.slice(path.lastIndexOf('/') + 1);
    const dot = last.lastIndexOf('.');
    return dot < 0 || PAGE_EXTENSIONS.has(last.slice(dot + 1).toLowerCase());
  }

  private enqueue(url: string) {
    if (this.seen.has(url) || !this.inScope(url)) return;
    this.seen.add(url);
    if (excludedUrl(this.exclude, url)) {
      this.excluded.add(url);
      return;
    }
    this.queue.push(url);
  }

  /** One request with the crawler's headers, no redirects followed, one retry when it may help. */
  private async request(url: string, headers: Record<string, string> = {}): Promise<Response | string> {
    for (let attempt = 1; ; attempt++) {
      const signal = AbortSignal.any([
        AbortSignal.timeout(this.timeoutMs),
        ...(this.options.signal ? [this.options.signal] : []),
      ]);
      let failure: string;
      let wait = this.retryDelayMs;
      try {
        const response = await this.fetch(url, {
          headers: {
            'User-Agent': USER_AGENT,
            Accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,*/*;q=0.1',
            ...headers,
          },
          redirect: 'manual',
          signal,
        });
        if (response.status !== 429 && response.status < 500) return response;
        await response.body?.cancel().catch(() => {});
        failure = `the server answered ${response.status}`;
        const after = Number(response.headers.get('Retry-After'));
        if (Number.isFinite(after) && after > 0) wait = Math.min(after * 1000, 10_000);
      } catch (error) {
        this.options.signal?.throwIfAborted();
        failure =
          error instanceof Error && error.name === 'TimeoutError'
            ? `no answer within ${Math.round(this.timeoutMs / 1000)} s`
            : 'the server could not be reached';
      }
      if (attempt >= 2) return failure;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private async readRobots() {
    const url = `${this.scope.origin}/robots.txt`;
    const response = await this.request(url);
    if (typeof response === 'string') {
      this.robots = DISALLOW_ALL;
      this.complete = false;
      this.failures.push({ url, reason: `${response}: nothing is crawled until robots.txt answers` });
      return;
    }
    if (response.status >= 200 && response.status < 300) {
      const text = await readText(response, 512 * 1024);
      this.robots = text === null ? ALLOW_ALL : parseRobots(text, url);
    } else await response.body?.cancel().catch(() => {});
    // 3xx and 4xx: no rules (RFC 9309 2.3.1.3).
  }

  private async readSitemaps() {
    const given = isSitemap(this.start);
    const candidates = given
      ? [this.start]
      : [...this.robots.sitemaps, `${this.scope.origin}${this.scope.prefix}sitemap.xml`];
    const read = new Set<string>();
    for (let i = 0; i < candidates.length && read.size < MAX_SITEMAPS; i++) {
      const url = candidates[i];
      if (read.has(url) || new URL(url).origin !== this.scope.origin) continue;
      read.add(url);
      const response = await this.request(url, { Accept: 'application/xml,text/xml;q=0.9,*/*;q=0.1' });
      const ok = typeof response !== 'string' && response.status >= 200 && response.status < 300;
      const text = ok ? await readText(response, 10 * this.maxBytes) : null;
      if (typeof response !== 'string' && !ok) await response.body?.cancel().catch(() => {});
      if (text === null) {
        if (given && url === this.start)
          this.failures.push({
            url,
            reason:
              typeof response === 'string' ? response : `the sitemap could not be read (${response.status})`,
          });
        continue;
      }
      const { pages, sitemaps } = parseSitemap(text);
      candidates.push(...sitemaps.map((s) => resolveUrl(s, url)).filter((s): s is string => !!s));
      for (const page of pages) {
        const link = resolveUrl(page, url);
        if (link && this.robots.allowed(link)) this.enqueue(link);
      }
    }
  }

  async run(): Promise<CrawlResult> {
    await this.readRobots();
    if (this.complete) {
      await this.readSitemaps();
      if (!isSitemap(this.start)) {
        const start = resolveUrl(this.start, this.start)!;
        if (!this.robots.allowed(start))
          this.failures.push({ url: start, reason: 'robots.txt does not allow crawling this address' });
        else this.enqueue(start);
      }
      await this.drain();
    }
    // A crawl that read nothing and failed says nothing about which pages are gone.
    if (!this.pages.length && this.failures.length) this.complete = false;
    return {
      pages: this.dedupe(),
      failures: this.failures,
      complete: this.complete,
      truncated: this.truncated,
      excluded: this.excluded.size,
    };
  }

  private drain(): Promise<void> {
    const concurrency = Math.max(1, this.options.concurrency ?? 4);
    let active = 0;
    return new Promise<void>((resolve, reject) => {
      const pump = () => {
        while (active < concurrency && this.queue.length) {
          if (this.fetched >= this.maxPages) {
            this.truncated = true;
            this.queue.length = 0;
            break;
          }
          const url = this.queue.shift()!;
          this.fetched++;
          active++;
          this.visit(url).then(
            () => {
              active--;
              pump();
            },
            (error: unknown) => reject(error),
          );
        }
        if (active === 0 && !this.queue.length) resolve();
      };
      pump();
    });
  }

  private async visit(url: string) {
    const before = this.options.previous?.get(url);
    const conditional: Record<string, string> = {};
    if (before?.etag) conditional['If-None-Match'] = before.etag;
    if (before?.lastModified) conditional['If-Modified-Since'] = before.lastModified;
    const response = await this.request(url, conditional);
    if (typeof response === 'string') return this.failed(url, response, before);
    const { status } = response;
    if (status === 304 && before) {
      this.keep(before);
      return;
    }
    if (status >= 300 && status < 400) {
      await response.body?.cancel().catch(() => {});
      const target = resolveUrl(response.headers.get('Location') ?? '', url);
      if (target && this.robots.allowed(target)) this.enqueue(target);
      return;
    }
    if (status < 200 || status >= 300) {
      await response.body?.cancel().catch(() => {});
      const reason =
        status === 404 || status === 410
          ? `not found (${status})`
          : status === 401 || status === 403
            ? `refused (${status})`
            : `the server answered ${status}`;
      return this.failed(url, reason, status === 404 || status === 410 ? undefined : before);
    }
    const type = (response.headers.get('Content-Type') ?? '').toLowerCase();
    const path = new URL(url).pathname.toLowerCase();
    const markdown =
      /markdown/.test(type) || (type.startsWith('text/plain') && /\.(md|markdown)$/.test(path));
    if (!markdown && !/html/.test(type)) {
      await response.body?.cancel().catch(() => {});
      return;
    }
    const text = await readText(response, this.maxBytes);
    if (text === null)
      return this.failed(url, `the page is over ${kb(this.maxBytes)}: not indexed`, undefined);
    const page: ExtractedPage = markdown
      ? {
          ...extractMarkdown(text, url, decodeURIComponent(path.split('/').pop() ?? path)),
          links: markdownLinks(text, url),
        }
      : extractHtml(text, url);
    await this.read(url, page, response.headers, before);
  }

  /** A page read: its links followed, then indexed unless it asks not to be or is a copy. */
  private async read(url: string, page: ExtractedPage, headers: Headers, before: PageState | undefined) {
    if (!page.nofollow) for (const link of page.links) if (this.robots.allowed(link)) this.enqueue(link);
    if (page.noindex) return;
    // A page that names another address on this site as its canonical one is a copy: the
    // canonical page is read (and indexed) in its place.
    if (page.canonical && page.canonical !== url && this.inScope(page.canonical)) {
      if (this.robots.allowed(page.canonical)) this.enqueue(page.canonical);
      return;
    }
    // What the page says, wherever it is served from: two addresses with one content are one page.
    const hash = await hashOf(
      JSON.stringify([page.title, page.sections.map((s) => [s.url.slice(url.length), s.headings, s.text])]),
    );
    const state: PageState = {
      url,
      etag: headers.get('ETag'),
      lastModified: headers.get('Last-Modified'),
      hash,
      links: page.links.filter((link) => this.inScope(link)),
    };
    if (before && before.hash === hash)
      this.pages.push({ ...state, title: page.title, status: 'unchanged', sections: [] });
    else
      this.pages.push({
        ...state,
        title: page.title,
        status: before ? 'changed' : 'new',
        sections: page.sections,
      });
  }

  /** A page that answered 304: its links are followed from what the last crawl saw. */
  private keep(before: PageState) {
    for (const link of before.links) if (this.robots.allowed(link)) this.enqueue(link);
    this.pages.push({ ...before, title: '', status: 'unchanged', sections: [] });
  }

  /** A failure; a page known from before that failed for a passing reason is kept as it was. */
  private failed(url: string, reason: string, keep: PageState | undefined) {
    this.failures.push({ url, reason });
    if (keep) this.keep(keep);
  }

  /** One page per content (a site serving one page at two addresses): the shortest address wins. */
  private dedupe(): CrawledPage[] {
    const byHash = new Map<string, CrawledPage>();
    const first = (a: CrawledPage, b: CrawledPage) =>
      a.url.length < b.url.length || (a.url.length === b.url.length && a.url < b.url);
    for (const page of this.pages) {
      const other = byHash.get(page.hash);
      if (!other || first(page, other)) byHash.set(page.hash, page);
    }
    return [...byHash.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }
}

/**
 * Crawls the site at `start` (a site root, a folder of it, or its sitemap.xml); throws
 * `CrawlExcludedStartError` when `start` is itself excluded.
 */
export async function crawlSite(start: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  return new Crawl(start, options).run();
}
