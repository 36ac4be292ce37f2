import { MAX_FILE_BYTES } from '../../contract/limits.js';
import { deadline } from '../kernel/deadline.js';
import { retryAfterMs } from '../kernel/retry-after.js';
import { excludedUrl, exclusionMatcher, type ExclusionMatcher } from './exclusions.js';
import { extractHtml, resolveUrl } from './html.js';
import { extractMarkdown } from './markdown.js';
import { closeIdlePdfThreads } from '../kernel/pdf.js';
import { readPdfResponse } from './pdf.js';
import { ALLOW_ALL, DISALLOW_ALL, PRODUCT_TOKEN, parseRobots, robotsHeader, type Robots } from './robots.js';
import { Pace } from './pace.js';
import { Scope } from './scope.js';
import { readSitemap, readText } from './response-text.js';
import type { DocPageCopy as PageCopy } from '../storage/records.js';
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
  /**
   * Its other addresses this crawl read (none for a folder's pages): kept with it, so the next
   * crawl revalidates them as it does the page instead of reading them whole (decision 642).
   */
  copies?: PageCopy[];
  /** The sitemap's `<lastmod>` for it (ms) when it was last read or revalidated; none when it gave none (decision 752). */
  sitemapLastmod?: number | null;
  /** When it was last read or revalidated (ms): a page skipped for its lastmod keeps the time it was. */
  checkedAt?: number | null;
}

export interface CrawledPage extends PageState {
  title: string;
  /** `unchanged`: revalidated, or served with the same content; `sections` is then empty. */
  status: 'new' | 'changed' | 'unchanged';
  sections: Section[];
}

/**
 * How the crawl came to a page (decision 707): the first page that linked it (`link`; a canonical
 * link counts), the sitemap that listed it, or the page that redirected to it. What the operator
 * fixes when the page is missing, as an SEO crawler reports it.
 */
export interface CrawlReferrer {
  url: string;
  by: 'link' | 'sitemap' | 'redirect';
}

export interface CrawlFailure {
  url: string;
  reason: string;
  /** None: the start page, robots.txt, or a failure of the site as a whole. */
  from?: CrawlReferrer;
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
  /**
   * Addresses on the site its robots.txt keeps crawlers from (not failures): said beside the
   * excluded ones, so an owner whose robots.txt hides a folder from search engines knows why its
   * pages never answer (decision 460). robots.txt is read before the owner's patterns: an address
   * both keep out counts here.
   */
  disallowed: number;
  /** Pages its sitemap's lastmod vouched for, asked nothing (decision 752). */
  lastmodSpared: number;
  /**
   * When the site's lastmod was last caught lying (a page it vouched for had changed), while the
   * next crawl is to believe none of it (decision 785); null when it is believed.
   */
  lastmodLieAt: number | null;
}

/** How far a crawl has got: what it reads, the pages read so far (new, changed or unchanged) and failures. */
export interface CrawlProgress {
  phase: 'robots' | 'sitemap' | 'pages';
  pagesRead: number;
  pagesFailed: number;
}

export interface CrawlOptions {
  fetch?: typeof fetch;
  /** Pages fetched at most (redirects and failures count). Default 5,000. */
  maxPages?: number;
  /** A page (or sitemap) larger than this is not indexed. Default 2 MiB. */
  maxPageBytes?: number;
  /** A PDF larger than this is not indexed. Default 20 MB, as a PDF in a question (§11). */
  maxPdfBytes?: number;
  /** Pages of a PDF indexed at most. Default 5,000 (`MAX_PDF_PAGES`, decision 653). */
  maxPdfPages?: number;
  /** Characters of new and changed pages' text a crawl holds at most. Default 64 million (decision 657). */
  maxTextChars?: number;
  /** Requests at once. Default 4. */
  concurrency?: number;
  /** Per request. Default 15 s. */
  timeoutMs?: number;
  /**
   * Pause before the one retry of a request that failed with a 5xx or no answer, and the least
   * the crawl's gap between requests grows to at a 429 or 503 (`pace.ts`). Default 1 s.
   */
  retryDelayMs?: number;
  /**
   * Paths the owner keeps out (`exclusions.ts`, decision 416): a URL whose path matches one is
   * never fetched, from a link or the sitemap, so its links are not followed either.
   */
  exclude?: readonly string[];
  /** What the last crawl of this site read, by the address it was fetched from. */
  previous?: ReadonlyMap<string, PageState>;
  /** The last crawl's `lastmodLieAt`: while set, no page is spared for its lastmod (decision 785). */
  lastmodLieAt?: number | null;
  /** The time, for a page's `checkedAt` and the lastmod bound. Default `Date.now`. */
  now?: () => number;
  signal?: AbortSignal;
  /**
   * Told how far the crawl has got at each step and after each page: the caller decides how
   * often to keep it (the library writes it about once a second, decision 435).
   */
  onProgress?: (progress: CrawlProgress) => void;
}

