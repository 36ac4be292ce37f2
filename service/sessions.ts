import { isoMicros } from './clock.js';
import { type ServiceContext, requireApiKey, requireProject } from './context.js';
import { badRequest, isRecord, json, randomId, readJsonBody } from './http.js';

/** POST /agent/v1/projects/{projectId}/agent/sessions/ (wire contract §1). */
export async function createSession(ctx: ServiceContext, request: Request, projectId: string): Promise<Response> {
  const project = requireProject(ctx, projectId);
  requireApiKey(request, project);
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
  return json({ session_token: session.token, expires_at: isoMicros(session.expiresAt) });
}
