/**
 * The console's admins as the admins themselves manage them (decisions 689-691, 718): the list,
 * adding one, a new role for one, removing one (never the last with the admin role), one's own
 * password, and one's other sessions. A viewer reads the list and keeps their own account.
 */
import {
  CONSOLE_ROLES,
  type ConsoleAdmins,
  type ConsolePasswordChange,
  type ConsoleRole,
  type ConsoleSessionsEnded,
} from '../../../contract/console.js';
import { readStringFields } from '../../http/body.js';
import { HttpError, badRequest, notFound } from '../../http/errors.js';
import { json } from '../../http/responses.js';
import { isoMicros } from '../../kernel/clock.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import {
  MIN_PASSWORD_CHARS,
  USERNAME,
  USERNAME_RULE,
  audit,
  checkPassword,
  cookie,
  passwordProblem,
  requireAdmin,
} from './auth.js';

type AdminsContext = ServiceContext<'accounts'>;

/** GET /console/api/admins: every admin, by name, with when each was added and last signed in. */
export async function listAdmins(ctx: AdminsContext, request: Request): Promise<Response> {
  const { username } = await requireAdmin(ctx, request);
  const admins = await ctx.storage.accounts.listAdmins();
  return json({
    admins: admins.map((a) => ({
      username: a.username,
      role: a.role,
      created_at: isoMicros(a.createdAt),
      last_sign_in_at: a.lastSignInAt === null ? null : isoMicros(a.lastSignInAt),
      you: a.username === username,
    })),
    min_password_chars: MIN_PASSWORD_CHARS,
  } satisfies ConsoleAdmins);
}

/** POST /console/api/admins: a new admin with the password its adder sets (and hands over). */
export async function addConsoleAdmin(
  ctx: AdminsContext,
  request: Request,
  info: RequestInfo,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const input = await readStringFields(request, 'username', 'password');
  const role = roleOf(input.role ?? 'admin');
  const username = input.username.trim().toLowerCase();
  if (!USERNAME.test(username)) throw badRequest(`A username is ${USERNAME_RULE}.`);
  const problem = passwordProblem(input.password);
  if (problem) throw badRequest(problem);
  const passwordHash = await ctx.console!.passwords.hash(input.password);
  const now = ctx.clock.now();
  if (!(await ctx.storage.accounts.createAdmin({ username, role, passwordHash, createdAt: now })))
    throw new HttpError(409, 'admin_exists', `An admin named ${username} exists already.`);
  await audit(ctx, info, admin.username, 'admin.add', null, username, { role });
  return json({ username, role, created_at: isoMicros(now), last_sign_in_at: null, you: false }, 201);
}

function roleOf(value: unknown): ConsoleRole {
  if (!(CONSOLE_ROLES as readonly unknown[]).includes(value))
    throw badRequest(`role is one of ${CONSOLE_ROLES.join(', ')}.`);
  return value as ConsoleRole;
}

const lastAdmin = (name: string, doing: string) =>
  new HttpError(
    409,
    'last_admin',
    `${name} is the only admin: add another admin, or make a viewer one, before ${doing}: otherwise nobody could change anything in the console.`,
  );

/** PATCH /console/api/admins/NAME `{role}`: a new role, at the admin's next call; never the last admin made a viewer. */
export async function changeAdminRole(
  ctx: AdminsContext,
  request: Request,
  info: RequestInfo,
  name: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const role = roleOf((await readStringFields(request, 'role')).role);
  const result = await ctx.storage.accounts.setRole(name, role);
  if (result === 'missing') throw notFound(`There is no admin named ${name}.`);
  if (result === 'last') throw lastAdmin(name, 'making them a viewer');
  if (result === 'changed') await audit(ctx, info, admin.username, 'admin.role', null, name, { role });
  return json({ username: name, role });
}

/**
 * DELETE /console/api/admins/NAME: the admin goes and every session of theirs ends at once;
 * never the last one. An admin may remove themself while another remains (their cookie is cleared).
 */
export async function removeConsoleAdmin(
  ctx: AdminsContext,
  request: Request,
  info: RequestInfo,
  name: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const result = await ctx.storage.accounts.removeAdmin(name, { allowNone: false });
  if (result === 'missing') throw notFound(`There is no admin named ${name}.`);
  if (result === 'last') throw lastAdmin(name, 'removing them');
  await audit(ctx, info, admin.username, 'admin.remove', null, name);
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (name === admin.username) headers['Set-Cookie'] = cookie(ctx, request, '', 0);
  return new Response(null, { status: 204, headers });
}

/**
 * PUT /console/api/password: the signed-in admin's own new password, the current one first
 * (checked under the sign-in limits, so a held session guesses no faster than the sign-in form).
 * Every other session of theirs ends; this one stays.
 */
export async function changeOwnPassword(
  ctx: AdminsContext,
  request: Request,
  info: RequestInfo,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request, 'anyone');
  const change: ConsolePasswordChange = await readStringFields(request, 'current_password', 'new_password');
  const problem = passwordProblem(change.new_password);
  if (problem) throw badRequest(problem);
  if (
    !(await checkPassword(
      ctx,
      info,
      admin.username,
      admin.username,
      change.current_password,
      // A signed-in admin: the hasher's known lane (decision 820).
      async () => true,
    ))
  ) {
    await audit(ctx, info, admin.username, 'admin.password.failed', null, admin.username);
    throw new HttpError(403, 'wrong_password', 'The current password is wrong.');
  }
  const hash = await ctx.console!.passwords.hash(change.new_password);
  if (!(await ctx.storage.accounts.setPasswordHash(admin.username, hash)))
    throw new HttpError(401, 'signed_out', 'Sign in to the console.');
  const ended = await ctx.storage.accounts.endConsoleSessions(admin.username, admin.session.tokenHash);
  await audit(ctx, info, admin.username, 'admin.password', null, admin.username, { sessions_ended: ended });
  return json({ sessions_ended: ended } satisfies ConsoleSessionsEnded);
}

/** DELETE /console/api/session/others: "Sign out everywhere else" (a lost laptop, a shared one). */
export async function endOtherSessions(
  ctx: AdminsContext,
  request: Request,
  info: RequestInfo,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request, 'anyone');
  const ended = await ctx.storage.accounts.endConsoleSessions(admin.username, admin.session.tokenHash);
  await audit(ctx, info, admin.username, 'sign_out.others', null, null, { sessions_ended: ended });
  return json({ sessions_ended: ended } satisfies ConsoleSessionsEnded);
}
