import { readStringFields } from '../../http/body.js';
import type { ConsoleSession, ConsoleSignedIn } from '../../../contract/console.js';
import type { PasswordHasher, RequestInfo, ServiceContext } from '../context.js';
import { HttpError } from '../../http/errors.js';
import { json } from '../../http/responses.js';
import { hmacOnce, randomSecret, sameText, sha256Hex } from '../../kernel/secrets.js';
import { randomId } from '../../kernel/ids.js';
import type { AdminRecord, AdminRole, ConsoleSessionRecord } from '../../storage/console-types.js';

/** Admins, their sessions and sign-in failures, and the audit log. */
type AccountsContext = ServiceContext<'accounts'>;

export const MIN_PASSWORD_CHARS = 12;
export const MAX_PASSWORD_CHARS = 1_024;

/** Why a new password cannot be one (null: it can), in the words the CLI and the console show. */
export function passwordProblem(password: string): string | null {
  // Characters as people count them (code points), as NIST's minimum length means.
  // oxlint-disable-next-line typescript/no-misused-spread -- splitting into code points is the point
  const length = [...password].length;
  if (length < MIN_PASSWORD_CHARS)
    return `The password must be at least ${MIN_PASSWORD_CHARS} characters (it has ${length}).`;
  if (length > MAX_PASSWORD_CHARS) return `The password must be at most ${MAX_PASSWORD_CHARS} characters.`;
  return null;
}
export const USERNAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/i;
/** USERNAME in words, for whoever is refused by it (the console's form, the `admin` command). */
export const USERNAME_RULE = '1 to 64 letters, digits and . _ @ -, starting with a letter or digit';
/** A console session lasts a working day, then signs in again. */
const CONSOLE_SESSION_MS = 12 * 3_600_000;
/**
 * Sign-in limits, counted before any password is checked. An address may try 20 times in 15
 * minutes, whatever the names. A name from one address may fail 5 times, then waits a minute
 * before each further try, doubling up to 15 minutes, while the failures of a day count. Never
 * the name alone: then anyone could lock its admin out from anywhere.
 */
const SIGN_IN_LIMITS = {
  perAddress: 20,
  addressWindowMs: 15 * 60_000,
  perUserAddress: 5,
  firstBackoffMs: 60_000,
  maxBackoffMs: 15 * 60_000,
  userAddressWindowMs: 24 * 3_600_000,
};
/** Passwords hashed at once, and sign-ins waiting for it, per service: past them, 503 at once. */
export const HASHING = { running: 1, waiting: 8 };

const COOKIE = 'agent_chat_console';

export interface Admin {
  username: string;
  role: AdminRole;
  session: ConsoleSessionRecord;
}

/**
 * Who may make a call (decision 718): `admin`, the admin role only; `anyone` signed in, a viewer
 * too. Unless a route says otherwise a read is anyone's and a change is an admin's, so a route
 * added without a thought for roles is closed to viewers.
 */
export type Access = 'admin' | 'anyone';

/** Why a viewer is refused, in words the console shows as they are. */
const ADMIN_ONLY = {
  read: 'Only an admin can see this: you are signed in as a viewer, who reads conversations, sources, activity and notifications.',
  change:
    'Only an admin can change this: you are signed in as a viewer, who reads, and changes nothing but their own password and sessions.',
};

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

/** The console's path as the browser sees it: under the public URL's own path when a proxy serves the service on one. */
const consolePath = (ctx: ServiceContext) =>
  `${ctx.publicUrl ? new URL(ctx.publicUrl).pathname.replace(/\/+$/, '') : ''}${ctx.basePath}/console/`;

