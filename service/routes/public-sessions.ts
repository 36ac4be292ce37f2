import { createChallenge, extractParams, verifySolution } from 'altcha-lib/v1';
import type { Payload } from 'altcha-lib/v1/types';
import { hmacBase64url } from '../../contract/owner-key.js';
import { NO_OWNER, OWNER_KEY_HEADER } from '../../contract/paths.js';
import { isRecord, readJsonBody } from '../http/body.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import { checkRate } from '../http/rate-limiter.js';
import { CORS_HEADERS, json } from '../http/responses.js';
import { isoMicros, secondsToNextUtcDay, utcDay } from '../kernel/clock.js';
import type { IntegrationRecord, SessionRecord } from '../storage/types.js';
import { noteRefusedOrigin } from './refused-origins.js';
import { mintSession } from './sessions.js';
import type { ProjectView, RequestInfo, ServiceContext } from './context.js';

/** Budgets and spent challenges (gate), the session (directory), its event (activity), the address limit (rates). */
type PublicContext = ServiceContext<'gate' | 'directory' | 'activity' | 'rates'>;

/** How long a challenge may be solved and used: the contract's most (§2b). */
const CHALLENGE_TTL_MS = 10 * 60_000;

interface PublicTarget {
  view: ProjectView;
  integration: IntegrationRecord;
}

/**
 * The public integration a path names; the same 404 for an unknown project or integration and
 * for one that is not public, so the routes reveal nothing about integrations that are not.
 */
async function requirePublic(ctx: ServiceContext, projectId: string, integrationId: string) {
  const view = await ctx.directory.project(projectId);
  const integration = view?.integrations.get(integrationId);
  if (!view || !integration?.public) throw notFound('No public integration here.');
  return { view, integration } satisfies PublicTarget;
}

/**
 * The calling page's origin, which must be one of the integration's: a public integration has
 * at least one, and a browser always sends Origin on these calls (a script may fake it: the
 * budget and the proof of work are what bound such a caller, docs/service.md).
 */
async function requireListedOrigin(
  ctx: ServiceContext<'gate'>,
  request: Request,
  projectId: string,
  integration: IntegrationRecord,
): Promise<string> {
  // A browser leaves Origin off a same-origin GET (a page served beside the service, or through
  // the same proxy): it says so in Sec-Fetch-Site, and the page's origin is then the service's
  // own as the browser sees it: the public URL's (a TLS proxy hands the request on as http, with
  // a Host of its choosing), else the request's (decision 572).
  const own = ctx.publicUrl ? new URL(ctx.publicUrl).origin : new URL(request.url).origin;
  const origin =
    request.headers.get('Origin') ?? (request.headers.get('Sec-Fetch-Site') === 'same-origin' ? own : null);
  if (origin && integration.allowedOrigins.includes(origin)) return origin;
  // `null` is the origin of a file opened from disk and of a sandboxed frame on any website: no
  // list may hold it, so the fix is where the page is served, not the list (decision 649).
  const detail =
    origin === 'null'
      ? `This page has no origin (a file opened from disk, or a sandboxed frame), so it may not start public sessions of integration ${integration.id}: serve it over http(s) from one of the integration's "Allowed origins".`
      : `Pages on ${origin ?? 'an unnamed origin'} may not start public sessions of integration ${integration.id}: add the origin to its "Allowed origins" on the Integrations page of the service console.`;
  await noteRefusedOrigin(ctx, projectId, integration.id, origin, detail);
  throw new HttpError(403, 'origin_not_allowed', detail);
}

/** What the per-address limits count: one window per kind of call, project and client address. */
const addressKey = (kind: string, projectId: string, info: RequestInfo) =>
  `${kind}\n${projectId}\n${info.clientAddress ?? 'unknown'}`;

/** The HMAC key of an integration's challenges, derived from the project's secret (never stored apart, never sent). */
const challengeKey = (target: PublicTarget) =>
  hmacBase64url(target.view.project.ownerSecret, `agent-chat challenge\n${target.integration.id}`);

/** Spent budgets each service has logged: one warning a day for each, not one per refused visitor. */
const loggedSpent = new WeakMap<object, Set<string>>();

/**
 * A spent daily budget, in words that say where its owner raises it (decision 463): the
 * visitor's 429, and the operator's log line (once a day for each budget on this instance),
 * since nothing else tells them their site's chat stopped answering.
 */
