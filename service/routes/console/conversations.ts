import { ownerKey } from '../../../contract/owner-key.js';
import type {
  ConsoleFeedback,
  ConsoleOwner,
  ConsoleOwnerErasure,
  ConsoleStaleSource,
  ConsoleThreadDetail,
  ConsoleThreadPage,
} from '../../../contract/console.js';
import { isoMicros, isoMicrosOrNull } from '../../kernel/clock.js';
import type { RequestInfo, ServiceContext } from '../context.js';
import { HttpError, badRequest, notFound } from '../../http/errors.js';
import { THREAD_ID } from '../../kernel/ids.js';
import { json, noContent } from '../../http/responses.js';
import type { ConversationFilter, ConversationSummary, ProjectRecord } from '../../storage/console-types.js';
import { citedPage, pageSince } from '../../storage/types.js';
import type { FeedbackRecord, MessageRecord, StoresOf, ThreadRecord } from '../../storage/types.js';
import { deleteConversation, eraseOwner } from '../erase.js';
import { parseDay } from '../activity.js';
import { type Admin, audit } from './auth.js';
import { fileInfo } from '../files.js';
import { decodeCursor, encodeCursor, limitOf } from '../history.js';
import { adminProject } from './projects.js';

/** Every owner's threads in the conversations; the project (directory) and the admin (accounts). */
export type ConversationsContext = ServiceContext<'conversations' | 'directory' | 'accounts' | 'docs'>;

/** What reading a thread whole takes: the export's command line has no service around it. */
export type ThreadReader = { readonly storage: StoresOf<'conversations' | 'docs'> };

const DAY = 86_400_000;

/**
 * Owners appear only as an opaque key: an HMAC of the owner id under the project's own secret,
 * stable across API key rotations, so one visitor's threads can be told apart from another's
 * without the console ever showing who they are.
 */
const opaqueOwner = (project: ProjectRecord, owner: string | null) => ownerKey(owner, project.ownerSecret);

const flag = (params: URLSearchParams, name: string) =>
  params.get(name) === '1' || params.get(name) === 'true' || undefined;

/** The list's filter from its query: the search, the flags, the integration, the days. */
export function filterOf(params: URLSearchParams): ConversationFilter {
  const start = parseDay(params.get('start'), 'start');
  const end = parseDay(params.get('end'), 'end');
  const q = params.get('q')?.trim();
  if (q && q.length > 200) throw badRequest('The search is longer than 200 characters.');
  return {
    q: q || undefined,
    downvoted: flag(params, 'downvoted'),
    uncertain: flag(params, 'uncertain'),
    handoff: flag(params, 'handoff'),
    error: flag(params, 'error'),
    toolUsed: flag(params, 'tool_used'),
    staleSources: flag(params, 'stale_sources'),
    integrationId: params.get('integration_id') || undefined,
    from: start,
    to: end === undefined ? undefined : end + DAY,
  };
}

/** GET /console/api/projects/{id}/conversations/: every owner's threads, filtered, newest first. */
export async function listConversations(
  ctx: ConversationsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  const params = new URL(request.url).searchParams;
  const limit = limitOf(params, 25);
  const filter = filterOf(params);
  // Searching what visitors wrote is reading it: the words searched for are kept with who did.
  if (filter.q)
    await audit(ctx, info, admin.username, 'conversation.search', project.id, null, { q: filter.q });
  const page = await ctx.storage.conversations.searchThreads(project.id, filter, {
    limit: limit + 1,
    after: decodeCursor(params.get('cursor')),
  });
  const threads = page.slice(0, limit);
  const last = threads[threads.length - 1];
  return json({
    threads: await Promise.all(
      threads.map(async (t) => ({
        id: t.id,
        title: t.title,
        integration_id: t.integrationId,
        owner_key: await opaqueOwner(project, t.owner),
        created_at: isoMicros(t.createdAt),
        updated_at: isoMicros(t.updatedAt),
        messages: t.messages,
        upvotes: t.upvotes,
        downvotes: t.downvotes,
        uncertain: t.uncertain,
        error: t.error,
        tool_used: t.toolUsed,
        stale_sources: t.staleSources,
        handoff_at: isoMicrosOrNull(t.handoffAt),
      })),
    ),
    next_cursor: page.length > limit ? encodeCursor(last) : null,
    retention_days: ctx.conversationRetentionMs > 0 ? ctx.conversationRetentionMs / DAY : null,
  } satisfies ConsoleThreadPage);
}

const feedbackJson = async (project: ProjectRecord, f: FeedbackRecord): Promise<ConsoleFeedback> => ({
  reaction: f.reaction,
  comment: f.comment,
  at: isoMicros(f.at),
  voter_key: f.owner !== null ? await opaqueOwner(project, f.owner) : 'anonymous session',
});

/**
 * Stale sources (decisions 296, 392): for each answer, the cited pages of the project's docs
 * whose content changed, or that left the site, after the answer was written.
 */
async function staleSources(
  ctx: ThreadReader,
  projectId: string,
  messages: MessageRecord[],
): Promise<(message: MessageRecord) => ConsoleStaleSource[]> {
  const changes = await ctx.storage.docs.docPageChanges(projectId, [
    ...new Set(messages.flatMap((m) => m.sources.map((s) => citedPage(s.source_url)))),
  ]);
  return (message) =>
    message.sources.flatMap(({ source_url }): ConsoleStaleSource[] => {
      const page = pageSince(changes.get(citedPage(source_url)), message.createdAt);
      return page ? [{ source_url, page }] : [];
    });
}

