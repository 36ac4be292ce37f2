import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConsoleDocSource } from '../../../../contract/console.js';
import { CrawlFollower } from '../../../../service/console/crawl-follower.js';

const source = (
  id: string,
  started: string | null,
  crawl: ConsoleDocSource['crawl'] = null,
): ConsoleDocSource => ({
  id,
  location: `https://${id}.test/`,
  kind: 'site',
  public_url: null,
  exclude: [],
  created_at: '2026-11-28T10:00:00.000000Z',
  last_crawl_at: started,
  next_crawl_at: '2026-11-29T10:00:00.000000Z',
  pages: 3,
  sections: 9,
  suggested_exclusions: [],
  crawl,
  last_run: started
    ? {
        started_at: started,
        finished_at: started,
        complete: true,
        truncated: false,
        pages_new: 3,
        pages_changed: 0,
        pages_unchanged: 0,
        pages_removed: 0,
        pages_excluded: 0,
        pages_disallowed: 0,
        pages_spared: 0,
        lastmod_lie_at: null,
        failures: [],
        failure_count: 0,
      }
    : null,
});

afterEach(() => void vi.useRealTimers());

describe("the console's crawl follower", () => {
  it('is done with a source when another run than the one before is stored, or when the source is gone', () => {
    const follower = new CrawlFollower(async () => {});
    follower.follow('a', '2026-11-28T10:00:00.000000Z');
    follower.follow('b', null);
    follower.follow('c', null);
    // Nothing new yet: a's old run, b with no run.
    expect(
      follower.settle([source('a', '2026-11-28T10:00:00.000000Z'), source('b', null), source('c', null)]),
    ).toEqual([]);
    expect(['a', 'b', 'c'].map((id) => follower.crawling(id))).toEqual([true, true, true]);
    // a's new run and b's first are in; c was removed meanwhile.
    const done = follower.settle([
      source('a', '2026-11-28T11:00:00.000000Z'),
      source('b', '2026-11-28T11:00:01.000000Z'),
    ]);
    expect(done.map((s) => s.id)).toEqual(['a', 'b']);
    expect(['a', 'b', 'c'].map((id) => follower.crawling(id))).toEqual([false, false, false]);
    follower.stop();
  });

  it('follows a crawl it finds under way, one nobody started on this page, until its run is in', async () => {
    vi.useFakeTimers();
    let sources = [
      source('a', '2026-11-28T10:00:00.000000Z', {
        phase: 'pages',
        pages_read: 340,
        pages_failed: 2,
        started_at: '2026-11-28T11:00:00.000000Z',
        elapsed_ms: 12_000,
        quiet_ms: 0,
      }),
      source('b', null),
    ];
    let reloads = 0;
    const done: string[] = [];
    const follower = new CrawlFollower(async () => {
      reloads++;
      done.push(...follower.settle(sources).map((s) => s.id));
    });
    // The page's first read: nothing followed yet, a crawl under way found.
    expect(follower.settle(sources)).toEqual([]);
    expect([follower.crawling('a'), follower.crawling('b')]).toEqual([true, false]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reloads).toBe(1);
    // Its run is in (and its progress gone): said once, and no more reads.
    sources = [source('a', '2026-11-28T11:00:00.000000Z'), source('b', null)];
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done).toEqual(['a']);
    expect(follower.crawling('a')).toBe(false);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(reloads).toBe(2);
  });

  it('reads the sources every second for 30 s, then every 5 s, stops when done or after its limit', async () => {
    vi.useFakeTimers();
    let reloads = 0;
    const follower = new CrawlFollower(async () => void reloads++, 60_000);
    follower.follow('a', null);
    await vi.advanceTimersByTimeAsync(999);
    expect(reloads).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(reloads).toBe(1);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(reloads).toBe(30);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(reloads).toBe(32);
    // Past the limit the page stops asking, and no longer says it is crawling.
    await vi.advanceTimersByTimeAsync(60_000);
    const atLimit = reloads;
    expect(follower.crawling('a')).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reloads).toBe(atLimit);

    // Done: the next read settles it and no read follows.
    let sources = [source('b', null)];
    const done: string[] = [];
    const settling = new CrawlFollower(async () => {
      reloads++;
      done.push(...settling.settle(sources).map((s) => s.id));
    });
    settling.follow('b', null);
    await vi.advanceTimersByTimeAsync(1_000);
    sources = [source('b', '2026-11-28T11:00:00.000000Z')];
    await vi.advanceTimersByTimeAsync(1_000);
    expect(done).toEqual(['b']);
    const after = reloads;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(reloads).toBe(after);
  });
});
