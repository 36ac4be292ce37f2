import type { ConsoleActivity } from '../../../contract/console.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { json } from '../../http/responses.js';
import {
  CONSOLE_COUNTS,
  type ConsoleCounts,
  noConsoleCounts,
  sumConsoleCounts,
} from '../../../contract/activity.js';
import { periodOf, rollupFreshness } from '../activity.js';
import { audit } from './auth.js';
import { adminProject } from './projects.js';

/** The rollup's summaries; the project (directory) and the admin (accounts). */
type ConsoleActivityContext = ServiceContext<'activity' | 'directory' | 'accounts'>;

const DAY = 86_400_000;
const day = (dayNumber: number) => new Date(dayNumber * DAY).toISOString().slice(0, 10);
/** The counts alone, out of a summary's row (which also names its day or integration). */
const countsOf = (row: ConsoleCounts) => sumConsoleCounts(noConsoleCounts(), row);

/** The days as a CSV file, one row a day: the query API's columns, then the failed answers. */
function csv(name: string, byDay: ({ date: string } & ConsoleCounts)[]) {
  const lines = [
    ['date', ...CONSOLE_COUNTS].join(','),
    ...byDay.map((row) => [row.date, ...CONSOLE_COUNTS.map((c) => row[c])].join(',')),
  ];
  return new Response(`${lines.join('\r\n')}\r\n`, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${name.replace(/[^\w.-]/g, '_')}.csv"`,
      'Cache-Control': 'no-store',
    },
  });
}

/**
 * GET /console/api/projects/{id}/activity/?start&end&integration_id[&format=csv]: the query
 * API's activity (same rollup, same counting rules), with model tokens, aggregated in the
 * database so a year of a busy project answers in milliseconds. Every day of the period is
 * listed, zeros included, so a chart and a spreadsheet get the same rows.
 */
export async function consoleActivity(
  ctx: ConsoleActivityContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  const params = new URL(request.url).searchParams;
  const { start, end } = periodOf(params, ctx.clock.now());
  const integrationId = params.get('integration_id') || undefined;

  const freshness = await rollupFreshness(ctx);
  const summary = await ctx.storage.activity.activitySummary(
    project.id,
    start / DAY,
    end / DAY,
    integrationId,
  );
  const known = new Map(summary.days.map((d) => [d.day, d]));
  const byDay = [];
  for (let d = start / DAY; d <= end / DAY; d++)
    byDay.push({ date: day(d), ...countsOf(known.get(d) ?? noConsoleCounts()) });

  if (params.get('format') === 'csv') {
    await audit(ctx, info, admin.username, 'activity.export', project.id, integrationId ?? null, {
      start: day(start / DAY),
      end: day(end / DAY),
    });
    return csv(
      `activity-${project.id}-${day(start / DAY)}-${day(end / DAY)}${integrationId ? `-${integrationId}` : ''}`,
      byDay,
    );
  }
  return json({
    period: { start: day(start / DAY), end: day(end / DAY) },
    integration_id: integrationId ?? null,
    totals: { ...countsOf(summary.totals), unique_owners: summary.totals.uniqueOwners },
    by_day: byDay,
    by_integration: summary.byIntegration.map((i) => ({ integration_id: i.integrationId, ...countsOf(i) })),
    freshness,
  } satisfies ConsoleActivity);
}
