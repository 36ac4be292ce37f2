import { isRecord, readJsonBody } from '../../http/body.js';
import type { ConsoleSession, ConsoleSignedIn } from '../../../contract/console.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { HttpError, badRequest } from '../../http/errors.js';
import { json } from '../../http/responses.js';
import { randomSecret, sameText, sha256Hex } from '../../kernel/secrets.js';
import type { ConsoleSessionRecord } from '../../storage/console-types.js';

/** Admins, their sessions and sign-in failures, and the audit log. */
type AccountsContext = ServiceContext<'accounts'>;

export const MIN_PASSWORD_CHARS = 12;
export const USERNAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/i;
/** A console session lasts a working day, then signs in again. */
export const CONSOLE_SESSION_MS = 12 * 3_600_000;
/** Sign-in failures: per username, then per address, within the window. */
export const SIGN_IN_LIMITS = { perUser: 5, perAddress: 20, windowMs: 15 * 60_000 };

const COOKIE = 'agent_chat_console';

export interface Admin {
  username: string;
  session: ConsoleSessionRecord;
}

/** Secure behind https: the request's own scheme, the proxy's word for it, or the configured public URL. */
function secure(ctx: ServiceContext, request: Request): boolean {
  return (
    new URL(request.url).protocol === 'https:' ||
    request.headers.get('X-Forwarded-Proto') === 'https' ||
    !!ctx.publicUrl?.startsWith('https:')
  );
}

const cookieName = (ctx: ServiceContext, request: Request) =>
  secure(ctx, request) ? `__Secure-${COOKIE}` : COOKIE;

function cookie(ctx: ServiceContext, request: Request, value: string, maxAgeSeconds: number): string {
  const attributes = [
    `Path=${ctx.basePath}/console/`,
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
  ];
  if (secure(ctx, request)) attributes.push('Secure');
  return `${cookieName(ctx, request)}=${value}; ${attributes.join('; ')}`;
}