const USER_AGENT = `${PRODUCT_TOKEN}-service (documentation crawler)`;
const MAX_SITEMAPS = 50;
/**
 * Addresses longer than this are not followed: the sitemaps protocol's bound for a `<loc>`, past
 * which an address is a generated one (a query string that grows at each link), not a page.
 */
const MAX_URL_CHARS = 2_048;
/** Addresses a crawl keeps in mind for each page it may read (robots.txt's and the owner's exclusions among them). */
const MAX_SEEN_PER_PAGE = 10;
/**
 * The text of new and changed pages a crawl holds before it is saved, at most (decision 657): the
 * Python manual's whole is 11 million characters, and 5,000 pages of 2 MiB would be 10 GB in
 * memory. Past it no more pages are read and the crawl is truncated, as at its page cap.
 */
const MAX_CRAWL_TEXT_CHARS = 64_000_000;
/**
 * How long a page the sitemap says has not changed goes without a request (decision 752): past
 * it the page is revalidated whatever its lastmod says, so a site whose lastmod lies is at most
 * this stale.
 */
export const LASTMOD_TRUST_MS = 7 * 86_400_000;
/** Redirects of the start address followed, as browsers stop a chain (Chromium at 20, curl's default 50; docs need 1 or 2). */
const MAX_START_REDIRECTS = 5;

/**
 * A sitemap's `<lastmod>` (W3C Datetime): when the page last changed (`at`), and the latest
 * moment that can mean (`until`): a date alone is its whole day (or month, or year) in some
 * time zone, from UTC+14 to UTC-12. null when it is no such date.
 */
export function sitemapLastmod(text: string): { at: number; until: number } | null {
  const match = /^(\d{4})(?:-(\d\d)(?:-(\d\d)(T.+)?)?)?$/.exec(text);
  const at = match ? Date.parse(text) : NaN;
  if (!match || Number.isNaN(at)) return null;
  if (match[4]) return { at, until: at };
  const end = new Date(at);
  if (match[3]) end.setUTCDate(end.getUTCDate() + 1);
  else if (match[2]) end.setUTCMonth(end.getUTCMonth() + 1);
  else end.setUTCFullYear(end.getUTCFullYear() + 1);
  return { at, until: end.getTime() + 12 * 3_600_000 };
}

const isSitemap = (start: string) => /\.xml(\.gz)?$/i.test(new URL(start).pathname);

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

/** Why a page that answered `status` (not 2xx or 3xx) was not read. */
const statusReason = (status: number) =>
  status === 404 || status === 410
    ? `not found (${status})`
    : status === 401 || status === 403
      ? `refused (${status})`
      : `the server answered ${status}`;

/** A Markdown page at `url`, titled by its file name when it has no heading, with its links. */
function markdownPage(text: string, url: string): ExtractedPage {
  const path = new URL(url).pathname;
  return {
    ...extractMarkdown(text, url, decodeURIComponent(path.split('/').pop() ?? path)),
    links: markdownLinks(text, url),
  };
}

/**
 * Whether `to` is on the site of `from`: the same host (another scheme or port), or one host
 * within the other (`example.com` and `docs.example.com`, `www.example.com` and `example.com`).
 */
function sameSite(from: string, to: string): boolean {
  const [a, b] = [new URL(from).hostname, new URL(to).hostname];
  return a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);
}

/**
 * A page with what its response's headers say of it too: `X-Robots-Tag` and a `Link` header's
 * canonical address, the only way to say either of a PDF.
 */
