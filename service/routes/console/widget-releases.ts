import type { ConsoleWidgetReleases } from '../../../contract/console.js';
import { isoMicros, isoMicrosOrNull } from '../../kernel/clock.js';
import { json } from '../../http/responses.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { requireAdmin } from './auth.js';

/**
 * GET /console/api/widget-releases: the release this service serves and those it keeps for
 * pinned pages, with when a page last loaded each (decision 742); any signed-in account.
 */
export async function widgetReleases(
  ctx: ServiceContext<'accounts' | 'widgets'>,
  request: Request,
  _info: RequestInfo,
): Promise<Response> {
  await requireAdmin(ctx, request);
  const kept = await ctx.storage.widgets.listWidgetReleases();
  return json({
    serving: ctx.widget?.version ?? null,
    releases: kept.map((r) => ({
      version: r.version,
      stored_at: isoMicros(r.storedAt),
      loaded_at: isoMicrosOrNull(r.loadedAt),
      bytes: r.bytes,
    })),
  } satisfies ConsoleWidgetReleases);
}
