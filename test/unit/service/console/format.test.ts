/** The console's words for a crawl under way (decision 435) and for how long something has run. */
import { describe, expect, it } from 'vitest';
import type { ConsoleCrawlProgress, ConsoleCrawlRun } from '../../../../contract/console.js';
import { crawlProgress, crawlRun, duration, freshness, when } from '../../../../service/console/format.js';

const crawl = (phase: ConsoleCrawlProgress['phase'], read: number, failed: number, ms: number, quiet = 0) =>
  crawlProgress({
    phase,
    pages_read: read,
    pages_failed: failed,
    started_at: '2026-11-28T10:00:00.000000Z',
    elapsed_ms: ms,
    quiet_ms: quiet,
  });

describe("the console's words for a crawl under way", () => {
  it('says what it reads, the pages read and failed with plurals right, and for how long', () => {
    expect(crawl('robots', 0, 0, 400)).toBe('Reading robots.txt, for 0 sec');
    expect(crawl('sitemap', 0, 0, 2_000)).toBe('Reading the sitemap, for 2 sec');
    expect(crawl('pages', 0, 0, 2_500)).toBe('0 pages read, for 2 sec');
    expect(crawl('pages', 1, 0, 3_000)).toBe('1 page read, for 3 sec');
    expect(crawl('pages', 340, 2, 12_000)).toBe('340 pages read, 2 failed, for 12 sec');
    expect(crawl('pages', 1_200, 1, 185_000)).toBe('1,200 pages read, 1 failed, for 3 min');
    expect(crawl('saving', 1_200, 0, 200_000)).toBe('Saving: 1,200 pages read, for 3 min');
    // No page for a minute or more while reading pages: said, as a crawl that may be stuck.
    expect(crawl('pages', 340, 2, 600_000, 59_999)).toBe('340 pages read, 2 failed, for 10 min');
    expect(crawl('pages', 340, 2, 600_000, 125_000)).toBe(
      '340 pages read, 2 failed, for 10 min (nothing new for 2 min)',
    );
    // Saving writes once and then works: its quiet is no sign of trouble.
    expect(crawl('saving', 340, 2, 600_000, 125_000)).toBe('Saving: 340 pages read, 2 failed, for 10 min');
    // A sitemap that failed before any page: the failure counts already.
    expect(crawl('sitemap', 0, 1, 1_000)).toBe('Reading the sitemap: 0 pages read, 1 failed, for 1 sec');
  });

  it('writes a duration in whole seconds, minutes, then hours and minutes', () => {
    expect(duration(-5)).toBe('0 sec');
    expect(duration(59_999)).toBe('59 sec');
    expect(duration(60_000)).toBe('1 min');
    expect(duration(3_599_999)).toBe('59 min');
    expect(duration(3_600_000 + 5 * 60_000)).toBe('1 hr 5 min');
  });
});

describe("the console's words for a source's last crawl", () => {
  const run = (fields: Partial<ConsoleCrawlRun>) =>
    crawlRun({
      started_at: '2026-11-28T10:00:00.000000Z',
      finished_at: '2026-11-28T10:01:00.000000Z',
      complete: true,
      truncated: false,
      pages_new: 1,
      pages_changed: 2,
      pages_unchanged: 12,
      pages_removed: 0,
      pages_excluded: 0,
      pages_disallowed: 0,
      pages_spared: 0,
      lastmod_lie_at: null,
      failures: [],
      failure_count: 0,
      ...fields,
    });

  it("says how many unchanged pages the sitemap's lastmod spared, and a lie it was caught in, only when there are (decision 785)", () => {
    expect(run({})).toBe('1 new, 2 changed, 12 unchanged, 0 removed, 0 skipped (excluded)');
    expect(run({ pages_spared: 10, pages_disallowed: 1 })).toBe(
      "1 new, 2 changed, 12 unchanged (10 not asked for: the sitemap's lastmod vouched for them), 0 removed, 0 skipped (excluded), 1 kept out by robots.txt",
    );
    const at = '2026-11-28T10:00:30.000000Z';
    expect(run({ lastmod_lie_at: at, complete: false })).toBe(
      `1 new, 2 changed, 12 unchanged, 0 removed, 0 skipped (excluded) (incomplete: pages kept). The sitemap's lastmod was caught lying (${when(at)}): the next crawl asks for every page.`,
    );
  });
});

describe("the console's words for how fresh the activity figures are", () => {
  it('gives the time of the last count, and before the first one says so instead of "as of Never"', () => {
    expect(freshness({ as_of: '2026-11-28T10:00:00.000000Z', max_staleness_seconds: 60 })).toMatch(
      /^Figures may be up to 60 s old \(as of .*2026.*\)\.$/,
    );
    expect(freshness({ as_of: null, max_staleness_seconds: 60 })).toBe(
      'Figures are counted every 60 s; the first count has not run yet.',
    );
  });
});
