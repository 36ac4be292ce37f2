import { MAX_TITLE_CHARS } from '../../contract/limits.js';
import { waitExpired } from '../answers/replay.js';
import { isRecord, readJsonBody } from '../http/body.js';
import { isoMicros } from '../kernel/clock.js';
import { type RequestInfo, type ServiceContext, requireProject, requireSession } from './context.js';
import { badRequest, notFound } from '../http/errors.js';
import { json, noContent } from '../http/responses.js';
import type { ThreadCursor, ThreadMeta } from '../storage/types.js';
import { deleteConversation } from './erase.js';
import { fileInfo } from './files.js';
import { findThread, requireOwner, voterOf } from './visibility.js';

/** Threads in the conversations; the session (directory) and its rate window (rates). */
type HistoryContext = ServiceContext<'conversations' | 'directory' | 'rates'>;

function threadSummary(thread: ThreadMeta) {
  return {
    id: thread.id,
    title: thread.title,
    created_at: isoMicros(thread.createdAt),
    updated_at: isoMicros(thread.updatedAt),
  };
}

/** Characters of plain text in a listed thread's `preview`. */
export const PREVIEW_CHARS = 140;

/**
 * The start of an answer as one line of plain words for a list row: Markdown marks, link
 * targets and code fences go, whitespace folds, and it is cut at a word near PREVIEW_CHARS.
 */
export function previewText(markdown: string): string {
  const text = markdown
    .replace(/```[^\n]*\n?/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, '')
    .replace(/[*`~|]+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= PREVIEW_CHARS) return text;
  const cut = text.slice(0, PREVIEW_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), PREVIEW_CHARS - 20)).trimEnd()}…`;
}

/** The cursor after a thread, in a list newest first: the visitor's history and the console's. */
export function encodeCursor(thread: Pick<ThreadMeta, 'updatedAt' | 'id'>): string {
  return btoa(JSON.stringify({ u: thread.updatedAt, i: thread.id })).replace(/=+$/, '');
}

/** A cursor `encodeCursor` made; none for an absent or empty one. */
export function decodeCursor(cursor: string | null): ThreadCursor | undefined {
  if (!cursor) return undefined;
  try {
    const { u, i } = JSON.parse(atob(cursor));
    if (typeof u === 'number' && typeof i === 'string') return { updatedAt: u, id: i };
  } catch {
    // fall through to the error below
  }
  throw badRequest('cursor is not a cursor this service issued.');
}

/** A list's `limit`: 1 to 100, `fallback` when the query names none. */
export function limitOf(params: URLSearchParams, fallback: number): number {
  const limit = Number(params.get('limit') ?? fallback);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw badRequest('limit must be an integer from 1 to 100.');
  return limit;
}

export async function listThreads(
  ctx: HistoryContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  const owner = requireOwner(session);
  const params = new URL(request.url).searchParams;
  const limit = limitOf(params, 20);
  const page = await ctx.storage.conversations.listThreads(projectId, owner, {
    limit: limit + 1,
    after: decodeCursor(params.get('cursor')),
  });
  const threads = page.slice(0, limit);
  const next = page.length > limit ? encodeCursor(threads[threads.length - 1]) : null;
  return json({
    threads: threads.map((t) => ({ ...threadSummary(t), preview: previewText(t.preview) })),
    next_cursor: next,
  });
}

export async function getThread(
  ctx: HistoryContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  threadId: string,
): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  requireOwner(session);
  const thread = await findThread(ctx, session, threadId);
  const reactions = await ctx.storage.conversations.reactions(thread.id, voterOf(session));
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
      ...(m.attachments?.length && { attachments: m.attachments.map(fileInfo) }),
      ...(m.role === 'assistant' && {
        question_answer_id: m.id,
        reaction: reactions.get(m.id) ?? null,
        tool_calls: m.toolCalls
          .filter((c) => c.status !== 'pending')
          .map((c) => ({
            id: c.id,
            name: c.name,
            arguments: c.arguments,
            status: c.status,
            ...(c.status === 'error' ? { error: c.error } : { output: c.output }),
          })),
        activity: m.activity,
        ...(m.uncertain && { is_uncertain: true }),
      }),
    })),
  });
}

export async function deleteThread(
  ctx: HistoryContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  threadId: string,
): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  requireOwner(session);
  const thread = await findThread(ctx, session, threadId);
  await deleteConversation(ctx.storage, (ids) => ctx.answers.stopDeleted(ids), thread);
  return noContent();
}

/** PATCH …/threads/{id}/ (§10): a new title, 1 to 80 characters after trimming. */
export async function renameThread(
  ctx: HistoryContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  threadId: string,
): Promise<Response> {
  const session = await requireSession(ctx, request, await requireProject(ctx, projectId), info);
  requireOwner(session);
  const body = await readJsonBody(request);
  const title =
    isRecord(body) && typeof body.title === 'string' ? body.title.replace(/\s+/g, ' ').trim() : '';
  if (title.length < 1 || title.length > MAX_TITLE_CHARS)
    throw badRequest(`title must be 1 to ${MAX_TITLE_CHARS} characters after trimming.`);
  await findThread(ctx, session, threadId);
  const renamed = await ctx.storage.conversations.renameThread(threadId, title);
  if (!renamed) throw notFound('No such thread.');
  return json(threadSummary(renamed));
}