/** GET /console/api/projects/{id}/conversations/{thread}/: the whole thread, with sources, tool calls and every reaction. */
export async function getConversation(
  ctx: ConversationsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  threadId: string,
): Promise<Response> {
  const { admin, project, thread } = await adminThread(ctx, request, projectId, threadId);
  await audit(ctx, info, admin.username, 'conversation.read', project.id, thread.id);
  return json(await threadDetail(ctx, project, thread));
}

/**
 * A thread as the console reads it: every message with its sources, tool calls, files and
 * reactions. `summary` is its row of the list when the caller has it (the export), else read.
 */
export async function threadDetail(
  ctx: ThreadReader,
  project: ProjectRecord,
  thread: ThreadRecord,
  summary?: ConversationSummary,
): Promise<ConsoleThreadDetail> {
  summary ??= (
    await ctx.storage.conversations.searchThreads(project.id, { threadId: thread.id }, { limit: 1 })
  )[0];
  const feedback = await ctx.storage.conversations.threadFeedback(thread.id);
  const stale = await staleSources(ctx, project.id, thread.messages);
  return {
    id: thread.id,
    title: thread.title,
    integration_id: thread.integrationId,
    owner_key: await opaqueOwner(project, thread.owner),
    created_at: isoMicros(thread.createdAt),
    updated_at: isoMicros(thread.updatedAt),
    handoff_at: isoMicrosOrNull(summary?.handoffAt ?? null),
    messages: await Promise.all(
      thread.messages.map(async (m) => ({
        id: m.id,
        role: m.role,
        content: m.content,
        status: m.status,
        created_at: isoMicros(m.createdAt),
        sources: m.sources,
        stale_sources: stale(m),
        uncertain: m.uncertain,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          name: c.name,
          arguments: c.arguments,
          round: c.round,
          status: c.status,
          output: c.output,
          error: c.error,
        })),
        activity: m.activity,
        attachments: (m.attachments ?? []).map(fileInfo),
        failure:
          m.status === 'error' && m.failure ? { code: m.failure.code, message: m.failure.message } : null,
        feedback: await Promise.all(
          feedback.filter((f) => f.messageId === m.id).map((f) => feedbackJson(project, f)),
        ),
      })),
    ),
  };
}

/**
 * The signed-in admin, the project and its thread; another project's thread is answered as a
 * missing one (404), so ids cannot be probed.
 */
async function adminThread(
  ctx: ConversationsContext,
  request: Request,
  projectId: string,
  threadId: string,
): Promise<{
  admin: Admin;
  project: ProjectRecord;
  thread: ThreadRecord;
}> {
  const { admin, project } = await adminProject(ctx, request, projectId);
  const thread = THREAD_ID.test(threadId) ? await ctx.storage.conversations.getThread(threadId) : undefined;
  if (!thread || thread.projectId !== project.id) throw notFound('No such conversation.');
  return { admin, project, thread };
}

/**
 * DELETE /console/api/projects/{id}/conversations/{thread}: the thread with its messages, files
 * and reactions, by the visitor's own delete path (an answer still generating stops, decision 600).
 */
export async function deleteConsoleConversation(
  ctx: ConversationsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  threadId: string,
): Promise<Response> {
  const { admin, project, thread } = await adminThread(ctx, request, projectId, threadId);
  if (!(await deleteConversation(ctx.storage, (ids) => ctx.answers.stopDeleted(ids), thread)))
    throw notFound('No such conversation.');
  await audit(ctx, info, admin.username, 'conversation.delete', project.id, thread.id);
  return noContent();
}

/** The thread's owner: a public or anonymous visitor's thread has none to erase (decision 602). */
async function ownerOf(ctx: ConversationsContext, request: Request, projectId: string, threadId: string) {
  const { admin, project, thread } = await adminThread(ctx, request, projectId, threadId);
  if (thread.owner === null)
    throw new HttpError(
      409,
      'no_owner',
      'This conversation has no owner (a public or anonymous visitor): delete the conversation instead.',
    );
  return { admin, project, owner: thread.owner, ownerKey: await opaqueOwner(project, thread.owner) };
}

/** GET …/conversations/{thread}/owner: how many conversations erasing the thread's owner deletes. */
export async function getConversationOwner(
  ctx: ConversationsContext,
  request: Request,
  _info: RequestInfo,
  projectId: string,
  threadId: string,
): Promise<Response> {
  const { project, owner, ownerKey: key } = await ownerOf(ctx, request, projectId, threadId);
  const conversations = await ctx.storage.conversations.countOwnerThreads(project.id, owner);
  return json({ owner_key: key, conversations } satisfies ConsoleOwner);
}

/**
 * DELETE …/conversations/{thread}/owner: everything held for the thread's owner (decision 601).
 * The audit entry names them by their opaque key, never their id.
 */
export async function eraseConversationOwner(
  ctx: ConversationsContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
  threadId: string,
): Promise<Response> {
  const { admin, project, owner, ownerKey: key } = await ownerOf(ctx, request, projectId, threadId);
  const erased = await eraseOwner(ctx.storage, (ids) => ctx.answers.stopDeleted(ids), project.id, owner);
  await audit(ctx, info, admin.username, 'owner.erase', project.id, key, { ...erased });
  return json({ owner_key: key, ...erased } satisfies ConsoleOwnerErasure);
}
