import { isRecord, readJsonBody } from '../../http/body.js';
import type { ConsoleApiKey, ConsoleNewKey, ConsoleRotatedKey } from '../../../contract/console.js';
import { isoMicros, isoMicrosOrNull } from '../../kernel/clock.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { keyIsLive } from '../../http/directory.js';
import { HttpError, badRequest, notFound } from '../../http/errors.js';
import { randomId } from '../../kernel/ids.js';
import { json } from '../../http/responses.js';
import { randomSecret, sha256Hex } from '../../kernel/secrets.js';
import type { ApiKeyRecord } from '../../storage/console-types.js';
import { audit, requireAdmin } from './auth.js';
import { adminProject } from './projects.js';

/** API keys in the directory; the admin and the audit log in the accounts. */
type KeysContext = ServiceContext<'directory' | 'accounts'>;

/** Keys look like `ack_` + 43 base64url characters (256 random bits). */
const KEY_PREFIX = 'ack_';
/** What the list shows of a key: enough to tell keys apart, far too little to use one. */
const SHOWN_CHARS = 12;
/** The longest overlap a rotation may give the old key. */
const MAX_OVERLAP_S = 30 * 86_400;

function status(key: ApiKeyRecord, now: number) {
  if (key.revokedAt !== null) return 'revoked';
  if (!keyIsLive(key, now)) return 'expired';
  return key.expiresAt !== null ? 'expiring' : 'active';
}

const keyJson = (key: ApiKeyRecord, now: number): ConsoleApiKey => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  created_at: isoMicros(key.createdAt),
  last_used_at: isoMicrosOrNull(key.lastUsedAt),
  expires_at: isoMicrosOrNull(key.expiresAt),
  revoked_at: isoMicrosOrNull(key.revokedAt),
  sessions_ended_at: isoMicrosOrNull(key.sessionsEndedAt),
  status: status(key, now),
});

function keyName(value: unknown): string {
  const text = typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
  if (text.length < 1 || text.length > 80) throw badRequest('The key name must be 1 to 80 characters.');
  return text;
}

/** A new key: the whole value is returned once and stored only as its hash. */
async function mint(
  ctx: KeysContext,
  projectId: string,
  name: string,
): Promise<{ key: string; record: ApiKeyRecord }> {
  // Live keys have distinct names: "Revoke <name>" must say which key it ends.
  const now = ctx.clock.now();
  if ((await ctx.storage.directory.listApiKeys(projectId)).some((k) => k.name === name && keyIsLive(k, now)))
    throw new HttpError(409, 'conflict', `A working key is already named ${name}.`);
  const key = `${KEY_PREFIX}${randomSecret()}`;
  const record = {
    id: randomId('key'),
    projectId,
    name,
    prefix: key.slice(0, SHOWN_CHARS),
    hash: await sha256Hex(key),
    createdAt: ctx.clock.now(),
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    sessionsEndedAt: null,
  };
  if (!(await ctx.storage.directory.createApiKey(record))) throw notFound('No such project.');
  await ctx.directory.invalidate(projectId);
  return { key, record };
}

async function findKey(ctx: KeysContext, projectId: string, keyId: string): Promise<ApiKeyRecord> {
  const key = (await ctx.storage.directory.listApiKeys(projectId)).find((k) => k.id === keyId);
  if (!key) throw notFound('No such key.');
  return key;
}

export async function listKeys(
  ctx: KeysContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
): Promise<Response> {
  // A key's name and prefix are no secret, but which keys exist and when each was used is the
  // admins' (decision 718).
  await adminProject(ctx, request, projectId, 'admin');
  const now = ctx.clock.now();
  return json({ keys: (await ctx.storage.directory.listApiKeys(projectId)).map((k) => keyJson(k, now)) });
}

export async function createKey(
  ctx: KeysContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const body = await readJsonBody(request);
  const { key, record } = await mint(ctx, projectId, keyName(isRecord(body) ? body.name : undefined));
  await audit(ctx, info, admin.username, 'key.create', projectId, record.id, {
    name: record.name,
    prefix: record.prefix,
  });
  return json({ ...keyJson(record, ctx.clock.now()), key } satisfies ConsoleNewKey, 201);
}

/** POST …/keys/{id}/rotate/ `{overlap_seconds}`: a new key now; the old one works for the overlap, then stops. */
export async function rotateKey(
  ctx: KeysContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  keyId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const body = await readJsonBody(request);
  const overlap = isRecord(body) ? body.overlap_seconds : undefined;
  if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0 || overlap > MAX_OVERLAP_S) {
    throw badRequest(`overlap_seconds must be a whole number from 0 to ${MAX_OVERLAP_S} (30 days).`);
  }
  const old = await findKey(ctx, projectId, keyId);
  const now = ctx.clock.now();
  if (!keyIsLive(old, now)) throw badRequest('This key no longer works; create a new key instead.');
  // The ending key gives its name to the new one, so servers' configuration keeps reading the same.
  const expiresAt = Math.min(now + overlap * 1000, old.expiresAt ?? Number.POSITIVE_INFINITY);
  const ending = (await ctx.storage.directory.updateApiKey(projectId, keyId, {
    expiresAt,
    name: `${old.name} (rotated)`.slice(0, 80),
  }))!;
  // An overlap never extends a key that was already ending sooner (above); the new key is made
  // after, and its invalidation (on every instance) carries the old key's change too.
  const { key, record } = await mint(ctx, projectId, old.name);
  await audit(ctx, info, admin.username, 'key.rotate', projectId, keyId, {
    new_key: record.id,
    prefix: record.prefix,
    overlap_seconds: overlap,
  });
  return json(
    { ...keyJson(record, now), key, replaced: keyJson(ending, now) } satisfies ConsoleRotatedKey,
    201,
  );
}

/**
 * DELETE …/keys/{id}/[?end_sessions=1]: revoked at once, on every instance (decision 640). With
 * `end_sessions`, the sessions it minted stop working too, instead of running out within the
 * hour; a key already revoked can have its sessions ended later.
 */
export async function revokeKey(
  ctx: KeysContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  keyId: string,
): Promise<Response> {
  const admin = await requireAdmin(ctx, request);
  const key = await findKey(ctx, projectId, keyId);
  const detail = { name: key.name, prefix: key.prefix };
  if (key.revokedAt === null) {
    await ctx.storage.directory.updateApiKey(projectId, keyId, { revokedAt: ctx.clock.now() });
    // Before anything else can fail: the fleet stops taking the key now.
    await ctx.directory.invalidate(projectId);
    await audit(ctx, info, admin.username, 'key.revoke', projectId, keyId, detail);
  }
  const endSessions = ['1', 'true'].includes(new URL(request.url).searchParams.get('end_sessions') ?? '');
  if (endSessions && key.sessionsEndedAt === null) {
    const ended = await ctx.storage.directory.endKeySessions(projectId, keyId, ctx.clock.now());
    await ctx.directory.invalidate(projectId);
    await audit(ctx, info, admin.username, 'key.end_sessions', projectId, keyId, {
      ...detail,
      sessions: ended ?? 0,
    });
  }
  return json(keyJson(await findKey(ctx, projectId, keyId), ctx.clock.now()));
}
