/** Who may see what: the ownership rules of §5 and decision 7, in one place. */
import { THREAD_ID, ANSWER_ID } from '../kernel/ids.js';
import type { ServiceContext } from './context.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import type { SessionRecord, ThreadMeta, ThreadRecord } from '../storage/types.js';

/** Ownership is checked on what the conversations hold. */
type ConversationContext = ServiceContext<'conversations'>;

export function requireOwner(session: SessionRecord): string {
  if (session.owner === null) {
    throw new HttpError(
      403,
      'session_without_owner',
      'Conversation history needs a session created with an external_owner_id.',
    );
  }
  return session.owner;
}

/**
 * The one ownership check. Another owner's thread is answered exactly like a missing one,
 * so ids cannot be probed. Threads without owner are reachable only from sessions without
 * owner (the id, 128 random bits, is the capability), which keeps an anonymous chat going
 * across a token refresh.
 */
function visibleThread(session: SessionRecord, thread: ThreadMeta): boolean {
  return thread.projectId === session.projectId && thread.owner === session.owner;
}

export async function findThread(
  ctx: ConversationContext,
  session: SessionRecord,
  threadId: string,
  options?: { newest?: number },
): Promise<ThreadRecord> {
  if (!THREAD_ID.test(threadId)) throw badRequest('thread_id has an unknown format.');
  const thread = await ctx.storage.conversations.getThread(threadId, options);
  if (!thread || !visibleThread(session, thread)) throw notFound('No such thread.');
  return thread;
}

/** Whose reaction counts (§8): the owner across sessions, else the one session. */
export const voterOf = (session: SessionRecord) =>
  session.owner !== null ? `owner:${session.owner}` : `session:${session.tokenHash}`;

/** Finds an answer the session may see (the thread rules of §5 and decision 7). */
export async function visibleAnswer(ctx: ConversationContext, session: SessionRecord, answerId: string) {
  if (!ANSWER_ID.test(answerId)) throw notFound('No such answer.');
  const found = await ctx.storage.conversations.getMessage(answerId);
  if (!found || found.message.role !== 'assistant' || !visibleThread(session, found.thread))
    throw notFound('No such answer.');
  return found;
}
