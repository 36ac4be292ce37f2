import { type ServiceContext, requireApiKey, requireProject } from './context.js';
import { HttpError, badRequest, json } from './http.js';
import type { ActivityEvent } from './storage.js';

const DAY = 86_400_000;
const MAX_DAYS = 366;
export const SUNSET = 'Wed, 01 Jul 2026 23:59:59 GMT';

function parseDay(value: string | null, name: string): number | undefined {
  if (value === null) return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const time = match ? Date.UTC(+match[1], +match[2] - 1, +match[3]) : Number.NaN;
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value) throw badRequest(`${name} must be a date like 2026-11-21.`);
  return time;
}

const day = (time: number) => new Date(time).toISOString().slice(0, 10);

function count(events: ActivityEvent[]) {
  return {
    sessions: events.filter((e) => e.kind === 'session').length,
    threads: events.filter((e) => e.kind === 'thread').length,
    messages: events.filter((e) => e.kind === 'message').length,
  };
}

/**
 * GET /query/v1/projects/{id}/activity/: computed from what the service really recorded.
 * `start` and `end` are inclusive UTC days; the default is the last 30 days.
 */
export async function activity(ctx: ServiceContext, request: Request, projectId: string): Promise<Response> {
  const project = requireProject(ctx, projectId);
  requireApiKey(request, project);
  const params = new URL(request.url).searchParams;
  const end = parseDay(params.get('end'), 'end') ?? Math.floor(ctx.clock.now() / DAY) * DAY;
  const start = parseDay(params.get('start'), 'start') ?? end - 29 * DAY;
  if (start > end) throw badRequest('start is after end.');
  if ((end - start) / DAY + 1 > MAX_DAYS) throw badRequest(`The period is longer than ${MAX_DAYS} days.`);
  const integrationId = params.get('integration_id');

  let events = await ctx.storage.activity(projectId, start, end + DAY);
  if (integrationId) {
    // A session belongs to an integration once it chatted through it.
    const sessions = new Set(events.filter((e) => e.integrationId === integrationId).map((e) => e.sessionToken));
    events = events.filter((e) => e.integrationId === integrationId || (e.kind === 'session' && sessions.has(e.sessionToken)));
  }

  const integrations = [...new Set(events.map((e) => e.integrationId).filter((id): id is string => id !== null))].sort();
  const byDay = [];
  for (let time = start; time <= end; time += DAY) byDay.push({ date: day(time), ...count(events.filter((e) => e.at >= time && e.at < time + DAY)) });

  return json({
    period: { start: day(start), end: day(end) },
    totals: { ...count(events), unique_owners: new Set(events.map((e) => e.owner).filter((o) => o !== null)).size },
    by_integration: integrations.map((id) => {
      const own = events.filter((e) => e.integrationId === id);
      return { integration_id: id, sessions: new Set(own.map((e) => e.sessionToken)).size, threads: count(own).threads, messages: count(own).messages };
    }),
    by_day: byDay,
  });
}

/** The removed analytics path: 410 for every caller, pointing at its successor. */
export function removedAnalyticsActivity(request: Request, basePath: string, projectId: string): Response {
  const origin = new URL(request.url).origin;
  const successor = `${origin}${basePath}/query/v1/projects/${encodeURIComponent(projectId)}/activity/`;
  return new HttpError(410, 'gone', `This endpoint was removed after 2026-07-01; use ${successor}`, {
    // RFC 9745 structured date: deprecated no later than the moment it was removed.
    Deprecation: `@${Date.parse(SUNSET) / 1000}`,
    Sunset: SUNSET,
    Link: `<${successor}>; rel="successor-version"`,
  }).toResponse();
}
