import { waitExpired } from './answers.js';
import { isoMicros } from './clock.js';
import { type RequestInfo, type ServiceContext, requireProject, requireSession } from './context.js';
import { HttpError, THREAD_ID, badRequest, isRecord, json, noContent, notFound, readJsonBody } from './http.js';
import type { SessionRecord, ThreadCursor, ThreadMeta, ThreadRecord } from './storage.js';

export function threadSummary(thread: ThreadMeta) {
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
export function visibleThread(session: SessionRecord, thread: ThreadMeta): boolean {
  return thread.projectId === session.projectId && thread.owner === session.owner;
}

export async function findThread(ctx: ServiceContext, session: SessionRecord, threadId: string): Promise<ThreadRecord> {
  if (!THREAD_ID.test(threadId)) throw badRequest('thread_id has an unknown format.');
  const thread = await ctx.storage.getThread(threadId);
  if (!thread || !visibleThread(session, thread)) throw notFound('No such thread.');
  return thread;
}

/** Whose reaction counts (§8): the owner across sessions, else the one session. */
export const voterOf = (session: SessionRecord) => (session.owner !== null ? `owner:${session.owner}` : `session:${session.token}`);

function encodeCursor(thread: ThreadMeta): string {
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

export async function listThreads(ctx: ServiceContext, request: Request, info: RequestInfo, projectId: string): Promise<Response> {
  const session = await requireSession(ctx, request, requireProject(ctx, projectId), info);
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

export async function getThread(ctx: ServiceContext, request: Request, info: RequestInfo, projectId: string, threadId: string): Promise<Response> {
  const session = await requireSession(ctx, request, requireProject(ctx, projectId), info);
  requireOwner(session);
  const thread = await findThread(ctx, session, threadId);
  const reactions = await ctx.storage.reactions(thread.id, voterOf(session));
  const now = ctx.clock.now();
  return json({
    ...threadSummary(thread),
    messages: thread.messages.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      sources: m.sources,
      created_at: isoMicros(m.createdAt),
      status: waitExpired(m, now) ? 'stopped' : m.status,
      ...(m.role === 'assistant' && {
        question_answer_id: m.id,
        reaction: reactions.get(m.id) ?? null,
        tool_calls: m.toolCalls.filter((c) => c.status !== 'pending').map((c) => ({
          id: c.id, name: c.name, arguments: c.arguments, status: c.status, ...(c.status === 'error' ? { error: c.error } : { output: c.output }),
        })),
        activity: m.activity,
        ...(m.uncertain && { is_uncertain: true }),
      }),
    })),
  });
}

export async function deleteThread(ctx: ServiceContext, request: Request, info: RequestInfo, projectId: string, threadId: string): Promise<Response> {
  const session = await requireSession(ctx, request, requireProject(ctx, projectId), info);
  requireOwner(session);
  const thread = await findThread(ctx, session, threadId);
  // An answer still generating stops with its thread rather than talking to nobody.
  const live = thread.messages.filter((m) => m.status === 'streaming').map((m) => m.id);
  await ctx.storage.deleteThread(thread.id);
  for (const id of live) void ctx.answers.cancel(id);
  return noContent();
}

/** PATCH …/threads/{id}/ (§10): a new title, 1 to 80 characters after trimming. */
export async function renameThread(ctx: ServiceContext, request: Request, info: RequestInfo, projectId: string, threadId: string): Promise<Response> {
  const session = await requireSession(ctx, request, requireProject(ctx, projectId), info);
  requireOwner(session);
  const body = await readJsonBody(request);
  const title = isRecord(body) && typeof body.title === 'string' ? body.title.replace(/\s+/g, ' ').trim() : '';
  if (title.length < 1 || title.length > 80) throw badRequest('title must be 1 to 80 characters after trimming.');
  await findThread(ctx, session, threadId);
  const renamed = await ctx.storage.renameThread(threadId, title);
  if (!renamed) throw notFound('No such thread.');
  return json(threadSummary(renamed));
}
