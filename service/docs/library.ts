import type { Clock } from '../kernel/clock.js';
import type { DocSourceRecord, DocSourceSummary, DocsStore } from '../storage/types.js';
import { crawlSite, type CrawlOptions, type CrawledPage, type PageState } from './crawler.js';
import { Embedder, HybridDocs, embeddingText } from './embeddings.js';
import { SectionIndex } from './ranking.js';
import type { DocsSearch, Hit, Section } from './types.js';

/**
 * The service's documentation (decision 294): the sources in the database, crawled on a
 * schedule by one instance of the fleet at a time (a lease), and an index every instance builds
 * in memory from the stored sections and rebuilds when their version moves. A restart reads the
 * index from the database; it does not crawl again until a source is due.
 */

type Log = (
  entry: { level: 'info' | 'warn' | 'error'; msg: string } & Record<string, string | number | boolean | null>,
) => void;

export interface DocsLibraryOptions {
  store: DocsStore;
  clock: Clock;
  /** Reads a folder source (Node's `readDocsFolder`); without it only websites can be added. */
  readFolder?: (
    dir: string,
    publicUrl: string,
    previous: ReadonlyMap<string, PageState>,
  ) => Promise<CrawledPage[]>;
  /** Embeds sections and questions (`OPENAI_EMBEDDING_MODEL`); lexical ranking alone without it. */
  embedder?: Embedder;
  /** A source is crawled again this long after its last crawl. Default 24 h. */
  recrawlEveryMs?: number;
  /** How long the crawl lease holds without renewal. Default 10 minutes. */
  leaseMs?: number;
  /** How long a search trusts its index before asking the store whether it moved. Default 5 s. */
  freshnessMs?: number;
  /** The crawler's caps and fetch. */
  crawl?: Omit<CrawlOptions, 'previous' | 'signal'>;
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

export class DocsLibrary implements DocsSearch {
  /** This process in the crawl lease. */
  readonly holder = `docs-${crypto.randomUUID()}`;
  private index: { version: number; search: DocsSearch; size: number } | null = null;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | null = null;
  private ticking: Promise<number> | null = null;
  private readonly stop = new AbortController();

  constructor(private readonly options: DocsLibraryOptions) {}

  get store(): DocsStore {
    return this.options.store;
  }

  sources(): Promise<DocSourceSummary[]> {
    return this.options.store.listDocSources();
  }

  /** Adds a source, due at once; an existing location is returned as it is. */
  async addSource(location: string, publicUrl?: string): Promise<DocSourceRecord> {
    const parsed = sourceLocation(location, !!this.options.readFolder);
    const existing = (await this.sources()).find((s) => s.location === parsed.location);
    if (existing) return existing;
    const now = this.options.clock.now();
    const source: DocSourceRecord = {
      id: `src_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`,
      ...parsed,
      publicUrl: parsed.kind === 'folder' ? (publicUrl ?? this.options.folderUrl ?? '/docs') : null,
      createdAt: now,
      lastCrawlAt: null,
      nextCrawlAt: now,
    };
    await this.options.store.addDocSource(source);
    return (await this.sources()).find((s) => s.location === parsed.location) ?? source;
  }

  removeSource(id: string): Promise<boolean> {
    return this.options.store.removeDocSource(id);
  }

  /** Makes a source due now; the next tick (or this one) crawls it. */
  async recrawlNow(id: string): Promise<boolean> {
    const scheduled = await this.options.store.scheduleDocCrawl(id, this.options.clock.now());
    if (scheduled) void this.tick().catch(() => {});
    return scheduled;
  }

  /**
   * Crawls the sources that are due, one after another, while this process holds the lease;
   * returns how many it crawled (0 when another instance crawls).
   */
  tick(): Promise<number> {
    return (this.ticking ??= this.crawlDue().finally(() => (this.ticking = null)));
  }

  private async crawlDue(): Promise<number> {
    const { store, clock } = this.options;
    const leaseMs = this.options.leaseMs ?? 10 * 60_000;
    let crawled = 0;
    if (!(await store.claimDocCrawl(this.holder, leaseMs, clock.now()))) return 0;
    try {
      for (;;) {
        const due = (await store.listDocSources()).find((s) => s.nextCrawlAt <= clock.now());
        if (!due || this.stop.signal.aborted) break;
        await this.crawl(due);
        crawled++;
        // The lease is renewed between sources; one lost meanwhile ends the turn.
        if (!(await store.claimDocCrawl(this.holder, leaseMs, clock.now()))) return crawled;
      }
      await this.embedMissing();
    } finally {
      await store.releaseDocCrawl(this.holder);
    }
    return crawled;
  }

