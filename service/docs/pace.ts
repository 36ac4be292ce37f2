/**
 * How fast a crawl may ask one site for pages. A site that answers 429 (or 503) is asking the
 * crawler to slow down, and a docs host under a rate limit (a CDN, Read the Docs, a small VPS)
 * answers every request of a burst that way: retrying each alone, four at a time, turned its
 * pages into failures. So one pace is shared by every request of a crawl: starts spaced by a gap
 * that doubles at each refusal (once per gap, so four refusals in flight together count once)
 * and shrinks again as answers come, a pause until a `Retry-After`, and robots.txt's
 * `Crawl-delay` as the least gap.
 */

/** The longest gap between two requests, and the longest pause a `Retry-After` or `Crawl-delay` gets. */
const MAX_GAP_MS = 10_000;

export class Pace {
  /** Least time between two requests' starts. */
  private gapMs = 0;
  /** The site's own least gap (robots.txt's `Crawl-delay`). */
  private floorMs = 0;
  /** When the last request started. */
  private lastStart = Number.NEGATIVE_INFINITY;
  /** No request starts before this (a `Retry-After`). */
  private pausedUntil = 0;
  private slowedAt = Number.NEGATIVE_INFINITY;
  /** Turns are taken in order: each waits for the one before it to be placed. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly now: () => number = Date.now) {}

  /** Honours a `Crawl-delay` of robots.txt: at least this long between requests, up to MAX_GAP_MS. */
  atLeast(ms: number) {
    this.floorMs = Math.min(Math.max(ms, 0), MAX_GAP_MS);
    this.gapMs = Math.max(this.gapMs, this.floorMs);
  }

  /** Resolves when this request may start; rejects when `signal` aborts meanwhile. */
  turn(signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(async () => {
      const wait = Math.max(this.pausedUntil, this.lastStart + this.gapMs) - this.now();
      if (wait > 0) await sleep(wait, signal);
      this.lastStart = this.now();
    });
    // A turn that was aborted must not hold up the ones after it.
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** The site refused for load: slow down (once per gap) and pause until `retryAfterMs`, if given. */
  refused(retryAfterMs: number | null, leastMs: number) {
    const now = this.now();
    if (now - this.slowedAt >= this.gapMs) {
      this.gapMs = Math.min(Math.max(this.gapMs * 2, leastMs), MAX_GAP_MS);
      this.slowedAt = now;
    }
    const pause = Math.min(retryAfterMs ?? this.gapMs, MAX_GAP_MS);
    this.pausedUntil = Math.max(this.pausedUntil, now + pause);
  }

  /** The site answered: the gap shrinks back toward the site's own, and to none under a millisecond. */
  answered() {
    const gap = this.gapMs * 0.9;
    this.gapMs = gap < Math.max(this.floorMs, 1) ? this.floorMs : gap;
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