function budgetSpent(
  ctx: ServiceContext,
  what: 'sessions' | 'answers',
  projectId: string,
  integrationId: string,
) {
  const error = new HttpError(
    429,
    'budget_exhausted',
    `The daily budget of ${what} of integration ${integrationId} is spent; it starts again at 00:00 UTC, or raise "${what === 'sessions' ? 'Sessions' : 'Answers'} a day" on the Integrations page of the service console.`,
    { 'Retry-After': String(secondsToNextUtcDay(ctx.clock.now())) },
  );
  const logged = loggedSpent.get(ctx.directory) ?? new Set<string>();
  loggedSpent.set(ctx.directory, logged);
  const key = `${utcDay(ctx.clock.now())}\n${projectId}\n${integrationId}\n${what}`;
  if (!logged.has(key)) {
    if (logged.size >= 1_000) logged.clear();
    logged.add(key);
    ctx.log({
      level: 'warn',
      msg: 'public_budget_spent',
      project: projectId,
      integration: integrationId,
      budget: what,
      detail: error.message,
    });
  }
  return error;
}

/**
 * Runs a public route under its CORS: every answer names the calling origin, so a page on an
 * allowed origin reads its challenge or session and a page elsewhere reads why it was refused
 * (what it sent, and nothing more). Only the allowed origins ever get a 200 (decision 352).
 */
async function underPublicCors(request: Request, run: () => Promise<Response>): Promise<Response> {
  let response: Response;
  try {
    response = await run();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    response = error.toResponse();
  }
  const origin = request.headers.get('Origin');
  if (origin) response.headers.set('Access-Control-Allow-Origin', origin);
  else response.headers.delete('Access-Control-Allow-Origin');
  response.headers.append('Vary', 'Origin');
  return response;
}

/**
 * Runs a public route, under its CORS, for a page on one of the public integration's allowed
 * origins, within the route's limit per client address (`kind` names its window).
 */
function forListedPage(
  ctx: PublicContext,
  request: Request,
  info: RequestInfo,
  kind: 'challenge' | 'public',
  [projectId, integrationId]: [string, string],
  run: (target: PublicTarget) => Promise<Response>,
): Promise<Response> {
  return underPublicCors(request, async () => {
    const target = await requirePublic(ctx, projectId, integrationId);
    await requireListedOrigin(ctx, request, projectId, target.integration);
    await checkRate(ctx.storage.rates, ctx.clock, ctx.limits.publicMint, addressKey(kind, projectId, info));
    return run(target);
  });
}

/** OPTIONS on a public route: cleared for the integration's allowed origins only. */
export async function publicPreflight(
  ctx: ServiceContext,
  request: Request,
  projectId: string,
  integrationId: string,
): Promise<Response> {
  const { integration } = await requirePublic(ctx, projectId, integrationId).catch(() => ({
    integration: undefined,
  }));
  const origin = request.headers.get('Origin');
  if (!integration || !origin || !integration.allowedOrigins.includes(origin))
    return new Response(null, { status: 403, headers: { Vary: 'Origin' } });
  return new Response(null, {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Headers': 'Content-Type',
      'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
      'Access-Control-Expose-Headers': CORS_HEADERS['Access-Control-Expose-Headers'],
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
    },
  });
}

/** GET …/integrations/{integrationId}/challenge/ (§2b): an ALTCHA v1 challenge, or why not. */
export function publicChallenge(
  ctx: PublicContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  integrationId: string,
): Promise<Response> {
  // Each visitor's session asks one challenge: an address asking more than it may mint is held
  // at the same limit, before the store is read for it.
  return forListedPage(ctx, request, info, 'challenge', [projectId, integrationId], async (target) => {
    // A spent budget says so before the visitor's browser does a second of work for nothing.
    const now = ctx.clock.now();
    const used = (await ctx.storage.gate.budgetUse(projectId, utcDay(now))).get(integrationId);
    if ((used?.sessions ?? 0) >= target.integration.budget.sessions)
      throw budgetSpent(ctx, 'sessions', projectId, integrationId);
    const challenge = await createChallenge({
      algorithm: 'SHA-256',
      hmacKey: await challengeKey(target),
      maxnumber: ctx.limits.challengeWork,
      expires: new Date(now + CHALLENGE_TTL_MS),
    });
    return json(challenge);
  });
}

const challengeFailed = (why: string) =>
  new HttpError(403, 'challenge_failed', `The proof of work is ${why}: fetch a new challenge and solve it.`);

