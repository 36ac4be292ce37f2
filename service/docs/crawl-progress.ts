import type { Clock } from '../kernel/clock.js';
import type { DocCrawlProgress, DocsStore } from '../storage/types.js';

/** A step of a crawl as the crawler (or the library, for a folder and for saving) tells it. */
export type CrawlStep = Pick<DocCrawlProgress, 'phase' | 'pagesRead' | 'pagesFailed'>;

/**
 * Writes how far one crawl has got to the docs store (decision 435), so every instance of a fleet
 * can show it: a new phase at once, else the latest step at most once per `everyMs`, so a
 * 1,200-page crawl costs about a write a second, not 1,200. One write at a time, in order; one
 * that fails is only logged, since progress is for show and must never fail the crawl. Times are
 * the service's clock; the interval is real time (a test's manual clock does not stand still the
 * writes).
 */
export class CrawlProgressWriter {
  private step: CrawlStep | null = null;
  private written: CrawlStep | null = null;
  private writtenAt = -Infinity;
  private writing: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      store: DocsStore;
      clock: Clock;
      sourceId: string;
      startedAt: number;
      everyMs?: number;
      onError?: (error: unknown) => void;
    },
  ) {}

  /** The crawl's latest step: written now when its phase is new, else within the interval. */
  report(step: CrawlStep): void {
    if (this.stopped) return;
    const phase = step.phase !== this.step?.phase;
    this.step = step;
    if (phase) this.flush();
    else this.schedule();
  }

  /**
   * Ends the writing: waits for the write in flight, then writes `last` (the crawl saving what it
   * read, replaced by its run), or clears the progress when the crawl ends without a run.
   */
  async settle(last: CrawlStep | null): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.writing;
    await (last ? this.put(last) : this.options.store.clearDocCrawlProgress(this.options.sourceId)).catch(
      (error: unknown) => this.options.onError?.(error),
    );
  }

  private schedule() {
    if (this.stopped || this.timer !== undefined || this.writing) return;
    const wait = this.writtenAt + (this.options.everyMs ?? 1_000) - performance.now();
    this.timer = setTimeout(() => this.flush(), Math.max(0, wait));
  }

  /** The latest step written, unless it is written already; a write in flight writes it when it ends. */
  private flush() {
    clearTimeout(this.timer);
    this.timer = undefined;
    const step = this.step;
    if (this.stopped || this.writing || !step || step === this.written) return;
    this.written = step;
    this.writtenAt = performance.now();
    this.writing = this.put(step)
      .catch((error: unknown) => this.options.onError?.(error))
      .finally(() => {
        this.writing = null;
        if (this.step !== this.written) this.schedule();
      });
  }

  private put(step: CrawlStep) {
    const { store, clock, sourceId, startedAt } = this.options;
    return store.putDocCrawlProgress({ sourceId, ...step, startedAt, updatedAt: clock.now() });
  }
}
