import type { Clock } from '../kernel/clock.js';
import type { DocSourceRecord, DocsStore } from '../storage/types.js';

/**
 * The fleet's crawl turns (decisions 294, 656): one instance at a time holds the crawl lease and
 * crawls the due sources of every project, up to three at once and never two of one site, so a
 * site slow on purpose or by its `Crawl-delay` holds one crawl, not everyone's.
 */

/** Crawls at once under the lease: each holds its pages until saved, so memory grows with them. */
const CRAWLS_AT_ONCE = 3;

/** What one crawl at a time is kept to: a website's origin (its pace and robots.txt are the host's), or a folder. */
const siteOf = (source: DocSourceRecord) =>
  source.kind === 'site' && URL.canParse(source.location) ? new URL(source.location).origin : source.location;

export interface CrawlTurnsOptions {
  store: DocsStore;
  clock: Clock;
  leaseMs: number;
  /** Aborts when the library closes: no turn starts, a crawl in flight stops. */
  stop: AbortSignal;
  /** Crawls one source (and applies it) unless `signal` aborts first. */
  crawl(source: DocSourceRecord, signal: AbortSignal): Promise<void>;
  /** After a turn's crawls, still holding the lease (the embeddings of what they indexed). */
  after(): Promise<void>;
}

export class CrawlTurns {
  /** This process in the crawl lease. */
  readonly holder = `docs-${crypto.randomUUID()}`;
  private turn: Promise<number> | null = null;
  /** During a turn: starts crawlers up to `CRAWLS_AT_ONCE`, for sources that became due since it began. */
  private wake: (() => void) | null = null;

  constructor(private readonly options: CrawlTurnsOptions) {}

  /**
   * Crawls the due sources while this process holds the lease; returns how many it crawled (0
   * when another instance crawls). During a turn, wakes it for a source made due meanwhile (the
   * console's Add, Re-crawl now) and returns that turn.
   */
  tick(): Promise<number> {
    if (this.options.stop.aborted) return Promise.resolve(0);
    this.wake?.();
    return (this.turn ??= this.crawlDue().finally(() => (this.turn = null)));
  }

  /** Resolves once the turn under way, if any, has ended. */
  async ended(): Promise<void> {
    await this.turn?.catch(() => {});
  }

  private async crawlDue(): Promise<number> {
    const { store, clock } = this.options;
    if (!(await store.claimDocCrawl(this.holder, this.options.leaseMs, clock.now()))) return 0;
    let crawled = 0;
    let crawling = 0;
    const failures: unknown[] = [];
    /** The site of each source being crawled: one crawl at a time per site. */
    const running = new Map<string, string>();
    /** The next due source no crawl of this turn has, taken at once (the others look meanwhile). */
    const take = async () => {
      const sources = await store.listDocSources();
      const sites = new Set(running.values());
      const due = sources.find(
        (s) => s.nextCrawlAt <= clock.now() && !running.has(s.id) && !sites.has(siteOf(s)),
      );
      if (due) running.set(due.id, siteOf(due));
      return due;
    };
    try {
      // A lost lease (another instance took it) aborts every crawl of the turn.
      await this.holding(
        (signal) =>
          new Promise<void>((ended) => {
            const crawler = async () => {
              crawling++;
              try {
                for (let due = await take(); due && !signal.aborted; due = await take())
                  try {
                    await this.options.crawl(due, signal);
                    crawled++;
                  } finally {
                    running.delete(due.id);
                  }
              } catch (error) {
                failures.push(error);
              } finally {
                if (--crawling === 0) {
                  this.wake = null;
                  ended();
                }
              }
            };
            this.wake = () => {
              while (crawling < CRAWLS_AT_ONCE && !signal.aborted) void crawler();
            };
            this.wake();
          }),
      );
      if (failures.length) throw failures[0];
      await this.options.after();
    } finally {
      this.wake = null;
      await store.releaseDocCrawl(this.holder);
    }
    return crawled;
  }

  /**
   * Runs `work` with the crawl lease renewed every third of its length: one site's crawl can
   * outlast the lease (thousands of pages, a slow host, a `Crawl-delay`), and another instance
   * would take it and crawl the same source beside this one. `work`'s signal aborts when the
   * library closes, or when a renewal finds the lease taken (its crawls are then not applied).
   */
  private async holding<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { store, clock, leaseMs } = this.options;
    const lost = new AbortController();
    const renew = setInterval(() => {
      store.claimDocCrawl(this.holder, leaseMs, clock.now()).then(
        (held) => held || lost.abort(),
        // An unreachable store: the next renewal tries again, and the lease holds meanwhile.
        () => {},
      );
    }, leaseMs / 3);
    (renew as { unref?: () => void }).unref?.();
    try {
      return await work(AbortSignal.any([this.options.stop, lost.signal]));
    } finally {
      clearInterval(renew);
    }
  }
}
