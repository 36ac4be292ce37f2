import { isoMicros } from '../../kernel/clock.js';
import type { ConsoleAuditPage } from '../../../contract/console.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { badRequest } from '../../http/errors.js';
import { json } from '../../http/responses.js';
import { requireAdmin } from './auth.js';

/** The audit log, and the admin reading it (accounts). */
type AuditContext = ServiceContext<'accounts'>;

/** GET /console/api/audit/?before&project_id: who did what, when, newest first. */
export async function listAudit(ctx: AuditContext, request: Request, _info: RequestInfo): Promise<Response> {
  await requireAdmin(ctx, request);
  const params = new URL(request.url).searchParams;
  const before = params.get('before') === null ? undefined : Number(params.get('before'));
  if (before !== undefined && !Number.isInteger(before)) throw badRequest('before must be an entry id.');
  const limit = 50;
  const entries = await ctx.storage.accounts.listAudit({
    limit: limit + 1,
    before,
    projectId: params.get('project_id') || undefined,
  });
  const page = entries.slice(0, limit);
  return json({
    entries: page.map((e) => ({
      id: e.id,
      at: isoMicros(e.at),
      actor: e.actor,
      action: e.action,
      project_id: e.projectId,
      target: e.target,
      detail: e.detail,
      address: e.address,
    })),
    next_before: entries.length > limit ? page[page.length - 1].id : null,
  } satisfies ConsoleAuditPage);
}
