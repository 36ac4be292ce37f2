import { MAX_FEEDBACK_ISSUE_CHARS } from '../../contract/limits.js';
import { isRecord, readJsonBody } from '../http/body.js';
import { type RequestInfo, type ServiceContext, requireProject, requireSession } from './context.js';
import { badRequest, notFound } from '../http/errors.js';
import { THREAD_ID } from '../kernel/ids.js';
import { noContent } from '../http/responses.js';
import { findThread, visibleAnswer, voterOf } from './visibility.js';
import { DOWNVOTE_WAIT_MS, notify, withdrawNotification } from './notify.js';

/**
 * Reactions and handoffs in the conversations; the session (directory) and its rate window
 * (rates); what the project's webhooks are told (notifications).
 */
type FeedbackContext = ServiceContext<'conversations' | 'directory' | 'rates' | 'notifications'>;

const COMMENT_FLAGS = ['incorrect', 'irrelevant', 'unaddressed'] as const;

function parseComment(value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) throw badRequest('comment must be an object or null.');
  const comment: Record<string, unknown> = {};
  for (const flag of COMMENT_FLAGS) {
    if (value[flag] === undefined) continue;
    if (typeof value[flag] !== 'boolean') throw badRequest(`comment.${flag} must be a boolean.`);
    comment[flag] = value[flag];
  }
  if (value.issue !== undefined) {
    if (typeof value.issue !== 'string' || value.issue.length > MAX_FEEDBACK_ISSUE_CHARS)
      throw badRequest('comment.issue must be a string of at most 2,000 characters.');
    comment.issue = value.issue;
  }
  return comment;
}

/** POST …/agent/feedback/ (§8): the caller's latest reaction on an answer it can see. */
export async function feedback(
  ctx: FeedbackContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const project = await requireProject(ctx, projectId);
  const session = await requireSession(ctx, request, project, info);
  const body = await readJsonBody(request);
  if (!isRecord(body)) throw badRequest('The body must be a JSON object.');
  const { question_answer_id: answerId, reaction } = body;
  if (typeof answerId !== 'string') throw badRequest('question_answer_id must be a string.');
  if (reaction !== 'upvote' && reaction !== 'downvote')
    throw badRequest('reaction must be "upvote" or "downvote".');
  const comment = parseComment(body.comment);
  const found = await visibleAnswer(ctx, session, answerId);
  const voter = voterOf(session);
  await ctx.storage.conversations.putFeedback({
    messageId: answerId,
    projectId,
    voter,
    sessionToken: session.tokenHash,
    owner: session.owner,
    integrationId: found.thread.integrationId,
    reaction,
    comment,
    at: ctx.clock.now(),
  });
  // It waits a minute for the reasons and words the widget sends after the vote; each vote with
  // them replaces its body until it is sent (decision 613), and an upvote in that minute drops
  // it: the 👎 no longer stands (decision 629).
  const dedupe = `downvote:${answerId}:${voter}`;
  if (reaction === 'upvote') await withdrawNotification(ctx, projectId, dedupe);
  else
    await notify(ctx, {
      event: 'downvote',
      projectId,
      projectName: project.project.name,
      thread: found.thread.id,
      answerId,
      reasons: COMMENT_FLAGS.filter((flag) => comment?.[flag] === true),
      comment: typeof comment?.issue === 'string' ? comment.issue : null,
      dedupe,
      delayMs: DOWNVOTE_WAIT_MS,
    });
  return noContent();
}

/**
 * POST …/agent/handoff/ `{thread_id}`: the visitor asked for a person in a thread it can see
 * ("Talk to a person"). Kept with the thread (first time only) so the console can find those
 * conversations; the handoff itself (mail, help desk) stays with the page.
 */
export async function handoff(
  ctx: FeedbackContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const project = await requireProject(ctx, projectId);
  const session = await requireSession(ctx, request, project, info);
  const body = await readJsonBody(request);
  const threadId = isRecord(body) ? body.thread_id : undefined;
  if (typeof threadId !== 'string' || !THREAD_ID.test(threadId))
    throw badRequest('thread_id must be a thread id.');
  const thread = await findThread(ctx, session, threadId);
  if (!(await ctx.storage.conversations.markHandoff(threadId, ctx.clock.now())))
    throw notFound('No such thread.');
  // Once per thread: asking again does not page anyone again (the key is the thread's).
  await notify(ctx, {
    event: 'handoff',
    projectId,
    projectName: project.project.name,
    thread,
    dedupe: `handoff:${threadId}`,
  });
  return noContent();
}