function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('Cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Every change must come from the console's own pages: a cross-site request is refused on
 * `Sec-Fetch-Site` and on `Origin` (its host must be this service's), before any token is read.
 */
export function requireSameOrigin(ctx: ServiceContext, request: Request): void {
  const site = request.headers.get('Sec-Fetch-Site');
  const origin = request.headers.get('Origin');
  const own = new URL(request.url).host;
  const publicHost = ctx.publicUrl ? new URL(ctx.publicUrl).host : null;
  let originHost: string | null = null;
  try {
    originHost = origin && origin !== 'null' ? new URL(origin).host : origin;
  } catch {
    originHost = 'invalid';
  }
  if (
    (site && site !== 'same-origin' && site !== 'none') ||
    (originHost !== null && originHost !== own && originHost !== publicHost)
  ) {
    throw new HttpError(403, 'cross_site', 'Console changes are accepted from the console’s own pages only.');
  }
  if (!request.headers.get('Content-Type')?.includes('application/json') && request.method !== 'DELETE') {
    throw new HttpError(415, 'unsupported_media_type', 'Send JSON (Content-Type: application/json).');
  }
}

/** The signed-in admin of a console API call; changes also need the session's CSRF token. */
export async function requireAdmin(ctx: AccountsContext, request: Request): Promise<Admin> {
  const token = readCookie(request, cookieName(ctx, request));
  const session = token ? await ctx.storage.accounts.getConsoleSession(await sha256Hex(token)) : undefined;
  if (!session || session.expiresAt <= ctx.clock.now())
    throw new HttpError(401, 'signed_out', 'Sign in to the console.');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    requireSameOrigin(ctx, request);
    const csrf = request.headers.get('X-CSRF-Token') ?? '';
    if (!sameText(csrf, session.csrf))
      throw new HttpError(403, 'csrf', 'The CSRF token is missing or stale; reload the console.');
  }
  return { username: session.username, session };
}

export function audit(
  ctx: AccountsContext,
  info: RequestInfo,
  actor: string,
  action: string,
  projectId: string | null,
  target: string | null,
  detail: Record<string, unknown> | null = null,
) {
  return ctx.storage.accounts.appendAudit({
    at: ctx.clock.now(),
    actor,
    action,
    projectId,
    target,
    detail,
    address: info.clientAddress ?? null,
  });
}

/** A throwaway hash so an unknown username costs the same time as a wrong password. */
let decoy: Promise<string> | undefined;

async function refuseIfLimited(ctx: AccountsContext, keys: [string, number][]): Promise<void> {
  const since = ctx.clock.now() - SIGN_IN_LIMITS.windowMs;
  for (const [key, limit] of keys) {
    const { count, oldest } = await ctx.storage.accounts.signInFailures(key, since);
    if (count >= limit) {
      const retry = Math.max(
        1,
        Math.ceil(((oldest ?? since) + SIGN_IN_LIMITS.windowMs - ctx.clock.now()) / 1000),
      );
      throw new HttpError(
        429,
        'rate_limited',
        `Too many failed sign-ins; try again in ${Math.ceil(retry / 60)} min.`,
        { 'Retry-After': String(retry) },
      );
    }
  }
}

/** POST /console/api/session: username and password → the session cookie and the CSRF token. */
export async function signIn(ctx: AccountsContext, request: Request, info: RequestInfo): Promise<Response> {
  const passwords = ctx.console!.passwords;
  requireSameOrigin(ctx, request);
  const body = await readJsonBody(request);
  if (!isRecord(body) || typeof body.username !== 'string' || typeof body.password !== 'string')
    throw badRequest('Send username and password.');
  const username = body.username.trim().toLowerCase();
  const userKey = `user:${username}`;
  const addressKey = `addr:${info.clientAddress ?? 'unknown'}`;
  await refuseIfLimited(ctx, [
    [userKey, SIGN_IN_LIMITS.perUser],
    [addressKey, SIGN_IN_LIMITS.perAddress],
  ]);
  const admin = USERNAME.test(username) ? await ctx.storage.accounts.getAdmin(username) : undefined;
  const ok = admin
    ? await passwords.verify(body.password, admin.passwordHash)
    : await passwords.verify(body.password, await (decoy ??= passwords.hash(randomSecret())));
  const now = ctx.clock.now();
  if (!admin || !ok) {
    await ctx.storage.accounts.recordSignInFailure([userKey, addressKey], now);
    await audit(ctx, info, username.slice(0, 64) || '-', 'sign_in.failed', null, null);
    throw new HttpError(401, 'wrong_credentials', 'Wrong username or password.');
  }
  await ctx.storage.accounts.clearSignInFailures(userKey);
  const token = randomSecret();
  const session = {
    tokenHash: await sha256Hex(token),
    username,
    csrf: randomSecret(),
    createdAt: now,
    expiresAt: now + CONSOLE_SESSION_MS,
  };
  await ctx.storage.accounts.putConsoleSession(session);
  await audit(ctx, info, username, 'sign_in', null, null);
  return json({ username, csrf_token: session.csrf } satisfies ConsoleSignedIn, 200, {
    'Set-Cookie': cookie(ctx, request, token, CONSOLE_SESSION_MS / 1000),
  });
}

/** GET /console/api/session: who is signed in (null: nobody), and the CSRF token for changes. */
export async function currentSession(ctx: AccountsContext, request: Request): Promise<Response> {
  const admin = await requireAdmin(ctx, request).catch((error) => {
    if (error instanceof HttpError && error.status === 401) return null;
    throw error;
  });
  if (!admin) return json({ username: null } satisfies ConsoleSession);
  return json({
    username: admin.username,
    csrf_token: admin.session.csrf,
    expires_at: new Date(admin.session.expiresAt).toISOString(),
  } satisfies ConsoleSession);
}

/** DELETE /console/api/session: signs out (the session is gone from the store, not just the browser). */
export async function signOut(ctx: AccountsContext, request: Request, info: RequestInfo): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  await ctx.storage.accounts.deleteConsoleSession(admin.session.tokenHash);
  await audit(ctx, info, admin.username, 'sign_out', null, null);
  return new Response(null, {
    status: 204,
    headers: { 'Set-Cookie': cookie(ctx, request, '', 0), 'Cache-Control': 'no-store' },
  });
}
