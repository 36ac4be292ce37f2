import type { RequestInfo, ServiceContext } from '../context.js';
import type { ConsoleInstall } from '../../../contract/console.js';
import { json } from '../../http/responses.js';
import { requireAdmin } from './auth.js';

/** The admin (accounts); the rest is configuration. */
type InstallContext = ServiceContext<'accounts'>;

/** The file the Install snippet loads: the whole widget in one file, which SRI covers entirely. */
export const WIDGET_FILE = 'agent-chat.iife.js';

/**
 * GET /console/api/install/: what the Install page fills into its snippets: the service's
 * base URL and the widget release (exact version, SRI hash) this build of the service serves.
 */
export async function installInfo(
  ctx: InstallContext,
  request: Request,
  _info: RequestInfo,
): Promise<Response> {
  await requireAdmin(ctx, request);
  const widget = ctx.widget;
  const integrity = widget?.sri[WIDGET_FILE] ?? null;
  return json({
    service_url: ctx.publicUrl
      ? `${ctx.publicUrl}${ctx.basePath}`
      : `${new URL(request.url).origin}${ctx.basePath}`,
    widget: widget && integrity ? { version: widget.version, file: WIDGET_FILE, integrity } : null,
  } satisfies ConsoleInstall);
}
