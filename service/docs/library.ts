import type { Clock } from '../kernel/clock.js';
import type { Log } from '../kernel/log.js';
import type { CrawlRunRecord, DocSourceRecord, DocSourceSummary, DocsStore } from '../storage/types.js';
import {
  CrawlExcludedStartError,
  crawlSite,
  type CrawlOptions,
  type CrawledPage,
  type PageState,
} from './crawler.js';
import {
  excludedUrl,
  exclusionMatcher,
  exclusionProblem,
  suggestExclusions,
  type SuggestedExclusion,
} from './exclusions.js';
import { CrawlProgressWriter, type CrawlStep } from './crawl-progress.js';
import { isSynonymList, splitSynonyms, synonymProblem } from './synonyms.js';
import { Embedder, embeddingText } from './embeddings.js';
import { deadline } from '../kernel/deadline.js';
import { CrawlTurns } from './crawl-turns.js';
import { ProjectIndex } from './project-index.js';
import type { Hit } from './types.js';
import { SiteAddressError, type SiteNetwork, checkedAddresses, siteFetch } from './site-network.js';

/**
 * The projects' documentation (decisions 294, 298): each project's sources in the database,
 * crawled on a schedule by one instance of the fleet at a time (a lease), and per project an
 * index every instance builds in memory from that project's stored sections and rebuilds when
 * its version moves. A restart reads the indexes from the database; it does not crawl again until
 * a source is due. A project's agent searches its own index: no other project's pages are in it.
 */

export interface DocsLibraryOptions {
  store: DocsStore;
  clock: Clock;
  /** Reads a folder source (Node's `readDocsFolder`); without it only websites can be added. */
  readFolder?: (
    dir: string,
    publicUrl: string,
    previous: ReadonlyMap<string, PageState>,
    options: {
      exclude: readonly string[];
      onExcluded: (path: string) => void;
      onFailed: (url: string, reason: string) => void;
      onRead: (url: string) => void;
    },
  ) => Promise<CrawledPage[]>;
  /** Embeds sections and questions (`OPENAI_EMBEDDING_MODEL`); lexical ranking alone without it. */
  embedder?: Embedder;
  /** A source is crawled again this long after its last crawl. Default 24 h. */
  recrawlEveryMs?: number;
  /** How long the crawl lease holds without renewal. Default 10 minutes. */
  leaseMs?: number;
  /** How long a search trusts its index before asking the store whether it moved. Default 5 s. */
  freshnessMs?: number;
  /**
   * Where crawls may connect (decision 650): public addresses only unless `allowPrivate`, or the
   * site is one of `operatorSites`. Default: public addresses, through the system's resolver.
   * A `crawl.fetch` given replaces it (tests).
   */
  network?: SiteNetwork;
  /** The crawler's caps and fetch. */
  crawl?: Omit<CrawlOptions, 'previous' | 'signal' | 'exclude' | 'now'>;
  /** A folder's public URL when none is given. Default `/docs`. */
  folderUrl?: string;
  log?: Log;
}

/** A location a site owner typed that cannot be a source: said plainly, nothing added. */
export class DocsInputError extends Error {
  override name = 'DocsInputError';
}

