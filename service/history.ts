import { isoMicros } from './clock.js';
import { type ServiceContext, requireProject, requireSession } from './context.js';
import { HttpError, THREAD_ID, badRequest, json, notFound } from './http.js';
import type { SessionRecord, ThreadCursor, ThreadRecord } from './storage.js';

export function threadSummary(thread: ThreadRecord) {
  return { id: thread.id, title: thread.title, created_at: isoMicros(thread.createdAt), updated_at: isoMicros(thread.updatedAt) };
}

function requireOwner(session: SessionRecord): string {
  if (session.owner === null) {
    throw new HttpError(403, 'session_without_owner', 'Conversation history needs a session created with an external_owner_id.');
  }
  return session.owner;
}

/**
 * The one ownership check. Another owner's thread is answered exactly like a missing one,
 * so ids cannot be probed. Threads without owner are reachable only from sessions without
 * owner (the id, 128 random bits, is the capability), which keeps an anonymous chat going
 * across a token refresh.
 */
export async function findThread(ctx: ServiceContext, session: SessionRecord, threadId: string): Promise<ThreadRecord> {
  if (!THREAD_ID.test(threadId)) throw badRequest('thread_id has an unknown format.');
  const thread = await ctx.storage.getThread(threadId);
  if (!thread || thread.projectId !== session.projectId || thread.owner !== session.owner) throw notFound('No such thread.');
  return thread;
}

function encodeCursor(thread: ThreadRecord): string {
  return btoa(JSON.stringify({ u: thread.updatedAt, i: thread.id })).replace(/=+$/, '');
}

function decodeCursor(cursor: string): ThreadCursor {
  try {
    const { u, i } = JSON.parse(atob(cursor));
    if (typeof u === 'number' && typeof i === 'string') return { updatedAt: u, id: i };
  } catch {
    // fall through to the error below
  }
  throw badRequest('cursor is not a cursor this service issued.');
}

export async function listThreads(ctx: ServiceContext, request: Request, projectId: string): Promise<Response> {
  const session = await requireSession(ctx, request, requireProject(ctx, projectId));
  const owner = requireOwner(session);
  const params = new URL(request.url).searchParams;
  const limitParam = params.get('limit');
  const limit = limitParam === null ? 20 : Number(limitParam);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest('limit must be an integer from 1 to 100.');
  const cursor = params.get('cursor');
  const page = await ctx.storage.listThreads(projectId, owner, { limit: limit + 1, after: cursor ? decodeCursor(cursor) : undefined });
  const threads = page.slice(0, limit);
  const next = page.length > limit ? encodeCursor(threads[threads.length - 1]) : null;
  return json({ threads: threads.map(threadSummary), next_cursor: next });
}

export async function getThread(ctx: ServiceContext, request: Request, projectId: string, threadId: string): Promise<Response> {
  const session = await requireSession(ctx, request, requireProject(ctx, projectId));
  requireOwner(session);
  const thread = await findThread(ctx, session, threadId);
  return json({
    ...threadSummary(thread),
    messages: thread.messages.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      sources: m.sources,
      created_at: isoMicros(m.createdAt),
      status: m.status,
    })),
  });
}

export async function deleteThread(ctx: ServiceContext, request: Request, projectId: string, threadId: string): Promise<Response> {
  const session = await requireSession(ctx, request, requireProject(ctx, projectId));
  requireOwner(session);
  const thread = await findThread(ctx, session, threadId);
  await ctx.storage.deleteThread(thread.id);
  return new Response(null, { status: 204, headers: { 'Access-Control-Allow-Origin': '*' } });
}
