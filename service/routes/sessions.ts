import { MAX_OWNER_ID_CHARS } from '../../contract/limits.js';
import { ownerKey } from '../../contract/owner-key.js';
import { OWNER_KEY_HEADER } from '../../contract/paths.js';
import { isRecord, readJsonBody } from '../http/body.js';
import { isoMicros } from '../kernel/clock.js';
import { type RequestInfo, type ServiceContext, requireApiKey, requireProject } from './context.js';
import { badRequest } from '../http/errors.js';
import { randomId } from '../kernel/ids.js';
import { checkRate } from '../http/rate-limiter.js';
import { json } from '../http/responses.js';
import { hashToken } from '../kernel/tokens.js';
import type { SessionRecord } from '../storage/types.js';

/** Sessions in the directory, counted in the activity; mints limited through rates. */
type SessionsContext = ServiceContext<'directory' | 'activity' | 'rates'>;

/** POST /agent/v1/projects/{projectId}/agent/sessions/ (wire contract §1). */
export async function createSession(
  ctx: SessionsContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const project = await requireProject(ctx, projectId);
  // The owner key is computed under the key this mint presents: the same value the site's
  // session helper computes with that key, through a rotation too.
  const { apiKey, keyId } = await requireApiKey(ctx, request, project);
  await checkRate(ctx.storage.rates, ctx.clock, ctx.limits.mint, `mint\n${project.id}`);
  const body = await readJsonBody(request);
  let owner: string | null = null;
  if (body !== undefined) {
    if (!isRecord(body)) throw badRequest('The body must be a JSON object.');
    const unknown = Object.keys(body).filter((key) => key !== 'external_owner_id');
    if (unknown.length) throw badRequest(`Unknown field(s): ${unknown.join(', ')}.`);
    if ('external_owner_id' in body) {
      const value = body.external_owner_id;
      if (typeof value !== 'string' || value.length < 1 || value.length > MAX_OWNER_ID_CHARS) {
        throw badRequest('external_owner_id must be a string of 1 to 256 characters.');
      }
      owner = value;
    }
  }
  const { token, expiresAt } = await mintSession(ctx, projectId, owner, null, keyId);
  return json({ session_token: token, expires_at: isoMicros(expiresAt) }, 200, {
    [OWNER_KEY_HEADER]: await ownerKey(owner, apiKey),
  });
}

/**
 * A new session of `projectId` for `owner` (null: anonymous), stored as its token's hash and
 * counted in the activity; `integrationId` names the public integration that minted it (§2b),
 * `keyId` the API key (so "revoke and end its sessions" can find them).
 */
export async function mintSession(
  ctx: ServiceContext<'directory' | 'activity'>,
  projectId: string,
  owner: string | null,
  integrationId: string | null,
  keyId: string | null = null,
): Promise<{ token: string; expiresAt: number }> {
  const now = ctx.clock.now();
  const token = randomId('ses');
  const session: SessionRecord = {
    tokenHash: await hashToken(token),
    projectId,
    owner,
    ...(integrationId && { integrationId }),
    keyId,
    createdAt: now,
    expiresAt: now + ctx.tokenTtlMs,
  };
  await ctx.storage.directory.putSession(session);
  await ctx.storage.activity.recordActivity({
    kind: 'session',
    projectId,
    at: now,
    sessionToken: session.tokenHash,
    owner,
    integrationId,
  });
  return { token, expiresAt: session.expiresAt };
}
