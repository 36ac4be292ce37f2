import { isRecord, readJsonBody } from '../../http/body.js';
import {
  PUBLIC_NEEDS_ORIGIN,
  type ConsoleIntegration,
  type ConsoleProject,
} from '../../../contract/console.js';
import { isoMicros, utcDay } from '../../kernel/clock.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { HttpError, badRequest, notFound } from '../../http/errors.js';
import { normalizeOrigin } from '../../http/origins.js';
import { json, noContent } from '../../http/responses.js';
import { randomSecret } from '../../kernel/secrets.js';
import {
  DEFAULT_DAILY_BUDGET,
  type DailyCounts,
  type IntegrationRecord,
  type ProjectRecord,
} from '../../storage/console-types.js';
import { type Access, type Admin, audit, requireAdmin } from './auth.js';
import { refusedOrigins } from '../refused-origins.js';
import type { StoredRefusal } from '../../storage/types.js';

/** Projects and integrations in the directory; the admin and the audit log in the accounts; today's use of budgets (gate). */
type ProjectsContext = ServiceContext<'directory' | 'accounts' | 'gate'>;

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_NAME = 80;
const MAX_ORIGINS = 100;
/** A daily budget's most: a million answers a day is past any site this service is for. */
const MAX_BUDGET = 1_000_000;

const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');

function name(value: unknown, what: string): string {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
  if (text.length < 1 || text.length > MAX_NAME)
    throw badRequest(`${what} must be 1 to ${MAX_NAME} characters.`);
  return text;
}

function newId(value: unknown, prefix: string): string {
  if (value === undefined || value === null || value === '') return `${prefix}_${randomHex(8)}`;
  if (typeof value !== 'string' || !ID.test(value))
    throw badRequest('id may hold letters, digits, _ and - (at most 64).');
  return value;
}

/** One origin per entry, normalised; every bad entry is named, so the admin can fix them all at once. */
function parseOrigins(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((o) => typeof o !== 'string'))
    throw badRequest('allowed_origins must be a list of origins.');
  const entries = (value as string[]).map((o) => o.trim()).filter(Boolean);
  const bad = entries.filter((o) => normalizeOrigin(o) === null);
  if (bad.length)
    throw badRequest(`Not an origin (scheme://host[:port], no path): ${bad.slice(0, 5).join(', ')}.`);
  const origins = [...new Set(entries.map((o) => normalizeOrigin(o)!))];
  if (origins.length > MAX_ORIGINS) throw badRequest(`At most ${MAX_ORIGINS} allowed origins.`);
  return origins;
}

/** A daily budget as the console sends it: whole numbers of sessions and answers. */
function parseBudget(value: unknown): DailyCounts {
  const whole = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_BUDGET;
  if (!isRecord(value) || !whole(value.sessions) || !whole(value.answers))
    throw badRequest(`budget must be {"sessions", "answers"}, each a whole number from 0 to ${MAX_BUDGET}.`);
  return { sessions: value.sessions as number, answers: value.answers as number };
}

const integrationJson = (
  ctx: ServiceContext,
  i: IntegrationRecord,
  today: DailyCounts = { sessions: 0, answers: 0 },
  refused: readonly StoredRefusal[] = [],
): ConsoleIntegration => ({
  id: i.id,
  name: i.name,
  allowed_origins: i.allowedOrigins,
  public: i.public,
  budget: { ...i.budget },
  today: { ...today },
  refused_origins: refusedOrigins(ctx, refused, i.projectId, i.id, i.allowedOrigins),
  origins_at_start: ctx.directory.originsAtStart(i.projectId, i.id),
  created_at: isoMicros(i.createdAt),
});

/** An integration with what its public sessions spent today (UTC). */
async function integrationsJson(ctx: ProjectsContext, projectId: string): Promise<ConsoleIntegration[]> {
  const [integrations, used, refused] = await Promise.all([
    ctx.storage.directory.listIntegrations(projectId),
    ctx.storage.gate.budgetUse(projectId, utcDay(ctx.clock.now())),
    ctx.storage.gate.refusals(projectId),
  ]);
  return integrations.map((i) => integrationJson(ctx, i, used.get(i.id), refused.get(i.id)));
}

async function projectJson(ctx: ProjectsContext, p: ProjectRecord): Promise<ConsoleProject> {
  return {
    id: p.id,
    name: p.name,
    created_at: isoMicros(p.createdAt),
    integrations: await integrationsJson(ctx, p.id),
  };
}

export async function requireConsoleProject(
  ctx: ServiceContext<'directory'>,
  projectId: string,
): Promise<ProjectRecord> {
  const project = await ctx.storage.directory.getProject(projectId);
  if (!project) throw notFound('No such project.');
  return project;
}

/** The project's integration, else 404: an id of another project's is answered as a missing one. */
export async function findIntegration(
  ctx: ServiceContext<'directory'>,
  projectId: string,
  integrationId: string,
): Promise<IntegrationRecord> {
  const found = (await ctx.storage.directory.listIntegrations(projectId)).find((i) => i.id === integrationId);
  if (!found) throw notFound('No such integration.');
  return found;
}

/**
 * What a route on one project checks first: the signed-in admin (so a signed-out caller learns
 * nothing, not even whether the project exists), then the project.
 */