/** The solution a mint's body carries (`{"altcha": base64 JSON}`), decoded and typed; 400 for any other field. */
async function readSolution(request: Request) {
  const body = await readJsonBody(request);
  if (body !== undefined && !isRecord(body)) throw badRequest('The body must be a JSON object.');
  const unknown = Object.keys(body ?? {}).filter((key) => key !== 'altcha');
  if (unknown.length) throw badRequest(`Unknown field(s): ${unknown.join(', ')}.`);
  let payload: unknown;
  try {
    payload = JSON.parse(atob(typeof body?.altcha === 'string' ? body.altcha : ''));
  } catch {
    throw challengeFailed('missing or unreadable');
  }
  if (
    !isRecord(payload) ||
    payload.algorithm !== 'SHA-256' ||
    !Number.isSafeInteger(payload.number) ||
    !['challenge', 'salt', 'signature'].every((field) => typeof payload[field] === 'string')
  )
    throw challengeFailed('missing or unreadable');
  return payload as unknown as Payload;
}

/**
 * The solution holds: signed by this integration's key, not expired on the service's clock,
 * and never used before anywhere in the fleet (recorded until it expires).
 */
async function spendSolution(ctx: PublicContext, request: Request, target: PublicTarget): Promise<void> {
  const solution = await readSolution(request);
  const expiresAt = Number(extractParams(solution).expires) * 1000;
  const now = ctx.clock.now();
  if (!(expiresAt > now && expiresAt <= now + CHALLENGE_TTL_MS)) throw challengeFailed('expired');
  if (!(await verifySolution(solution, await challengeKey(target), false))) throw challengeFailed('wrong');
  if (!(await ctx.storage.gate.spendChallenge(solution.challenge, expiresAt)))
    throw challengeFailed('already used');
}

/** POST …/integrations/{integrationId}/sessions/ (§2b): an anonymous session for a solved challenge. */
export function publicSession(
  ctx: PublicContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  integrationId: string,
): Promise<Response> {
  return forListedPage(ctx, request, info, 'public', [projectId, integrationId], async (target) => {
    await spendSolution(ctx, request, target);
    const now = ctx.clock.now();
    if (
      !(await ctx.storage.gate.spendBudget(
        projectId,
        integrationId,
        utcDay(now),
        'sessions',
        target.integration.budget.sessions,
      ))
    )
      throw budgetSpent(ctx, 'sessions', projectId, integrationId);
    const { token, expiresAt } = await mintSession(ctx, projectId, null, integrationId);
    return json({ session_token: token, expires_at: isoMicros(expiresAt) }, 200, {
      [OWNER_KEY_HEADER]: NO_OWNER,
    });
  });
}

/**
 * A public session acts for the integration whose challenge minted it, nothing else: its proof
 * of work and budget are that integration's, so naming another of the project (one for
 * signed-in members, one that takes files where this one takes none) would reach, without the
 * site's server, what that integration's owner never opened to anonymous visitors (decision
 * 681). Once its owner makes it private, requireSession refuses its sessions on every route.
 */
export function requireOwnIntegration(session: SessionRecord, integrationId: string): void {
  if (session.integrationId && session.integrationId !== integrationId)
    throw new HttpError(
      403,
      'wrong_integration',
      `This public session belongs to integration ${session.integrationId}; it cannot act for ${integrationId}.`,
    );
}

/**
 * A question asked with a public session counts against its integration's answer budget (429
 * `budget_exhausted` past it); requireSession let it through. What it gives back takes
 * the charge back, for a question that began no answer (refused at the cap of answers at once,
 * its thread deleted meanwhile, its key's answer replayed): the budget counts answers, and a
 * visitor's retries at the cap spent the site's day without one (decision 682).
 */
export async function chargeAnswer(
  ctx: ServiceContext<'gate'>,
  view: ProjectView,
  session: SessionRecord,
): Promise<() => Promise<void>> {
  const integration = view.integrations.get(session.integrationId ?? '');
  if (!integration) return async () => {};
  const day = utcDay(ctx.clock.now());
  if (
    !(await ctx.storage.gate.spendBudget(view.id, integration.id, day, 'answers', integration.budget.answers))
  )
    throw budgetSpent(ctx, 'answers', view.id, integration.id);
  return () => ctx.storage.gate.refundBudget(view.id, integration.id, day, 'answers');
}