export function cookie(ctx: ServiceContext, request: Request, value: string, maxAgeSeconds: number): string {
  const attributes = [`Path=${consolePath(ctx)}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
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
function requireSameOrigin(ctx: ServiceContext, request: Request): void {
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
  // The media type itself: a cross-site form or no-cors fetch sends text/plain with any
  // parameter (`text/plain; charset=application/json`), so a match anywhere let one through.
  const type = request.headers.get('Content-Type')?.split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && request.method !== 'DELETE') {
    throw new HttpError(415, 'unsupported_media_type', 'Send JSON (Content-Type: application/json).');
  }
}

/**
 * The signed-in admin of a console API call, with a role the call allows (`access`, by default
 * anyone's for a read and an admin's for a change); changes also need the session's CSRF token.
 */
export async function requireAdmin(ctx: AccountsContext, request: Request, access?: Access): Promise<Admin> {
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
  const read = request.method === 'GET' || request.method === 'HEAD';
  if (session.role !== 'admin' && (access ?? (read ? 'anyone' : 'admin')) === 'admin')
    throw new HttpError(403, 'admin_only', read ? ADMIN_ONLY.read : ADMIN_ONLY.change);
  const { role, ...record } = session;
  return { username: session.username, role, session: record };
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

/** A throwaway hash per hasher, so an unknown username costs the same time as a wrong password. */
const decoys = new WeakMap<PasswordHasher, Promise<string>>();

/**
 * A hasher that hashes at most `running` passwords at once and lets at most `waiting` wait:
 * 200 sign-ins at once each started a hash, and those queued ahead of the model host's DNS
 * lookup. What cannot wait is refused at once. The known lane (a browser that signed in to the
 * name before, a signed-in admin) waits apart and goes first, so sign-ins from a hundred
 * addresses that keep the other queue full never turn its admins away (decision 820).
 */
export function boundedPasswords(hasher: PasswordHasher, limits = HASHING): PasswordHasher {
  let running = 0;
  const queues = { any: [] as (() => void)[], known: [] as (() => void)[] };
  const turn = async <T>(work: () => Promise<T>, lane: keyof typeof queues = 'any'): Promise<T> => {
    if (running >= limits.running) {
      if (queues[lane].length >= limits.waiting)
        throw new HttpError(503, 'busy', 'Too many sign-ins at once; try again in a moment.', {
          'Retry-After': '1',
        });
      await new Promise<void>((resolve) => queues[lane].push(resolve));
    } else running += 1;
    try {
      return await work();
    } finally {
      const next = queues.known.shift() ?? queues.any.shift();
      if (next) next();
      else running -= 1;
    }
  };
  return {
    hash: (password) => turn(() => hasher.hash(password)),
    verify: (password, stored, lane) => turn(() => hasher.verify(password, stored, lane), lane),
    outdated: hasher.outdated && ((stored) => hasher.outdated!(stored)),
  };
}

const tooMany = (retryMs: number) => {
  const seconds = Math.max(1, Math.ceil(retryMs / 1000));
  return new HttpError(
    429,
    'rate_limited',
    `Too many failed sign-ins; try again in ${Math.ceil(seconds / 60)} min.`,
    { 'Retry-After': String(seconds) },
  );
};

/** How long a name must wait at an address after `failures` failures there (0: it may try). */
function signInBackoffMs(failures: number): number {
  if (failures < SIGN_IN_LIMITS.perUserAddress) return 0;
  const doublings = Math.min(failures - SIGN_IN_LIMITS.perUserAddress, 16);
  return Math.min(SIGN_IN_LIMITS.firstBackoffMs * 2 ** doublings, SIGN_IN_LIMITS.maxBackoffMs);
}

/**
 * Counts the attempt under its address and its (name, address) pair before any hash runs, and
 * refuses it (taking it back) past either limit. Sixty guesses at once were all checked against
 * limits of 5 and 20 when failures were counted after the hash.
 */
async function countAttempt(ctx: AccountsContext, attempt: string, username: string, address: string) {
  const now = ctx.clock.now();
  const [byAddress, byPair] = await ctx.storage.accounts.countSignInAttempt(
    attempt,
    [
      { key: `addr:${address}`, since: now - SIGN_IN_LIMITS.addressWindowMs },
      // The name as typed may be anything: its hash keeps the key short.
      {
        key: `pair:${await sha256Hex(username)}:${address}`,
        since: now - SIGN_IN_LIMITS.userAddressWindowMs,
      },
    ],
    now,
  );
  let refusal: HttpError | null = null;
  if (byAddress.count > SIGN_IN_LIMITS.perAddress)
    refusal = tooMany((byAddress.oldest ?? now) + SIGN_IN_LIMITS.addressWindowMs - now);
  const wait = signInBackoffMs(byPair.count - 1);
  if (!refusal && wait > 0 && now - (byPair.latest ?? now) < wait)
    refusal = tooMany((byPair.latest ?? now) + wait - now);
  if (refusal) {
    await ctx.storage.accounts.forgetSignInAttempt(attempt);
    throw refusal;
  }
  return byPair.key;
}

/** Checks the password (a decoy's for an unknown name); an attempt the hasher cannot take is taken back. */
async function passwordMatches(
  ctx: AccountsContext,
  attempt: string,
  admin: { passwordHash: string } | undefined,
  password: string,
  lane: 'known' | undefined,
): Promise<boolean> {
  const { passwords } = ctx.console!;
  try {
    if (admin) return await passwords.verify(password, admin.passwordHash, lane);
    let decoy = decoys.get(passwords);
    if (!decoy) decoys.set(passwords, (decoy = passwords.hash(randomSecret())));
    // A decoy that failed is made again next time.
    decoy.catch(() => decoys.delete(passwords));
    await passwords.verify(password, await decoy);
    return false;
  } catch (error) {
    await ctx.storage.accounts.forgetSignInAttempt(attempt);
    throw error;
  }
}

/** POST /console/api/session: username and password → the session cookie and the CSRF token. */
export async function signIn(ctx: AccountsContext, request: Request, info: RequestInfo): Promise<Response> {
  requireSameOrigin(ctx, request);
  const body = await readStringFields(request, 'username', 'password');
  const username = body.username.trim().toLowerCase();
  const valid = USERNAME.test(username);
  const browser = readCookie(request, knownCookieName(ctx, request));
  const admin = await checkPassword(ctx, info, valid ? username : null, username, body.password, (a) =>
    knownBrowser(a, browser),
  );
  if (!admin) {
    // A name that cannot be one is not stored.
    await audit(ctx, info, valid ? username : '(not a username)', 'sign_in.failed', null, null);
    throw new HttpError(401, 'wrong_credentials', 'Wrong username or password.');
  }
  const response = await startSession(ctx, request, info, admin);
  // After the session, which is written only over the hash the password was checked against.
  const hash = await rehashIfOutdated(ctx, admin, body.password);
  response.headers.append('Set-Cookie', await knownCookie(ctx, request, admin.username, hash));
  return response;
}

/**
 * The browser an admin signed in from, remembered for a year (decision 820): a nonce and its
 * HMAC under the admin's password hash, which never leaves the service. It lets no one in: it
 * only puts a later sign-in to that name in the hasher's known lane. A new password (or a
 * removed admin) makes every such cookie of theirs worthless, with nothing stored.
 */
const KNOWN_COOKIE = 'agent_chat_console_known';
const KNOWN_MAX_AGE_SECONDS = 365 * 24 * 3_600;

const knownCookieName = (ctx: ServiceContext, request: Request) =>
  secure(ctx, request) ? `__Secure-${KNOWN_COOKIE}` : KNOWN_COOKIE;

const knownMac = (username: string, passwordHash: string, nonce: string) =>
  hmacOnce(passwordHash, `agent-chat console browser\n${username}\n${nonce}`);

async function knownCookie(ctx: ServiceContext, request: Request, username: string, passwordHash: string) {
  const nonce = randomSecret();
  const value = `${nonce}.${await knownMac(username, passwordHash, nonce)}`;
  const attributes = [
    `Path=${consolePath(ctx)}`,
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${KNOWN_MAX_AGE_SECONDS}`,
  ];
  if (secure(ctx, request)) attributes.push('Secure');
  return `${knownCookieName(ctx, request)}=${value}; ${attributes.join('; ')}`;
}