function withHeaders(page: ExtractedPage, headers: Headers, url: string): ExtractedPage {
  const robots = robotsHeader(headers.get('X-Robots-Tag'));
  const link = /<([^>]*)>\s*;[^,]*\brel\s*=\s*"?canonical\b/i.exec(headers.get('Link') ?? '')?.[1];
  return {
    ...page,
    noindex: page.noindex || robots.noindex,
    nofollow: page.nofollow || robots.nofollow,
    canonical: page.canonical ?? (link ? resolveUrl(link, url) : null),
  };
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

/**
 * How the crawler talks to a site: the caller's fetch, its time limit, its pause before a retry,
 * and the pace every request of the crawl keeps.
 */
interface Client {
  fetch: typeof fetch;
  timeoutMs: number;
  retryDelayMs: number;
  pace: Pace;
  signal?: AbortSignal;
}

/**
 * Tries of one request the site refused for load (429, 503), each after the crawl has slowed
 * down; any other failure (a 5xx, no answer) is tried twice.
 */
const REFUSED_TRIES = 4;

/** One request with the crawler's headers, no redirects followed, retried when it may help. */
async function request(
  client: Client,
  url: string,
  headers: Record<string, string> = {},
): Promise<Response | string> {
  for (let attempt = 1; ; attempt++) {
    await client.pace.turn(client.signal);
    // The body is read after this returns: the deadline must outlive it (kernel/deadline.ts).
    const signal = deadline(client.timeoutMs, client.signal);
    let failure: string;
    let tries = 2;
    let wait = client.retryDelayMs;
    try {
      const response = await client.fetch(url, {
        headers: {
          'User-Agent': USER_AGENT,
          Accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,application/pdf;q=0.5,*/*;q=0.1',
          ...headers,
        },
        redirect: 'manual',
        signal,
      });
      if (response.status !== 429 && response.status < 500) {
        client.pace.answered();
        return response;
      }
      await response.body?.cancel().catch(() => {});
      failure = `the server answered ${response.status}`;
      if (response.status === 429 || response.status === 503) {
        // The pace waits before the next try, this one's and every other request's.
        client.pace.refused(retryAfterMs(response.headers), client.retryDelayMs);
        [tries, wait] = [REFUSED_TRIES, 0];
      }
    } catch (error) {
      client.signal?.throwIfAborted();
      // An address the crawl may not reach (decision 650) stops it: no other page is asked for.
      if (error instanceof Error && error.name === 'SiteAddressError') throw error;
      failure = noAnswer(client, error) ?? 'the server could not be reached';
    }
    if (attempt >= tries) return failure;
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** A copy as stored, without what the crawl noted beside it. */
const bare = ({ url, etag, lastModified }: PageCopy): PageCopy => ({ url, etag, lastModified });

/**
 * The crawl's copies of pages (decision 642): addresses that served a page's content again, and
 * those that named another page canonical. The last crawl's are revalidated as copies.
 */
class PageCopies {
  /** The last crawl's copies by their address, each with the page it copied. */
  private readonly before = new Map<string, PageCopy & { of: string }>();
  /** Copies this crawl found other than by their content (named canonical, or revalidated), each with its page. */
  private readonly named: (PageCopy & { of: string })[] = [];

  constructor(previous: ReadonlyMap<string, PageState> | undefined) {
    for (const page of previous?.values() ?? [])
      for (const copy of page.copies ?? [])
        if (!previous!.has(copy.url)) this.before.set(copy.url, { ...copy, of: page.url });
  }

  /** What `url` was a copy of last time, with what revalidates it; undefined when it was none. */
  known(url: string) {
    return this.before.get(url);
  }

  /** `copy` names `of` as its canonical address, or was its copy last time and has not changed since. */
  add(copy: PageCopy, of: string) {
    this.named.push({ ...bare(copy), of });
  }

  /**
   * One page per content (a site serving one page at two addresses): the shortest address wins,
   * and the others are its copies, as are the addresses that named it (or one of its copies).
   */
  pages(pages: readonly CrawledPage[]): CrawledPage[] {
    const byHash = new Map<string, CrawledPage>();
    const first = (a: CrawledPage, b: CrawledPage) =>
      a.url.length < b.url.length || (a.url.length === b.url.length && a.url < b.url);
    for (const page of pages) {
      const other = byHash.get(page.hash);
      if (!other || first(page, other)) byHash.set(page.hash, page);
    }
    const kept = new Map(
      [...byHash.values()].map((page) => [page.url, { ...page, copies: [] as PageCopy[] }]),
    );
    const hashes = new Map(pages.map((page) => [page.url, page.hash]));
    const keeper = (url: string) => {
      const hash = hashes.get(url);
      return hash === undefined ? undefined : kept.get(byHash.get(hash)!.url);
    };
    const copies = [...pages.filter((page) => !kept.has(page.url)), ...this.named];
    for (const copy of copies) {
      const page = keeper('of' in copy ? copy.of : copy.url);
      if (page && !page.copies.some((c) => c.url === copy.url)) page.copies.push(bare(copy));
    }
    return [...kept.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }
}

/**
 * Runs `visit` on each address `next` gives, `concurrency` at a time, until it gives none and no
 * visit runs; rejects with the first visit that throws.
 */
function inParallel(
  concurrency: number,
  next: () => string | undefined,
  visit: (url: string) => Promise<void>,
): Promise<void> {
  let active = 0;
  return new Promise<void>((resolve, reject) => {
    const pump = () => {
      while (active < concurrency) {
        const url = next();
        if (url === undefined) break;
        active++;
        visit(url).then(() => {
          active--;
          pump();
        }, reject);
      }
      if (active === 0) resolve();
    };
    pump();
  });
}

/**
 * What a page that answered 2xx says, by its type: a PDF, Markdown or HTML page extracted; a
 * reason when it is too big to index; null for any other type (an image, a download), which is
 * no page of the docs and no failure either.
 */
async function extractResponse(
  response: Response,
  url: string,
  limits: { maxBytes: number; maxPdfBytes: number; maxPdfPages?: number },
): Promise<ExtractedPage | string | null> {
  const type = (response.headers.get('Content-Type') ?? '').toLowerCase();
  const path = new URL(url).pathname.toLowerCase();
  // Object stores often serve a PDF as bytes of no named type: its extension says what it is.
  if (/^application\/(x-)?pdf\b/.test(type) || (/octet-stream/.test(type) && path.endsWith('.pdf')))
    return readPdfResponse(response, url, limits.maxPdfBytes, limits.maxPdfPages);
  const markdown = /markdown/.test(type) || (type.startsWith('text/plain') && /\.(md|markdown)$/.test(path));
  if (!markdown && !/html/.test(type)) {
    await response.body?.cancel().catch(() => {});
    return null;
  }
  const text = await readText(response, limits.maxBytes);
  if (text === null) return `the page is over ${kb(limits.maxBytes)}: not indexed`;
  return markdown ? markdownPage(text, url) : extractHtml(text, url);
}

/** The words for a request that ran out of its time limit; undefined for any other failure. */
const noAnswer = (client: Client, error: unknown) =>
  error instanceof Error && error.name === 'TimeoutError'
    ? `no answer within ${Math.round(client.timeoutMs / 1000)} s`
    : undefined;

/** Why a body broke off while it was read (a drip past the time limit, a dropped connection); the crawl's own stop goes on up instead. */
function broken(client: Client, error: unknown): string {
  client.signal?.throwIfAborted();
  return noAnswer(client, error) ?? 'the connection broke before the end of the answer';
}

/** The characters of a page's title and sections' text: what the crawl's text cap counts. */
const textOf = (page: { title: string; sections: readonly { text: string }[] }) =>
  page.sections.reduce((sum, section) => sum + section.text.length, page.title.length);

/**
 * The addresses of a crawl (decision 653): those seen, once each, and those to read, never more
 * than the page cap can still take. Past either bound an address is dropped and the crawl is
 * truncated: a site whose sitemaps list millions of addresses (49 of 250,000 each took 3 GB and
 * 200 s for a crawl of 10 pages) is read as far as the cap, and no further.
 */
class Frontier {
  private readonly seen = new Set<string>();
  private readonly queue: string[] = [];
  readonly excluded = new Set<string>();
  readonly disallowed = new Set<string>();
  private fetched = 0;
  private stopped = false;
  truncated = false;

  constructor(
    private readonly maxPages: number,
    private readonly exclude: ExclusionMatcher,
  ) {}

  /** Nothing more can be read: the addresses to read fill what is left of the page cap, or the crawl stopped. */
  get full(): boolean {
    return this.stopped || this.queue.length + this.fetched >= this.maxPages;
  }

  /** No more addresses: the crawl holds what a crawl may (its text cap); what was read is kept. */
  stop() {
    this.stopped = this.truncated = true;
    this.queue.length = 0;
  }

  /**
   * An address on the site, to read unless robots.txt or the owner keeps it out or a bound is
   * reached; true when it is to be read (the first time it is seen).
   */
  add(url: string, allowed: (url: string) => boolean): boolean {
    if (this.seen.has(url) || url.length > MAX_URL_CHARS) return false;
    if (this.seen.size >= MAX_SEEN_PER_PAGE * this.maxPages) {
      this.truncated = true;
      return false;
    }
    const permitted = allowed(url);
    const queued = permitted && !excludedUrl(this.exclude, url);
    if (queued && this.full) {
      this.truncated = true;
      return false;
    }
    if (!permitted) this.disallowed.add(url);
    else if (!queued) this.excluded.add(url);
    else this.queue.push(url);
    this.seen.add(url);
    return queued;
  }

  /** The next address to read, counted; none once the page cap is reached. */
  next(): string | undefined {
    if (this.queue.length) this.fetched++;
    return this.queue.shift();
  }
}

/** When a page was last read or revalidated, and what its sitemap's lastmod said then. */
type Checked = Pick<PageState, 'sitemapLastmod' | 'checkedAt'>;

/**
 * What a crawl's sitemaps say of when their pages last changed, and whether it believes them
 * (decision 752).
 */
class Lastmods {
  private readonly marks = new Map<string, { at: number; until: number }>();
  /** Each page asked for: when, and whether its lastmod vouched for it. */
  private readonly checks = new Map<string, { at: number; vouched: boolean }>();
  /**
   * When a page its lastmod vouched for was found changed, by this crawl or one before: no lastmod
   * of the site is believed while it is set (decision 785).
   */
  private lieAt: number | null;
  /** Whether this crawl caught the lie (else it is the one a crawl before caught). */
  private caught = false;
  /** Pages its lastmod vouched for that were asked for anyway and had not changed. */
  private truthful = 0;
  /** Pages not asked for, their lastmod vouching for them. */
  spared = 0;
  /**
   * The pages checked longest ago, revalidated whatever their lastmod says: the share of the
   * bound gone since the last crawl, so that each crawl revalidates a like share and none waits
   * for a crawl that revalidates them all at once when the bound runs out (a crawl a day: a
   * seventh of the pages each day).
   */
  private readonly swept: Set<string>;

  constructor(
    private readonly now: () => number,
    previous: ReadonlyMap<string, PageState> | undefined,
    lieAt: number | null,
  ) {
    this.lieAt = lieAt;
    const pages = [...(previous?.values() ?? [])].filter((p) => p.checkedAt != null);
    const last = pages.reduce((latest, page) => Math.max(latest, page.checkedAt!), -Infinity);
    const vouchable = pages.filter((page) => page.sitemapLastmod != null);
    const share = Math.floor(vouchable.length * Math.min(1, (now() - last) / LASTMOD_TRUST_MS));
    vouchable.sort((a, b) => a.checkedAt! - b.checkedAt!);
    this.swept = new Set(vouchable.slice(0, Math.max(0, share)).map((page) => page.url));
  }

  /** `url`, listed by a sitemap with `lastmod` (as written), if with any. */
  listed(url: string, lastmod: string | null) {
    const mark = lastmod && sitemapLastmod(lastmod);
    if (mark) this.marks.set(url, mark);
  }

  /**
   * Whether `url` is spared its request: the sitemap says it has not changed since it was last
   * read or revalidated (its lastmod no later than the one seen then, and over before then), that
   * was within the bound, and it is not among the pages swept. Else it is asked for, and that time kept.
   */
  spare(url: string, before: PageState | undefined): boolean {
    const [mark, at] = [this.marks.get(url), this.now()];
    const [seen, checkedAt] = [before?.sitemapLastmod, before?.checkedAt];
    const vouched = !!mark && seen != null && checkedAt != null && mark.at <= seen && mark.until < checkedAt;
    if (vouched && this.lieAt == null && !this.swept.has(url) && at - checkedAt! < LASTMOD_TRUST_MS) {
      this.spared++;
      return true;
    }
    this.checks.set(url, { at, vouched });
    return false;
  }

  /** A page asked for came back with another content: a lie, when its lastmod vouched for it. */
  changed(url: string) {
    if (!this.checks.get(url)?.vouched || this.caught) return;
    [this.lieAt, this.caught] = [this.now(), true];
  }

  /**
   * A page asked for came back as it was: its lastmod, if it vouched for it, told the truth.
   * Returns what the page records, as `checked`.
   */
  unchanged(url: string) {
    if (this.checks.get(url)?.vouched) this.truthful++;
    return this.checked(url);
  }

  /**
   * When the lie this crawl or one before caught was: kept until a crawl asks for pages the
   * lastmod vouches for and finds none changed (decision 785).
   */
  lie(): number | null {
    return this.caught || !this.truthful ? this.lieAt : null;
  }

  /** The crawl's result's part: pages spared, and the lie kept for the next crawl. */
  result(): Pick<CrawlResult, 'lastmodSpared' | 'lastmodLieAt'> {
    return { lastmodSpared: this.spared, lastmodLieAt: this.lie() };
  }

  /** What a page read or revalidated records. */
  checked(url: string): Checked {
    return {
      sitemapLastmod: this.marks.get(url)?.at ?? null,
      checkedAt: this.checks.get(url)?.at ?? this.now(),
    };
  }
}

class Crawl {
  private readonly client: Client;
  private readonly maxBytes: number;
  private scope: Scope;
  /** The start page's address: the start, or where its redirects led. */
  private startPage: string;
  private moves = 0;
  /** A page without text ran scripts: the hint for a site that shows nothing without them. */
  private scriptedEmpty = false;
  private readonly sitemapsRead = new Set<string>();
  private readonly pages: CrawledPage[] = [];
  private readonly copies: PageCopies;
  private readonly failures: CrawlFailure[] = [];
  /** Each address to read: how the crawl first came to it, kept for its failure (one per page read). */
  private readonly referrers = new Map<string, CrawlReferrer>();
  /** Characters of the new and changed pages' sections read so far. */
  private textChars = 0;
  private readonly exclude: ExclusionMatcher;
  private readonly frontier: Frontier;
  private robots: Robots = ALLOW_ALL;
  private phase: CrawlProgress['phase'] = 'robots';
  private complete = true;
  private readonly lastmods: Lastmods;

  constructor(
    private readonly start: string,
    private readonly options: CrawlOptions,
  ) {
    this.client = {
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.timeoutMs ?? 15_000,
      retryDelayMs: options.retryDelayMs ?? 1_000,
      pace: new Pace(),
      signal: options.signal,
    };
    this.maxBytes = options.maxPageBytes ?? 2 * 1024 * 1024;
    this.scope = Scope.of(start);
    this.startPage = resolveUrl(start, start) ?? start;
    this.exclude = exclusionMatcher(options.exclude ?? []);
    this.frontier = new Frontier(options.maxPages ?? 5_000, this.exclude);
    this.copies = new PageCopies(options.previous);
    this.lastmods = new Lastmods(options.now ?? Date.now, options.previous, options.lastmodLieAt ?? null);
    const pattern = excludedUrl(this.exclude, start);
    if (pattern) throw new CrawlExcludedStartError(start, pattern);
  }

  private enqueue(url: string, from?: CrawlReferrer): boolean {
    if (!this.scope.includes(url)) return false;
    const queued = this.frontier.add(url, (address) => this.robots.allowed(address));
    if (queued && from) this.referrers.set(url, from);
    return queued;
  }

  private async readRobots() {
    const url = `${this.scope.origin}/robots.txt`;
    const response = await request(this.client, url);
    const unanswered = (reason: string) => {
      this.robots = DISALLOW_ALL;
      this.complete = false;
      this.failures.push({ url, reason: `${reason}: nothing is crawled until robots.txt answers` });
    };
    if (typeof response === 'string') return unanswered(response);
    if (response.status >= 200 && response.status < 300) {
      const text = await readText(response, 512 * 1024).catch((error: unknown) => ({
        broken: broken(this.client, error),
      }));
      if (typeof text === 'object' && text) return unanswered(text.broken);
      this.robots = text === null ? ALLOW_ALL : parseRobots(text, url);
      this.client.pace.atLeast(this.robots.crawlDelayMs);
    } else await response.body?.cancel().catch(() => {});
    // 3xx and 4xx: no rules (RFC 9309 2.3.1.3).
  }

  private enqueueStart(start: string) {
    if (!this.robots.allowed(start))
      this.failures.push({ url: start, reason: 'robots.txt does not allow crawling this address' });
    else this.enqueue(start);
  }

  /** The sitemap given as the start (`given`), else those robots.txt names and the one beside the start. */
  private async readSitemaps(given: boolean) {
    const candidates = given
      ? [this.start]
      : [...this.robots.sitemaps, `${this.scope.origin}${this.scope.prefix}sitemap.xml`];
    const read = this.sitemapsRead;
    for (let i = 0; i < candidates.length && read.size < MAX_SITEMAPS; i++) {
      const url = candidates[i];
      if (read.has(url) || new URL(url).origin !== this.scope.origin) continue;
      // Once the addresses to read fill the page cap, another sitemap's could only be dropped.
      if (this.frontier.full) return void (this.frontier.truncated = true);
      read.add(url);
      const response = await request(this.client, url, {
        Accept: 'application/xml,text/xml;q=0.9,*/*;q=0.1',
      });
      const ok = typeof response !== 'string' && response.status >= 200 && response.status < 300;
      const entries = ok
        ? await readSitemap(response, 10 * this.maxBytes).catch((error: unknown) => {
            // A sitemap that broke off is one not read; the crawl's own stop goes on up.
            broken(this.client, error);
            return null;
          })
        : null;
      if (typeof response !== 'string' && !ok) await response.body?.cancel().catch(() => {});
      if (entries === null) {
        if (given && url === this.start)
          this.failures.push({
            url,
            reason:
              typeof response === 'string'
                ? response
                : ok
                  ? `the sitemap is over ${kb(10 * this.maxBytes)} or damaged: not read`
                  : `the sitemap could not be read (${response.status})`,
          });
        continue;
      }
      const { pages, sitemaps, lastmods } = entries;
      candidates.push(...sitemaps.map((s) => resolveUrl(s, url)).filter((s): s is string => !!s));
      for (const [i, page] of pages.entries()) {
        const link = resolveUrl(page, url);
        if (link && this.enqueue(link, { url, by: 'sitemap' })) this.lastmods.listed(link, lastmods[i]);
      }
    }
  }

  async run(): Promise<CrawlResult> {
    this.report();
    await this.readRobots();
    if (this.complete) {
      this.report('sitemap');
      await this.readSitemaps(isSitemap(this.start));
      if (!isSitemap(this.start)) this.enqueueStart(this.startPage);
      this.report('pages');
      await this.drain();
    }
    // Pages read, and not one with text: a site drawn by JavaScript serves an empty shell to
    // anything that runs no scripts. Said once, for the site: a page of links alone (a Sphinx
    // toctree) is empty too, and is no failure.
    const read = this.pages.some((page) => page.status === 'unchanged' || page.sections.length);
    if (this.pages.length && !read)
      this.failures.push({
        url: this.startPage,
        reason: this.scriptedEmpty
          ? 'no text in the HTML of any page read: the site may draw its pages with JavaScript, which the crawler does not run (serve them pre-rendered, or add the docs as a folder of Markdown)'
          : 'no text in any page read',
      });
    // Empty shells are no pages to show as indexed.
    if (!read) this.pages.length = 0;
    // A crawl that read nothing and failed says nothing about which pages are gone.
    if (!read && this.failures.length) this.complete = false;
    return {
      pages: this.copies.pages(this.pages),
      failures: this.failures,
      complete: this.complete,
      truncated: this.frontier.truncated,
      excluded: this.frontier.excluded.size,
      disallowed: this.frontier.disallowed.size,
      ...this.lastmods.result(),
    };
  }

  private drain(): Promise<void> {
    const concurrency = Math.max(1, this.options.concurrency ?? 4);
    return inParallel(
      concurrency,
      () => this.frontier.next(),
      (url) => this.visit(url).then(() => this.report()),
    );
  }

  /** Tells the caller how far the crawl has got, in `phase` from now on when one is given. */
  private report(phase = this.phase) {
    this.phase = phase;
    this.options.onProgress?.({ phase, pagesRead: this.pages.length, pagesFailed: this.failures.length });
  }

  private async visit(url: string) {
    const before = this.options.previous?.get(url);
    // Not asked for at all: the sitemap vouches for it, and it was read or revalidated lately.
    if (this.lastmods.spare(url, before)) return this.keep(before!);
    // A copy of a page last time is revalidated as the page is; unchanged, it still is one.
    const copy = before ? undefined : this.copies.known(url);
    const validators = before ?? copy;
    const conditional: Record<string, string> = {};
    if (validators?.etag) conditional['If-None-Match'] = validators.etag;
    if (validators?.lastModified) conditional['If-Modified-Since'] = validators.lastModified;
    const response = await request(this.client, url, conditional);
    if (typeof response === 'string') return this.failed(url, response, before);
    const { status } = response;
    if (status === 304 && before) return this.keep(before, this.lastmods.unchanged(url));
    if (status === 304 && copy) {
      this.copies.add(copy, copy.of);
      return this.enqueue(copy.of, { url, by: 'link' });
    }
    if (status >= 300 && status < 400) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get('Location');
      return this.redirect(url, location ? resolveUrl(location, url) : null);
    }
    if (status < 200 || status >= 300) {
      await response.body?.cancel().catch(() => {});
      return this.failed(url, statusReason(status), status === 404 || status === 410 ? undefined : before);
    }
    const { maxPdfBytes = MAX_FILE_BYTES.pdf, maxPdfPages } = this.options;
    const limits = { maxBytes: this.maxBytes, maxPdfBytes, maxPdfPages };
    // A body that stops coming fails its page for a passing reason; the crawl goes on.
    const page = await extractResponse(response, url, limits).catch((error: unknown) => ({
      broken: broken(this.client, error),
    }));
    if (typeof page === 'string') return this.failed(url, page, undefined);
    if (page && 'broken' in page) return this.failed(url, page.broken, before);
    if (page) await this.read(url, page, response.headers, before);
  }

  /**
   * A redirect (3xx, or a page's meta refresh) to `target`. The start address's own is followed
   * on its site, and the crawl moves there (`http:` to `https:`, `example.com/docs` to
   * `docs.example.com`): that is the site the owner named. Any other page's is followed within
   * the crawl's scope, as a link is.
   */
  private async redirect(from: string, target: string | null) {
    if (!target) return this.failed(from, 'redirects to no readable address', undefined);
    if (from !== this.startPage || this.scope.includes(target)) {
      if (from === this.startPage) this.startPage = target;
      this.enqueue(target, { url: from, by: 'redirect' });
      return;
    }
    if (++this.moves > MAX_START_REDIRECTS)
      return this.failed(from, `redirects more than ${MAX_START_REDIRECTS} times`, undefined);
    // Another site is the owner's to name: a redirect must not lead the crawler (and the index, and
    // so the answers) to a host nobody chose, an internal one least of all.
    if (!sameSite(from, target))
      return this.failed(
        from,
        `redirects to ${target}, another site: add that address as the source`,
        undefined,
      );
    const origin = this.scope.origin;
    this.scope = this.scope.movedTo(from, target);
    this.startPage = target;
    if (this.scope.origin !== origin) await this.readRobots();
    if (!this.complete) return;
    await this.readSitemaps(false);
    this.enqueueStart(target);
  }

  /** A page read: its links followed, then indexed unless it asks not to be or is a copy. */
  private async read(url: string, extracted: ExtractedPage, headers: Headers, before: PageState | undefined) {
    const page = withHeaders(extracted, headers, url);
    // A page that sends its reader on at once stands for where it sends them (as search engines read it).
    if (page.refresh && page.refresh !== url) return this.redirect(url, page.refresh);
    if (!page.nofollow) for (const link of page.links) this.enqueue(link, { url, by: 'link' });
    if (page.noindex) return;
    // A page that names another address on this site as its canonical one is a copy: the
    // canonical page is read (and indexed) in its place.
    if (page.canonical && page.canonical !== url && this.scope.includes(page.canonical)) {
      const validators = { etag: headers.get('ETag'), lastModified: headers.get('Last-Modified') };
      this.copies.add({ url, ...validators }, page.canonical);
      return this.enqueue(page.canonical, { url, by: 'link' });
    }
    if (!page.sections.length && page.scripted) this.scriptedEmpty = true;
    // What the page says, wherever it is served from: two addresses with one content are one page.
    const hash = await hashOf(
      JSON.stringify([page.title, page.sections.map((s) => [s.url.slice(url.length), s.headings, s.text])]),
    );
    const state: PageState = {
      url,
      etag: headers.get('ETag'),
      lastModified: headers.get('Last-Modified'),
      hash,
      links: page.links.filter((link) => this.scope.includes(link)),
      ...this.lastmods.checked(url),
    };
    if (before) this.lastmods[before.hash === hash ? 'unchanged' : 'changed'](url);
    if (before && before.hash === hash)
      this.pages.push({ ...state, title: page.title, status: 'unchanged', sections: [] });
    else if ((this.textChars += textOf(page)) > (this.options.maxTextChars ?? MAX_CRAWL_TEXT_CHARS))
      return this.frontier.stop();
    else
      this.pages.push({
        ...state,
        title: page.title,
        status: before ? 'changed' : 'new',
        sections: page.sections,
      });
  }

  /** A page that answered 304 (`checked` then), is vouched for, or failed: its links are as last seen. */
  private keep(before: PageState, checked?: Checked) {
    for (const link of before.links) this.enqueue(link, { url: before.url, by: 'link' });
    this.pages.push({ ...before, ...checked, title: '', status: 'unchanged', sections: [] });
  }

  /** A failure; a page known from before that failed for a passing reason is kept as it was. */
  private failed(url: string, reason: string, keep: PageState | undefined) {
    const from = this.referrers.get(url);
    this.failures.push(from ? { url, reason, from } : { url, reason });
    if (keep) this.keep(keep);
  }
}

/**
 * Crawls the site at `start` (a site root, a folder of it, or its sitemap.xml); throws
 * `CrawlExcludedStartError` when `start` is itself excluded.
 */
export async function crawlSite(start: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  try {
    return await new Crawl(start, options).run();
  } finally {
    // Its PDFs shared one thread of pdf.js: none is left waiting for a next one (decision 764).
    await closeIdlePdfThreads();
  }
}
