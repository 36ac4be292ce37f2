/**
 * How the console writes times, numbers, a crawl's progress and an audit entry's detail: the
 * reader's locale, UTC days for activity.
 */
import type { ActivityFreshness } from '../../contract/activity.js';
import type { ConsoleCrawlProgress, ConsoleCrawlRun } from '../../contract/console.js';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const number = new Intl.NumberFormat();
const compactNumber = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

export const when = (iso: string | null, never = 'Never') => (iso ? dateTime.format(new Date(iso)) : never);
export const count = (value: number) => number.format(value);
const units = (unit: string) =>
  new Intl.NumberFormat(undefined, { style: 'unit', unit, unitDisplay: 'short' });
const [seconds, minutes, hours] = ['second', 'minute', 'hour'].map(units);

/** How long something has run: "12 sec", "3 min", "1 hr 5 min" (whole units, rounded down). */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return seconds.format(s);
  if (s < 3600) return minutes.format(Math.floor(s / 60));
  return `${hours.format(Math.floor(s / 3600))} ${minutes.format(Math.floor(s / 60) % 60)}`;
}

/**
 * How fresh the activity figures are. Before the service's first count (its first minute) there
 * is no time to give, and "as of Never" read as a fault.
 */
export function freshness({ as_of, max_staleness_seconds }: ActivityFreshness) {
  return as_of
    ? `Figures may be up to ${max_staleness_seconds} s old (as of ${when(as_of)}).`
    : `Figures are counted every ${max_staleness_seconds} s; the first count has not run yet.`;
}

/** `12K` for an axis tick, where the full figure would not fit. */
export const compact = (value: number) => compactNumber.format(value);

/** A past time as "3 min ago" / "2 days ago" (the absolute time belongs in a title). */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return 'Never';
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ] as const) {
    if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  }
  return rtf.format(seconds, 'second');
}

/** `YYYY-MM-DD` of a UTC day `offset` days from today. */
export const utcDay = (offset = 0, now = Date.now()) =>
  new Date(now + offset * 86_400_000).toISOString().slice(0, 10);

const DOING = {
  robots: 'Reading robots.txt',
  sitemap: 'Reading the sitemap',
  pages: '',
  saving: 'Saving',
} as const;

/**
 * How far a crawl under way has got (decision 435): "340 pages read, 2 failed, for 12 sec",
 * "Reading the sitemap, for 2 sec", and "(nothing new for 2 min)" when no page has come for a
 * minute. Read where it stands, not spoken: the Sources page's status says when a crawl it
 * follows ends.
 */
export const crawlProgress = (crawl: ConsoleCrawlProgress) => {
  const read = `${count(crawl.pages_read)} ${crawl.pages_read === 1 ? 'page' : 'pages'} read`;
  const failed = crawl.pages_failed ? `, ${count(crawl.pages_failed)} failed` : '';
  const counted =
    crawl.phase === 'pages' || crawl.phase === 'saving' || crawl.pages_read || crawl.pages_failed;
  const doing = [DOING[crawl.phase], counted ? `${read}${failed}` : ''].filter(Boolean).join(': ');
  // A page comes within a minute at the slowest: a request gives up after 15 s and is retried
  // once, and the crawl's pace waits 10 s at most between requests (decision 441).
  const stuck = crawl.phase === 'pages' && crawl.quiet_ms >= 60_000;
  return `${doing}, for ${duration(crawl.elapsed_ms)}${stuck ? ` (nothing new for ${duration(crawl.quiet_ms)})` : ''}`;
};

/**
 * What the last crawl did; the pages the sitemap's lastmod spared a request, and a lie it was
 * caught in, which has the next crawl ask for every page (decisions 752, 785), only when there are.
 */
export const crawlRun = (run: ConsoleCrawlRun) =>
  `${count(run.pages_new)} new, ${count(run.pages_changed)} changed, ${count(run.pages_unchanged)} unchanged` +
  (run.pages_spared
    ? ` (${count(run.pages_spared)} not asked for: the sitemap's lastmod vouched for them)`
    : '') +
  `, ${count(run.pages_removed)} removed, ${count(run.pages_excluded)} skipped (excluded)` +
  (run.pages_disallowed ? `, ${count(run.pages_disallowed)} kept out by robots.txt` : '') +
  (run.complete ? '' : ' (incomplete: pages kept)') +
  (run.truncated ? ' (stopped at the cap on pages or text)' : '') +
  (run.lastmod_lie_at
    ? `. The sitemap's lastmod was caught lying (${when(run.lastmod_lie_at)}): the next crawl asks for every page.`
    : '');

/**
 * An audit entry's detail in words: `name: Docs site · budget: sessions 500, answers 2000`. A
 * list is joined (an empty one is "(none)"), an object is its fields in order: never
 * "[object Object]".
 */
export function auditDetail(detail: Record<string, unknown> | null): string {
  const value = (v: unknown): string => {
    if (Array.isArray(v)) return v.map(value).join(', ') || '(none)';
    if (v && typeof v === 'object')
      return Object.entries(v)
        .map(([k, inner]) => `${k.replace(/_/g, ' ')} ${value(inner)}`)
        .join(', ');
    return String(v);
  };
  return Object.entries(detail ?? {})
    .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${value(v)}`)
    .join(' · ');
}

/** What an audited action means, in words: the Audit log's "What" (a test checks every action has them). */
export const AUDIT_ACTIONS: Record<string, string> = {
  sign_in: 'Signed in',
  'sign_in.failed': 'Failed sign-in',
  sign_out: 'Signed out',
  'admin.add': 'Added an admin',
  'admin.remove': 'Removed an admin',
  'admin.role': 'Changed the role of',
  'admin.password': 'Set a new password for',
  'admin.password.failed': 'Gave a wrong current password for',
  'sign_out.others': 'Signed out their other sessions',
  'project.create': 'Created a project',
  'project.rename': 'Renamed a project',
  'project.delete': 'Deleted a project',
  'integration.create': 'Added an integration',
  'integration.update': 'Changed an integration',
  'integration.delete': 'Deleted an integration',
  'integration.files': 'Changed the files visitors may attach to',
  'key.create': 'Created an API key',
  'key.rotate': 'Rotated an API key',
  'key.revoke': 'Revoked an API key',
  'docs.add': 'Added a docs source',
  'docs.remove': 'Removed a docs source',
  'docs.crawl': 'Asked for a re-crawl',
  'docs.exclude': 'Changed the paths a docs source excludes',
  'docs.synonyms': 'Changed the docs synonyms',
  'key.end_sessions': 'Ended the sessions of an API key',
  'conversation.read': 'Read a conversation',
  'conversation.delete': 'Deleted a conversation',
  'owner.erase': "Erased a visitor's data",
  'conversation.search': 'Searched conversations',
  'conversation.export': 'Exported conversations',
  'activity.export': 'Exported activity as CSV',
  'file.download': "Downloaded a visitor's file from",
  'webhook.create': 'Added a webhook',
  'webhook.delete': 'Deleted a webhook',
  'webhook.test': 'Sent a test to a webhook',
};
