import {
  type ActivityCounts,
  type ActivityReport,
  noActivity,
  sumActivity,
} from '../../contract/activity.js';
import { queryBase, queryPaths } from '../../contract/paths.js';
import { isoMicros } from '../kernel/clock.js';
import { type RequestInfo, type ServiceContext, requireApiKey, requireProject } from './context.js';
import { HttpError, badRequest } from '../http/errors.js';
import { json } from '../http/responses.js';
import type { ActivityRow } from '../storage/types.js';

/** The rollup only. */
type ActivityContext = ServiceContext<'activity'>;

const DAY = 86_400_000;
const MAX_DAYS = 366;
const SUNSET = 'Wed, 01 Jul 2026 23:59:59 GMT';

export function parseDay(value: string | null, name: string): number | undefined {
  if (value === null) return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const time = match ? Date.UTC(+match[1], +match[2] - 1, +match[3]) : Number.NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value)
    throw badRequest(`${name} must be a date like 2026-11-21.`);
  return time;
}

/** The inclusive UTC days `start` and `end` name (default: the last 30), for the query API and the console alike. */
export function periodOf(params: URLSearchParams, now: number): { start: number; end: number } {
  const end = parseDay(params.get('end'), 'end') ?? Math.floor(now / DAY) * DAY;
  const start = parseDay(params.get('start'), 'start') ?? end - 29 * DAY;
  if (start > end) throw badRequest('start is after end.');
  if ((end - start) / DAY + 1 > MAX_DAYS) throw badRequest(`The period is longer than ${MAX_DAYS} days.`);
  return { start, end };
}

const day = (time: number) => new Date(time).toISOString().slice(0, 10);

function count(rows: ActivityRow[]): ActivityCounts {
  const counts = noActivity();
  for (const r of rows) sumActivity(counts, r);
  // A session counts once per period, wherever it shows up (minted, chatted, reacted).
  counts.sessions = new Set(rows.filter((r) => r.sessions > 0).map((r) => r.sessionToken)).size;
  return counts;
}

/**
 * When the rollup was last rebuilt (the fleet's timer does it, off the request path), and how old
 * it may get, as both activity answers say it. A rollup older than its bound (no timer runs here,
 * or refreshes fail) gets a refresh started, not awaited: the caller is answered from what there
 * is, and told how old it is.
 */
export async function rollupFreshness(ctx: ActivityContext): Promise<ActivityReport['freshness']> {
  const now = ctx.clock.now();
  const asOf = await ctx.storage.activity.activityAsOf(now);
  if (asOf === null || now - asOf > ctx.activityStalenessMs) {
    void ctx.storage.activity.refreshActivityOnce(ctx.activityStalenessMs / 2, now).catch((error) => {
      ctx.log({
        level: 'error',
        msg: 'activity_refresh_failed',
        error: error instanceof Error ? error.name : typeof error,
      });
    });
  }
  return {
    as_of: asOf === null ? null : isoMicros(asOf),
    max_staleness_seconds: ctx.activityStalenessMs / 1000,
  };
}

/**
 * GET /query/v1/projects/{id}/activity/: from the stored events, through the activity rollup
 * (a materialized view in SQL) that the fleet refreshes on a timer, off the request path; the
 * answer states when it was built and how old it may get.
 * `start` and `end` are inclusive UTC days; the default is the last 30 days.
 */
export async function activity(
  ctx: ActivityContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const project = await requireProject(ctx, projectId);
  await requireApiKey(ctx, request, project);
  const params = new URL(request.url).searchParams;
  const { start, end } = periodOf(params, ctx.clock.now());
  const integrationId = params.get('integration_id');

  const freshness = await rollupFreshness(ctx);
  let rows = await ctx.storage.activity.activity(projectId, start / DAY, end / DAY);
  if (integrationId) {
    // A session belongs to an integration once it chatted through it.
    const sessions = new Set(
      rows.filter((r) => r.integrationId === integrationId).map((r) => r.sessionToken),
    );
    rows = rows.filter(
      (r) => r.integrationId === integrationId || (r.integrationId === '' && sessions.has(r.sessionToken)),
    );
  }
  const integrations = [...new Set(rows.map((r) => r.integrationId).filter((id) => id !== ''))].sort();
  const byDay = [];
  for (let time = start; time <= end; time += DAY)
    byDay.push({ date: day(time), ...count(rows.filter((r) => r.day === time / DAY)) });

  return json({
    period: { start: day(start), end: day(end) },
    totals: {
      ...count(rows),
      unique_owners: new Set(rows.map((r) => r.owner).filter((o) => o !== null)).size,
    },
    by_integration: integrations.map((id) => {
      const own = rows.filter((r) => r.integrationId === id);
      const { threads, messages, prompt_tokens, completion_tokens } = count(own);
      return {
        integration_id: id,
        sessions: new Set(own.map((r) => r.sessionToken)).size,
        threads,
        messages,
        prompt_tokens,
        completion_tokens,
      };
    }),
    by_day: byDay,
    freshness,
  } satisfies ActivityReport);
}

/**
 * The removed analytics path: 410 for every caller, pointing at its successor. The link comes
 * from configuration (or is relative), never from the request's Host header.
 */
export function removedAnalyticsActivity(ctx: ServiceContext, projectId: string): Response {
  const successor = `${ctx.publicUrl ?? ''}${ctx.basePath}${queryBase(projectId)}${queryPaths.activity}`;
  return new HttpError(410, 'gone', `This endpoint was removed after 2026-07-01; use ${successor}`, {
    // RFC 9745 structured date: deprecated no later than the moment it was removed.
    Deprecation: `@${Date.parse(SUNSET) / 1000}`,
    Sunset: SUNSET,
    Link: `<${successor}>; rel="successor-version"`,
  }).toResponse();
}
