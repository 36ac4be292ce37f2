/**
 * What the routes tell a project's webhooks (decisions 612-613): the event is written as a
 * delivery to each webhook that wants it right after what caused it was stored, and sent by the
 * duties. A failure to write it is logged, never the visitor's: their handoff or vote stands.
 */
import { type NotificationFacts, notificationBody } from '../notifications/payload.js';
import type { MessageRecord, NotificationEvent, ThreadRecord } from '../storage/types.js';
import type { ServiceContext } from './context.js';

type NotifyContext = ServiceContext<'notifications' | 'conversations'>;

/** A downvote's delivery waits this long for the reasons and words the visitor may add (decision 613). */
export const DOWNVOTE_WAIT_MS = 60_000;

/** The conversation on the console's Conversations page; null when the service does not know its public URL. */
const conversationLink = (ctx: NotifyContext, projectId: string, threadId: string) =>
  ctx.publicUrl
    ? `${ctx.publicUrl}${ctx.basePath}/console/conversations?${new URLSearchParams({ project: projectId, thread: threadId }).toString()}`
    : null;

/** The last message of `role` among `messages`. */
const lastOf = (messages: MessageRecord[], role: MessageRecord['role']) =>
  messages.reduce<MessageRecord | undefined>((last, m) => (m.role === role ? m : last), undefined);

/** The question an answer answers (the visitor's message before it), or the thread's last question and answer. */
export function exchange(thread: ThreadRecord, answerId?: string): { question?: string; answer?: string } {
  const { messages } = thread;
  const at = answerId ? messages.findIndex((m) => m.id === answerId) : -1;
  if (at < 0)
    return { question: lastOf(messages, 'user')?.content, answer: lastOf(messages, 'assistant')?.content };
  return { question: lastOf(messages.slice(0, at), 'user')?.content, answer: messages[at].content };
}

export interface NotifyInput {
  event: NotificationEvent;
  projectId: string;
  projectName: string;
  /** The thread, or its id: read only when a webhook of the project wants the event. */
  thread: ThreadRecord | string;
  answerId?: string;
  reasons?: string[];
  comment?: string | null;
  failureCode?: string;
  /** One delivery per webhook and key: a handoff per thread, a vote per answer and voter. */
  dedupe: string;
  delayMs?: number;
}

export async function notify(ctx: NotifyContext, input: NotifyInput): Promise<void> {
  const { thread: given, delayMs = 0, dedupe, ...rest } = input;
  try {
    // Most projects have no webhook: their votes and failures cost this one small read.
    const webhooks = await ctx.storage.notifications.listWebhooks(input.projectId);
    if (!webhooks.some((w) => w.events.includes(input.event))) return;
    const thread = typeof given === 'string' ? await ctx.storage.conversations.getThread(given) : given;
    if (!thread) return;
    const at = ctx.clock.now();
    const facts: NotificationFacts = {
      ...rest,
      threadId: thread.id,
      at,
      ...exchange(thread, input.answerId),
      // A failure's stored words (the model server unreachable, the key refused): the code alone
      // sends the channel's reader to the console to learn what to fix.
      failureMessage: input.answerId
        ? thread.messages.find((m) => m.id === input.answerId)?.failure?.message
        : undefined,
      link: conversationLink(ctx, input.projectId, thread.id),
    };
    await ctx.storage.notifications.enqueue({
      projectId: input.projectId,
      event: input.event,
      threadId: thread.id,
      dedupe,
      body: notificationBody(facts),
      at,
      notBefore: at + delayMs,
    });
  } catch (error) {
    ctx.log({
      level: 'error',
      msg: 'notification_not_written',
      event: input.event,
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
}

/**
 * The event's deliveries that have not gone yet are dropped: a downvote the visitor changed to
 * an upvote within its wait no longer stands (decision 629). Like `notify`, a failure is logged,
 * never the visitor's.
 */
export async function withdrawNotification(ctx: NotifyContext, projectId: string, dedupe: string) {
  try {
    await ctx.storage.notifications.withdraw(projectId, dedupe, ctx.clock.now());
  } catch (error) {
    ctx.log({
      level: 'error',
      msg: 'notification_not_withdrawn',
      error: error instanceof Error ? error.name : 'unknown',
    });
  }
}

/**
 * At most one `answer_failed` delivery per webhook in this window: when the model server is
 * down every answer fails, and one message says so as well as a hundred (decision 613).
 */
const FAILURE_WINDOW_MS = 10 * 60_000;

/** An answer failed (whoever stored its end): the project's webhooks that want it hear of it. */
export async function notifyFailure(
  ctx: NotifyContext,
  failed: { project: string; thread: string; answer: string; code: string },
): Promise<void> {
  const project = await ctx.directory.project(failed.project).catch(() => undefined);
  if (!project) return;
  await notify(ctx, {
    event: 'answer_failed',
    projectId: failed.project,
    projectName: project.project.name,
    thread: failed.thread,
    answerId: failed.answer,
    failureCode: failed.code,
    dedupe: `answer_failed:${Math.floor(ctx.clock.now() / FAILURE_WINDOW_MS)}`,
  });
}