/** Whether `cookie` was given to this very admin, under the password they have now. */
async function knownBrowser(admin: AdminRecord, cookie: string | undefined): Promise<boolean> {
  const [nonce, mac, ...rest] = (cookie ?? '').split('.');
  if (!nonce || !mac || rest.length) return false;
  return sameText(mac, await knownMac(admin.username, admin.passwordHash, nonce));
}

/**
 * The admin whose password this is, under the sign-in limits (a wrong one counts as a failed
 * sign-in from the address, and its rows stay as that failure); undefined when it is not.
 * `username` null: not a name at all (a decoy is checked, so it costs the same time).
 */
export async function checkPassword(
  ctx: AccountsContext,
  info: RequestInfo,
  username: string | null,
  typed: string,
  password: string,
  known: (admin: AdminRecord) => Promise<boolean>,
): Promise<AdminRecord | undefined> {
  const attempt = randomId('signin');
  const pairKey = await countAttempt(ctx, attempt, typed, info.clientAddress ?? 'unknown');
  const admin = username ? await ctx.storage.accounts.getAdmin(username) : undefined;
  const lane = admin && (await known(admin)) ? 'known' : undefined;
  if (!(await passwordMatches(ctx, attempt, admin, password, lane)) || !admin) return undefined;
  await ctx.storage.accounts.forgetSignInAttempt(attempt);
  await ctx.storage.accounts.clearSignInFailures(pairKey);
  return admin;
}

