import { isoMicros } from '../../kernel/clock.js';
import type { ConsoleAuditPage } from '../../../contract/console.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { badRequest } from '../../http/errors.js';
import { json } from '../../http/responses.js';
import { parseDay } from '../activity.js';
import { requireAdmin } from './auth.js';

/** The audit log, and the admin reading it (accounts). */
type AuditContext = ServiceContext<'accounts'>;

const DAY = 86_400_000;
const PAGE = 50;

/**
 * GET /console/api/audit?before&project_id&actor&action&start&end: who did what, when, newest
 * first, 50 at a time (decision 719). `start` and `end` are UTC days, both included, as the
 * Conversations page's are; `actor` and `action` match whole.
 */
export async function listAudit(ctx: AuditContext, request: Request, _info: RequestInfo): Promise<Response> {
  // Addresses and everyone's doings: the admins' to read (decision 718).
  await requireAdmin(ctx, request, 'admin');
  const params = new URL(request.url).searchParams;
  const before = params.get('before') === null ? undefined : Number(params.get('before'));
  // An id the database's bigint holds: 1e21 or twenty nines failed the statement, a 500.
  if (before !== undefined && !Number.isSafeInteger(before)) throw badRequest('before must be an entry id.');
  const end = parseDay(params.get('end'), 'end');
  const text = (name: string) => {
    const value = params.get(name)?.trim();
    if (value && value.length > 200) throw badRequest(`${name} is longer than 200 characters.`);
    return value || undefined;
  };
  const entries = await ctx.storage.accounts.listAudit({
    limit: PAGE + 1,
    before,
    projectId: params.get('project_id') || undefined,
    actor: text('actor')?.toLowerCase(),
    action: text('action'),
    from: parseDay(params.get('start'), 'start'),
    to: end === undefined ? undefined : end + DAY,
  });
  const page = entries.slice(0, PAGE);
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
    next_before: entries.length > PAGE ? page[page.length - 1].id : null,
  } satisfies ConsoleAuditPage);
}
