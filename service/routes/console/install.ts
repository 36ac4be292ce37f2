import type { RequestInfo, ServiceContext, WidgetRelease } from '../context.js';
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
  return json({
    service_url: ctx.publicUrl
      ? `${ctx.publicUrl}${ctx.basePath}`
      : `${new URL(request.url).origin}${ctx.basePath}`,
    widget: installWidget(ctx.widget),
  } satisfies ConsoleInstall);
}

/** The files the classic script imports when it needs them: its parts and its locales. */
const IMPORTED_LATER = /^agent-chat\.(part|locale)\./;

/** The release as the Install page pins it: the script's hash, and those of the files it imports. */
export function installWidget(widget: WidgetRelease | null): ConsoleInstall['widget'] {
  const integrity = widget?.sri[WIDGET_FILE];
  if (!widget || !integrity) return null;
  const parts = Object.fromEntries(Object.entries(widget.sri).filter(([name]) => IMPORTED_LATER.test(name)));
  return { version: widget.version, file: WIDGET_FILE, integrity, parts };
}