export async function adminProject(
  ctx: ServiceContext<'accounts' | 'directory'>,
  request: Request,
  projectId: string,
  access?: Access,
): Promise<{ admin: Admin; project: ProjectRecord }> {
  const admin = await requireAdmin(ctx, request, access);
  return { admin, project: await requireConsoleProject(ctx, projectId) };
}

async function body(request: Request): Promise<Record<string, unknown>> {
  const value = await readJsonBody(request);
  if (!isRecord(value)) throw badRequest('The body must be a JSON object.');
  return value;
}

export async function listProjects(ctx: ProjectsContext, request: Request): Promise<Response> {
  await requireAdmin(ctx, request);
  return json({
    projects: await Promise.all((await ctx.storage.directory.listProjects()).map((p) => projectJson(ctx, p))),
  });
}

export async function createProject(
  ctx: ProjectsContext,
  request: Request,
  info: RequestInfo,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const input = await body(request);
  const project = {
    id: newId(input.id, 'proj'),
    name: name(input.name, 'The project name'),
    ownerSecret: randomSecret(),
    createdAt: ctx.clock.now(),
  };
  if (!(await ctx.storage.directory.createProject(project)))
    throw new HttpError(409, 'conflict', `A project ${project.id} exists already.`);
  await ctx.directory.invalidate(project.id);
  await audit(ctx, info, admin.username, 'project.create', project.id, project.id, { name: project.name });
  return json(await projectJson(ctx, project), 201);
}

export async function renameProject(
  ctx: ProjectsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const newName = name((await body(request)).name, 'The project name');
  if (!(await ctx.storage.directory.renameProject(projectId, newName))) throw notFound('No such project.');
  await audit(ctx, info, admin.username, 'project.rename', projectId, projectId, { name: newName });
  return json(await projectJson(ctx, await requireConsoleProject(ctx, projectId)));
}

/** DELETE …/projects/{id}/?confirm={id}: the id again, so no stray call deletes a project's history. */
export async function deleteProject(
  ctx: ProjectsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  if (new URL(request.url).searchParams.get('confirm') !== projectId)
    throw badRequest('Confirm with ?confirm= and the project id.');
  if (!(await ctx.storage.directory.deleteProject(projectId))) throw notFound('No such project.');
  await ctx.directory.invalidate(projectId);
  await audit(ctx, info, admin.username, 'project.delete', projectId, projectId);
  return noContent();
}

export async function createIntegration(
  ctx: ProjectsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { admin } = await adminProject(ctx, request, projectId);
  const input = await body(request);
  const integration = {
    projectId,
    id: newId(input.id, 'int'),
    name: name(input.name, 'The integration name'),
    allowedOrigins: input.allowed_origins === undefined ? [] : parseOrigins(input.allowed_origins),
    public: false,
    budget: { ...DEFAULT_DAILY_BUDGET },
    createdAt: ctx.clock.now(),
  };
  if (!(await ctx.storage.directory.createIntegration(integration)))
    throw new HttpError(409, 'conflict', `An integration ${integration.id} exists already.`);
  await ctx.directory.invalidate(projectId);
  await audit(ctx, info, admin.username, 'integration.create', projectId, integration.id, {
    name: integration.name,
    allowed_origins: integration.allowedOrigins,
  });
  return json(integrationJson(ctx, integration), 201);
}

export async function updateIntegration(
  ctx: ProjectsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  integrationId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const input = await body(request);
  if (input.public !== undefined && typeof input.public !== 'boolean')
    throw badRequest('public must be true or false.');
  const patch = {
    ...(input.name !== undefined && { name: name(input.name, 'The integration name') }),
    ...(input.allowed_origins !== undefined && { allowedOrigins: parseOrigins(input.allowed_origins) }),
    ...(input.public !== undefined && { public: input.public as boolean }),
    ...(input.budget !== undefined && { budget: parseBudget(input.budget) }),
  };
  const current = await findIntegration(ctx, projectId, integrationId);
  if ((patch.public ?? current.public) && !(patch.allowedOrigins ?? current.allowedOrigins).length)
    throw badRequest(PUBLIC_NEEDS_ORIGIN);
  const updated = await ctx.storage.directory.updateIntegration(projectId, integrationId, patch);
  if (!updated) throw notFound('No such integration.');
  await ctx.directory.invalidate(projectId);
  const { name: _, allowedOrigins, ...rest } = patch;
  await audit(ctx, info, admin.username, 'integration.update', projectId, integrationId, {
    ...(input.name !== undefined && { name: updated.name }),
    ...(allowedOrigins && { allowed_origins: allowedOrigins }),
    ...rest,
  });
  const [used, refused] = await Promise.all([
    ctx.storage.gate.budgetUse(projectId, utcDay(ctx.clock.now())),
    ctx.storage.gate.refusals(projectId),
  ]);
  return json(integrationJson(ctx, updated, used.get(integrationId), refused.get(integrationId)));
}

export async function deleteIntegration(
  ctx: ProjectsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  integrationId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  if (!(await ctx.storage.directory.deleteIntegration(projectId, integrationId)))
    throw notFound('No such integration.');
  await ctx.directory.invalidate(projectId);
  await audit(ctx, info, admin.username, 'integration.delete', projectId, integrationId);
  return noContent();
}
