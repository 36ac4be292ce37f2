import type { ConsoleDocSource } from '../../contract/console.js';

/** How long a page follows a crawl before it leaves the operator to reload: a big site's first crawl. */
const LIMIT_MS = 10 * 60_000;

/**
 * Follows the crawls an operator started (a source added, re-crawled, its exclusions changed),
 * and those the page finds under way (the schedule's, another operator's, on any instance:
 * decision 435), until the service stores their run, so the Sources page shows how far a crawl
 * has got and what it found without a reload: the page's sources are read again every second for
 * 30 s, then every 5 s, for ten minutes at most without a crawl under way. A crawl is over when
 * its source's last run is another than the one before it was asked for.
 */
export class CrawlFollower {
  /** The sources followed, with the start of their last run when the crawl was asked for. */
  private readonly waiting = new Map<string, string | null>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private since = 0;

  constructor(
    private readonly reload: () => Promise<void>,
    private readonly limitMs = LIMIT_MS,
  ) {}

  /** Follows the run after `before` (the source's last run's start, or null when it had none). */
  follow(id: string, before: string | null): void {
    this.waiting.set(id, before);
    this.since = Date.now();
    this.schedule(1_000);
  }

  crawling(id: string): boolean {
    return this.waiting.has(id);
  }

  /**
   * The followed sources whose new run is in `sources`, no longer followed; gone ones are dropped,
   * and those with a crawl under way followed from now on.
   */
  settle(sources: readonly ConsoleDocSource[]): ConsoleDocSource[] {
    const done: ConsoleDocSource[] = [];
    for (const [id, before] of this.waiting) {
      const source = sources.find((s) => s.id === id);
      if (source && (!source.last_run || source.last_run.started_at === before)) continue;
      this.waiting.delete(id);
      if (source) done.push(source);
    }
    for (const source of sources)
      if (source.crawl && !this.waiting.has(source.id) && !done.includes(source))
        this.follow(source.id, source.last_run?.started_at ?? null);
    return done;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.clear();
  }

  private schedule(ms: number) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick() {
    const elapsed = Date.now() - this.since;
    // Past the limit, one last read shows the sources without "Waiting to start…".
    if (elapsed > this.limitMs) this.stop();
    await this.reload();
    if (this.waiting.size) this.schedule(elapsed < 30_000 ? 1_000 : 5_000);
  }
}