/** A source location as stored: an http(s) URL without fragment, or a folder path. */
export function sourceLocation(
  location: string,
  canReadFolders: boolean,
): { location: string; kind: 'site' | 'folder' } {
  const trimmed = location.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw new DocsInputError(`${trimmed} is not a URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new DocsInputError(`${trimmed}: only http and https sites can be crawled.`);
    url.hash = '';
    return { location: url.href, kind: 'site' };
  }
  if (!trimmed) throw new DocsInputError('Give a website URL or a folder.');
  if (!canReadFolders) throw new DocsInputError(`${trimmed} is not a URL (http:// or https://).`);
  return { location: trimmed, kind: 'folder' };
}

/**
 * A source's exclude patterns as stored (decision 416): checked, or a `DocsInputError` naming
 * the bad one; a website whose own address they exclude is refused (nothing would be crawled).
 */
export function sourceExclusions(patterns: readonly unknown[], source?: { location: string; kind: string }) {
  const problem = exclusionProblem(patterns);
  if (problem) throw new DocsInputError(problem);
  const exclude = [...new Set(patterns as string[])];
  const pattern = source?.kind === 'site' && excludedUrl(exclusionMatcher(exclude), source.location);
  if (pattern)
    throw new DocsInputError(
      `${source.location} is itself excluded by ${pattern}: nothing would be crawled.`,
    );
  return exclude;
}

/**
 * What a source holds now, against what the last crawls left, its progress told to `onProgress`;
 * null when `signal` aborted meanwhile (the library closed, or the lease was lost).
 */
async function readSource(
  source: DocSourceRecord,
  options: DocsLibraryOptions,
  signal: AbortSignal,
  onProgress: (step: CrawlStep) => void,
) {
  const previous = new Map((await options.store.listDocPages(source.id)).map((page) => [page.url, page]));
  const exclude = source.exclude;
  // A lie of the site's lastmod outlives the crawl that caught it (decision 785).
  const [last] = source.kind === 'site' ? await options.store.listCrawlRuns(source.id, 1) : [];
  const lastmodLieAt = last?.lastmodLieAt ?? null;
  try {
    if (source.kind === 'site') {
      const now = () => options.clock.now();
      const crawl = { exclude, previous, signal, onProgress, now, lastmodLieAt };
      const result = await crawlWebsite(source.location, options, crawl);
      // Pages indexed before the owner excluded them go even when this crawl was incomplete.
      const matcher = exclusionMatcher(exclude);
      return { ...result, dropped: [...previous.keys()].filter((url) => excludedUrl(matcher, url)) };
    }
    if (!options.readFolder) throw new Error('this service cannot read folders');
    let excluded = 0;
    let read = 0;
    const failures: { url: string; reason: string }[] = [];
    const step = () => onProgress({ phase: 'pages', pagesRead: read, pagesFailed: failures.length });
    step();
    const pages = await options.readFolder(source.location, source.publicUrl ?? '/docs', previous, {
      exclude,
      onExcluded: () => excluded++,
      onFailed: (url, reason) => {
        failures.push({ url, reason });
        step();
      },
      onRead: () => {
        read++;
        step();
      },
    });
    return { pages, failures, complete: true, truncated: false, excluded };
  } catch (error) {
    if (signal.aborted) return null;
    const reason =
      error instanceof Error && 'code' in error && error.code === 'ENOENT'
        ? 'the folder does not exist'
        : error instanceof CrawlExcludedStartError || error instanceof SiteAddressError
          ? error.message
          : `the source could not be read (${error instanceof Error ? error.message : 'unknown error'})`;
    return {
      pages: [],
      failures: [{ url: source.location, reason }],
      complete: false,
      truncated: false,
      excluded: 0,
      lastmodLieAt,
    };
  }
}

/**
 * A website's crawl through the service's transport (decisions 650, 662), whose connections are
 * kept open between its requests and closed when it ends or is stopped.
 */
async function crawlWebsite(location: string, options: DocsLibraryOptions, crawl: CrawlOptions) {
  const fetch = siteFetch(options.network ?? { allowPrivate: false });
  try {
    return await crawlSite(location, { fetch, ...options.crawl, ...crawl });
  } finally {
    fetch.close();
  }
}

/**
 * A crawl's pages without NUL characters, which PostgreSQL's text does not hold: one page (a
 * Markdown or text file) with a stray one failed the write of the whole crawl, at every
 * crawl, and the source stayed empty (decision 759). It is extracted text, and HTML's parsing
 * rules drop the character too.
 */
function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\0') ? value.replaceAll('\0', '') : value) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNul(v)])) as T;
  return value;
}

/** The first wait before a source whose crawl stopped is crawled again (decision 620). */
const RETRY_STOPPED_CRAWL_MS = 5 * 60_000;
/** Stopped crawls in a row that still double the wait: 5 minutes × 2^9 is past any day's schedule. */
const STOPPED_CRAWLS_COUNTED = 9;

export class DocsLibrary {
  private readonly indexes = new Map<string, ProjectIndex>();
  /** Each website source's exclusion offers, as of the crawl they were read after. */
  private readonly offers = new Map<string, { crawledAt: number | null; offers: SuggestedExclusion[] }>();
  private readonly stop = new AbortController();
  private readonly turns: CrawlTurns;

  constructor(private readonly options: DocsLibraryOptions) {
    this.turns = new CrawlTurns({
      store: options.store,
      clock: options.clock,
      leaseMs: this.leaseMs,
      stop: this.stop.signal,
      crawl: (source, signal) => this.crawl(source, signal),
      after: () => embedMissing(options, this.stop.signal),
    });
  }

  get store(): DocsStore {
    return this.options.store;
  }

  /**
   * The project's sources, each with the crawl under way if its crawler still writes it: progress
   * not written for a lease's length is a crawl that died with its instance (decision 435).
   */
  async sources(projectId: string): Promise<DocSourceSummary[]> {
    const live = this.options.clock.now() - this.leaseMs;
    return (await this.options.store.listDocSources(projectId)).map((source) =>
      source.crawl && source.crawl.updatedAt < live ? { ...source, crawl: null } : source,
    );
  }

  private get leaseMs() {
    return this.options.leaseMs ?? 10 * 60_000;
  }

  /**
   * Refuses a website whose addresses its crawl may not reach, in the words the crawl would say
   * (decision 658). A name that does not resolve now, or not within 5 s, is left to the crawl.
   */
  private async reachable(location: string): Promise<void> {
    const network = this.options.network ?? { allowPrivate: false };
    if (network.allowPrivate) return;
    await checkedAddresses(network, new URL(location), deadline(5_000)).catch((error: unknown) => {
      if (error instanceof SiteAddressError) throw new DocsInputError(error.message);
    });
  }

  /** Adds a source to the project, due at once; a location the project has is returned as it is. */
  async addSource(
    projectId: string,
    location: string,
    publicUrl?: string,
    exclude: readonly unknown[] = [],
  ): Promise<DocSourceRecord> {
    const parsed = sourceLocation(location, !!this.options.readFolder);
    const patterns = sourceExclusions(exclude, parsed);
    if (parsed.kind === 'site') await this.reachable(parsed.location);
    const existing = (await this.sources(projectId)).find((s) => s.location === parsed.location);
    if (existing) return existing;
    const now = this.options.clock.now();
    const source: DocSourceRecord = {
      id: `src_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`,
      projectId,
      ...parsed,
      publicUrl: parsed.kind === 'folder' ? (publicUrl ?? this.options.folderUrl ?? '/docs') : null,
      exclude: patterns,
      createdAt: now,
      lastCrawlAt: null,
      nextCrawlAt: now,
    };
    await this.options.store.addDocSource(source);
    return (await this.sources(projectId)).find((s) => s.location === parsed.location) ?? source;
  }

  removeSource(projectId: string, id: string): Promise<boolean> {
    this.offers.delete(id);
    return this.options.store.removeDocSource(projectId, id);
  }

  /**
   * What the owner may want out of a website source's index (decision 427): its folders of release
   * notes, source listings, blog posts and other versions, but those it already excludes (their pages leave at the
   * next crawl). A folder source's patterns match its files' paths, not its pages' addresses, so it
   * gets none. Pages change only with a crawl, and the Sources page reads this while a crawl runs,
   * so a source's pages are listed once per crawl, not once per look.
   */
  async suggestedExclusions(source: DocSourceSummary): Promise<SuggestedExclusion[]> {
    if (source.kind !== 'site') return [];
    let known = this.offers.get(source.id);
    if (known?.crawledAt !== source.lastCrawlAt) {
      const pages = await this.options.store.listDocPages(source.id);
      known = {
        crawledAt: source.lastCrawlAt,
        offers: suggestExclusions(
          pages.map((page) => page.url),
          source.location,
        ),
      };
      this.offers.set(source.id, known);
    }
    return known.offers.filter((offer) => !source.exclude.includes(offer.pattern));
  }

  /** The project's synonym groups (decision 422). */
  synonyms(projectId: string): Promise<string[][]> {
    return this.options.store.docSynonyms(projectId);
  }

  /**
   * Replaces the project's synonym groups, as stored: trimmed and without repeats, then checked
   * (a `DocsInputError` naming the bad group). This instance's index takes them at once; the
   * others when they see the project's version move.
   */
  async setSynonyms(projectId: string, groups: readonly unknown[]): Promise<string[][]> {
    // Not lists of strings: synonymProblem names that first.
    if (!isSynonymList(groups)) throw new DocsInputError(synonymProblem(groups)!);
    const synonyms = splitSynonyms(groups);
    const problem = synonymProblem(synonyms);
    if (problem) throw new DocsInputError(problem);
    await this.options.store.setDocSynonyms(projectId, synonyms);
    await this.indexes
      .get(projectId)
      ?.refresh()
      .catch(() => {});
    return synonyms;
  }

  /**
   * Replaces the exclude patterns of the project's source and crawls it again now, so the pages
   * they keep out leave its index; false when the project has no such source.
   */
  async setExclusions(projectId: string, id: string, exclude: readonly unknown[]): Promise<boolean> {
    const source = (await this.sources(projectId)).find((s) => s.id === id);
    if (!source) return false;
    const patterns = sourceExclusions(exclude, source);
    const set = await this.options.store.setDocExclusions(projectId, id, patterns, this.options.clock.now());
    if (set) void this.tick().catch(() => {});
    return set;
  }

  /** Makes the project's source due now; the next tick (or this one) crawls it. */
  async recrawlNow(projectId: string, id: string): Promise<boolean> {
    const scheduled = await this.options.store.scheduleDocCrawl(projectId, id, this.options.clock.now());
    if (scheduled) void this.tick().catch(() => {});
    return scheduled;
  }

  /** The project's documentation, as its agent searches it. */
  project(projectId: string): ProjectIndex {
    let index = this.indexes.get(projectId);
    if (!index) {
      index = new ProjectIndex(projectId, {
        store: this.options.store,
        clock: this.options.clock,
        embedder: this.options.embedder,
        freshnessMs: this.options.freshnessMs ?? 5_000,
        log: this.options.log,
      });
      this.indexes.set(projectId, index);
    }
    return index;
  }

  /**
   * Builds the index of each project with sources that this process has not built yet, one
   * after another. A project's first search waits for its index (seconds for a manual of a
   * thousand pages), so a restart or a new instance of a fleet builds them before a visitor asks.
   */
  async warm(): Promise<number> {
    const projects = new Set((await this.options.store.listDocSources()).map((s) => s.projectId));
    let built = 0;
    for (const projectId of projects) {
      if (this.stop.signal.aborted) break;
      if (this.indexes.has(projectId)) continue;
      await this.project(projectId).size();
      built++;
    }
    return built;
  }

  /** The sections of the project's docs that answer `question`, best first. */
  search(projectId: string, question: string, limit = 20): Promise<Hit[]> {
    return this.project(projectId).search(question, limit);
  }

  /** The words a search of the project's docs adds to `question`. */
  expansions(projectId: string, question: string): Promise<string[]> {
    return this.project(projectId).expansions?.(question) ?? Promise.resolve([]);
  }

  /**
   * Crawls the sources that are due, every project's, three at once (`CrawlTurns`), while this
   * process holds the lease; returns how many it crawled (0 when another instance crawls). Once the
   * library is closed (the instance drains or stops) it crawls nothing and leaves the lease to
   * the fleet: a source made due meanwhile is crawled by another instance (decision 457).
   */
  tick(): Promise<number> {
    return this.turns.tick();
  }

  /**
   * How long until the source's next crawl: its schedule after a complete one; after a crawl the
   * site stopped (down, its robots.txt failing), 5 minutes, doubled for each stopped crawl just
   * before it, up to the schedule (decision 620): a site back from an outage is read within
   * minutes or hours, not a day later, and one that stays down is not hammered.
   */
  private async nextCrawlIn(source: DocSourceRecord, complete: boolean): Promise<number> {
    const every = this.options.recrawlEveryMs ?? 86_400_000;
    if (complete) return every;
    const runs = await this.options.store.listCrawlRuns(source.id, STOPPED_CRAWLS_COUNTED);
    const stopped = runs.findIndex((run) => run.complete);
    const before = stopped < 0 ? runs.length : stopped;
    return Math.min(every, RETRY_STOPPED_CRAWL_MS * 2 ** before);
  }

  /**
   * One source, crawled and applied whole; failures are the run's, never thrown. How far it has
   * got is in the store while it runs (decision 435), until its run replaces it.
   */
  private async crawl(source: DocSourceRecord, signal: AbortSignal) {
    const { store, clock, log } = this.options;
    const startedAt = clock.now();
    const onError = (error: unknown) =>
      log?.({ level: 'warn', msg: 'docs_progress_failed', source: source.id, error: String(error) });
    const progress = new CrawlProgressWriter({ store, clock, sourceId: source.id, startedAt, onError });
    let run: CrawlRunRecord | undefined;
    try {
      const result = await readSource(source, this.options, signal, (step) => progress.report(step));
      if (!result) return;
      const read = { pagesRead: result.pages.length, pagesFailed: result.failures.length };
      await progress.settle({ phase: 'saving', ...read });
      const finishedAt = clock.now();
      run = await store.applyDocCrawl({
        sourceId: source.id,
        startedAt,
        finishedAt,
        nextCrawlAt: finishedAt + (await this.nextCrawlIn(source, result.complete)),
        ...withoutNul(result),
      });
    } finally {
      if (!run) await progress.settle(null);
    }
    log?.({
      level: run.failures.length ? 'warn' : 'info',
      msg: 'docs_crawled',
      project: source.projectId,
      source: source.id,
      pages_new: run.pagesNew,
      pages_changed: run.pagesChanged,
      pages_unchanged: run.pagesUnchanged,
      pages_removed: run.pagesRemoved,
      pages_excluded: run.pagesExcluded,
      pages_disallowed: run.pagesDisallowed,
      pages_spared: run.pagesSpared,
      ...(run.lastmodLieAt != null && { lastmod_lie_at: new Date(run.lastmodLieAt).toISOString() }),
      failures: run.failures.length,
      ms: run.finishedAt - startedAt,
    });
    await this.indexes
      .get(source.projectId)
      ?.refresh()
      .catch(() => {});
  }

  /**
   * Stops a crawl in flight (what it read is not applied; the source stays due, so the instance
   * that takes the lease next crawls it) and lets the lease go. Searches still work.
   */
  async close(): Promise<void> {
    this.stop.abort();
    await this.turns.ended();
  }
}

/**
 * Embeds the sections, of every project with sources, that have no vector from the configured
 * model yet, 256 at a time, until `signal` aborts or the embeddings server fails (logged).
 */
async function embedMissing(options: DocsLibraryOptions, signal: AbortSignal) {
  const { embedder, store, log } = options;
  if (!embedder) return;
  const projects = new Set((await store.listDocSources()).map((source) => source.projectId));
  for (const projectId of projects) {
    const missing = (await store.listDocSections(projectId)).filter(
      (s) => s.embeddingModel !== embedder.model,
    );
    for (let i = 0; i < missing.length && !signal.aborted; i += 256) {
      const batch = missing.slice(i, i + 256);
      try {
        const vectors = await embedder.embed(batch.map(embeddingText), signal);
        await store.putEmbeddings(
          projectId,
          embedder.model,
          batch.map((section, j) => ({ id: section.id, embedding: Array.from(vectors[j]) })),
        );
      } catch (error) {
        log?.({
          level: 'warn',
          msg: 'docs_embeddings_failed',
          error: error instanceof Error ? error.message : 'unknown',
        });
        return;
      }
    }
  }
}