  /** One source, crawled and applied whole; failures are the run's, never thrown. */
  private async crawl(source: DocSourceRecord) {
    const { store, clock, log } = this.options;
    const startedAt = clock.now();
    const previous = new Map((await store.listDocPages(source.id)).map((page) => [page.url, page]));
    let result: {
      pages: CrawledPage[];
      failures: { url: string; reason: string }[];
      complete: boolean;
      truncated: boolean;
    };
    try {
      if (source.kind === 'folder') {
        if (!this.options.readFolder) throw new Error('this service cannot read folders');
        result = {
          pages: await this.options.readFolder(source.location, source.publicUrl ?? '/docs', previous),
          failures: [],
          complete: true,
          truncated: false,
        };
      } else
        result = await crawlSite(source.location, {
          ...this.options.crawl,
          previous,
          signal: this.stop.signal,
        });
    } catch (error) {
      if (this.stop.signal.aborted) return;
      const reason =
        error instanceof Error && 'code' in error && error.code === 'ENOENT'
          ? 'the folder does not exist'
          : `the source could not be read (${error instanceof Error ? error.message : 'unknown error'})`;
      result = { pages: [], failures: [{ url: source.location, reason }], complete: false, truncated: false };
    }
    const finishedAt = clock.now();
    const run = await store.applyDocCrawl({
      sourceId: source.id,
      startedAt,
      finishedAt,
      nextCrawlAt: finishedAt + (this.options.recrawlEveryMs ?? 86_400_000),
      pages: result.pages,
      complete: result.complete,
      truncated: result.truncated,
      failures: result.failures,
    });
    log?.({
      level: run.failures.length ? 'warn' : 'info',
      msg: 'docs_crawled',
      source: source.id,
      pages_new: run.pagesNew,
      pages_changed: run.pagesChanged,
      pages_unchanged: run.pagesUnchanged,
      pages_removed: run.pagesRemoved,
      failures: run.failures.length,
      ms: finishedAt - startedAt,
    });
  }

  /** Embeds the sections that have no vector from the configured model yet. */
  private async embedMissing() {
    const { embedder, store, log } = this.options;
    if (!embedder) return;
    const missing = (await store.listDocSections()).filter((s) => s.embeddingModel !== embedder.model);
    for (let i = 0; i < missing.length && !this.stop.signal.aborted; i += 256) {
      const batch = missing.slice(i, i + 256);
      try {
        const vectors = await embedder.embed(batch.map(embeddingText), this.stop.signal);
        await store.putEmbeddings(
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

  /** The index as of the store's version, rebuilt (without blocking searches) when it moved. */
  private async current(): Promise<DocsSearch | null> {
    const now = this.options.clock.now();
    if (now - this.checkedAt >= (this.options.freshnessMs ?? 5_000)) {
      this.checkedAt = now;
      this.loading ??= this.reload().finally(() => (this.loading = null));
      // The first search waits for the first index; later ones use the one they have.
      if (!this.index) await this.loading;
    }
    return this.index?.search ?? null;
  }

  private async reload() {
    const { store, embedder, log } = this.options;
    const version = await store.docsVersion();
    if (this.index?.version === version) return;
    const rows = await store.listDocSections();
    const sections: Section[] = rows.map(({ url, pageUrl, title, headings, text }) => ({
      url,
      pageUrl,
      title,
      headings,
      text,
    }));
    const lexical = await SectionIndex.build(sections);
    const vectors = rows.map((row) =>
      embedder && row.embeddingModel === embedder.model && row.embedding
        ? Float32Array.from(row.embedding)
        : null,
    );
    const search: DocsSearch =
      embedder && vectors.some(Boolean)
        ? new HybridDocs(lexical, sections, vectors, embedder, (error) =>
            log?.({
              level: 'warn',
              msg: 'docs_question_embedding_failed',
              error: error instanceof Error ? error.message : 'unknown',
            }),
          )
        : { search: async (question, limit) => lexical.search(question, limit) };
    this.index = { version, search, size: sections.length };
  }

  async size(): Promise<number> {
    await this.current();
    return this.index?.size ?? 0;
  }

  /** The sections that answer `question`, best first, through the same index every answer uses. */
  async search(question: string, limit = 20): Promise<Hit[]> {
    const index = await this.current();
    return index ? index.search(question, limit) : [];
  }

  /** Crawls what is due now and every `everyMs` (default a minute); returns a stop function. */
  start(everyMs = 60_000): () => void {
    const run = () =>
      void this.tick().catch((error) =>
        this.options.log?.({
          level: 'error',
          msg: 'docs_tick_failed',
          error: error instanceof Error ? error.name : 'unknown',
        }),
      );
    run();
    const timer = setInterval(run, everyMs);
    (timer as { unref?: () => void }).unref?.();
    return () => clearInterval(timer);
  }

  /** Stops a crawl in flight (what it read is not applied) and lets the lease go. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.ticking?.catch(() => {});
  }
}