/** A hash with weaker parameters than new ones get is replaced, now that the password is known. */
async function rehashIfOutdated(ctx: AccountsContext, admin: AdminRecord, password: string): Promise<string> {
  const { passwords } = ctx.console!;
  if (!passwords.outdated?.(admin.passwordHash)) return admin.passwordHash;
  // Best effort: the sign-in stands if the new hash cannot be made or stored now.
  return (
    passwords
      .hash(password)
      // Only over the hash it checked: a password changed since stays changed.
      .then(async (hash) =>
        (await ctx.storage.accounts.setPasswordHash(admin.username, hash, admin.passwordHash))
          ? hash
          : admin.passwordHash,
      )
      .catch(() => admin.passwordHash)
  );
}

async function startSession(ctx: AccountsContext, request: Request, info: RequestInfo, admin: AdminRecord) {
  const { username } = admin;
  const now = ctx.clock.now();
  const token = randomSecret();
  const session = {
    tokenHash: await sha256Hex(token),
    username,
    csrf: randomSecret(),
    createdAt: now,
    expiresAt: now + CONSOLE_SESSION_MS,
  };
  // The admin was removed, or given a new password, while this one was being checked: no session.
  if (!(await ctx.storage.accounts.putConsoleSession(session, admin.passwordHash)))
    throw new HttpError(401, 'wrong_credentials', 'Wrong username or password.');
  await audit(ctx, info, username, 'sign_in', null, null);
  return json({ username, role: admin.role, csrf_token: session.csrf } satisfies ConsoleSignedIn, 200, {
    'Set-Cookie': cookie(ctx, request, token, CONSOLE_SESSION_MS / 1000),
  });
}

/** GET /console/api/session: who is signed in (null: nobody), and the CSRF token for changes. */
export async function currentSession(ctx: AccountsContext, request: Request): Promise<Response> {
  const admin = await requireAdmin(ctx, request, 'anyone').catch((error) => {
    if (error instanceof HttpError && error.status === 401) return null;
    throw error;
  });
  if (!admin) return json({ username: null } satisfies ConsoleSession);
  return json({
    username: admin.username,
    role: admin.role,
    csrf_token: admin.session.csrf,
    expires_at: new Date(admin.session.expiresAt).toISOString(),
  } satisfies ConsoleSession);
}

/** DELETE /console/api/session: signs out (the session is gone from the store, not just the browser). */
export async function signOut(ctx: AccountsContext, request: Request, info: RequestInfo): Promise<Response> {
  const admin = await requireAdmin(ctx, request, 'anyone');
  await ctx.storage.accounts.deleteConsoleSession(admin.session.tokenHash);
  await audit(ctx, info, admin.username, 'sign_out', null, null);
  return new Response(null, {
    status: 204,
    headers: { 'Set-Cookie': cookie(ctx, request, '', 0), 'Cache-Control': 'no-store' },
  });
}
