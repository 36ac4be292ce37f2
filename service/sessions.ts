import { isoMicros } from './clock.js';
import { type RequestInfo, type ServiceContext, requireApiKey, requireProject } from './context.js';
import { badRequest, isRecord, json, randomId, readJsonBody } from './http.js';

/** POST /agent/v1/projects/{projectId}/agent/sessions/ (wire contract §1). */
export async function createSession(ctx: ServiceContext, request: Request, _info: RequestInfo, projectId: string): Promise<Response> {
  const project = requireProject(ctx, projectId);
  requireApiKey(request, project);
  ctx.mintLimiter.check(project.id);
  const body = await readJsonBody(request);
  let owner: string | null = null;
  if (body !== undefined) {
    if (!isRecord(body)) throw badRequest('The body must be a JSON object.');
    const unknown = Object.keys(body).filter((key) => key !== 'external_owner_id');
    if (unknown.length) throw badRequest(`Unknown field(s): ${unknown.join(', ')}.`);
    if ('external_owner_id' in body) {
      const value = body.external_owner_id;
      if (typeof value !== 'string' || value.length < 1 || value.length > 256) {
        throw badRequest('external_owner_id must be a string of 1 to 256 characters.');
      }
      owner = value;
    }
  }
  const now = ctx.clock.now();
  const session = { token: randomId('ses'), projectId, owner, createdAt: now, expiresAt: now + ctx.tokenTtlMs };
  await ctx.storage.putSession(session);
  await ctx.storage.recordActivity({ kind: 'session', projectId, at: now, sessionToken: session.token, owner, integrationId: null });
  return json({ session_token: session.token, expires_at: isoMicros(session.expiresAt) }, 200, { 'Agent-Chat-Owner-Key': await ownerKey(project.apiKey, owner) });
}

/** One imported key per project secret (a handful), not one per mint. */
const hmacKeys = new Map<string, Promise<CryptoKey>>();

/**
 * Wire contract §2's owner key: stable for an owner, revealing nothing about it (an HMAC
 * under the project's API key, which only the service and the site owner's server hold).
 */
export async function ownerKey(secret: string, owner: string | null): Promise<string> {
  if (owner === null) return '-';
  const encoder = new TextEncoder();
  let key = hmacKeys.get(secret);
  if (!key) hmacKeys.set(secret, (key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])));
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(`agent-chat owner\n${owner}`)));
  return btoa(String.fromCharCode(...mac)).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}
