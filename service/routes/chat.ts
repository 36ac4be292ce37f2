import type { ToolResult, ToolSpec } from '../../contract/types.js';
import { roundsOf, waitExpired } from '../answers/replay.js';
import { readJsonBody } from '../http/body.js';
import type { StartAnswer } from '../answers/types.js';
import {
  type RequestInfo,
  type ServiceContext,
  identityOf,
  requireProject,
  requireSession,
} from './context.js';
import { HttpError, badRequest, draining, notFound } from '../http/errors.js';
import { randomId } from '../kernel/ids.js';
import { requireOrigin } from '../http/origins.js';
import { tooMany } from '../http/rate-limiter.js';
import { STREAM_HEADERS } from '../http/responses.js';
import type {
  AnswerStart,
  AskKey,
  AttachmentRecord,
  BeginResult,
  MessageRecord,
  SessionRecord,
  ThreadMeta,
  ToolCallRecord,
} from '../storage/types.js';
import { parseChatBody, titleFrom } from './chat-body.js';
import { chargeAnswer, requireOwnIntegration } from './public-sessions.js';
import { questionFiles, withBytes } from './files.js';
import { findThread } from './visibility.js';
import { answerAsked, askKeyOf } from './idempotency.js';
import { whileSessionHolds } from './stream-guard.js';

/**
 * Questions begun and resumed in the ledger, threads read from the conversations; the session
 * (directory) and its rate window (rates); a public session's answer budget (gate); a
 * question's files (files).
 */
type ChatContext = ServiceContext<'conversations' | 'ledger' | 'directory' | 'rates' | 'gate' | 'files'>;

/**
 * The newest messages a question in an existing thread loads as the agent's history, so a
 * question costs the same in a thread of any length (the whole of a 1,000-message thread took
 * 14-28 ms before the first record). A hundred turns: the model agent's default budget of
 * 8,000 tokens holds fewer unless they average under 40 tokens (decision 253).
 */
const HISTORY_MESSAGES = 200;

/** Array#findLastIndex is ES2023; the service targets ES2022 runtimes. */
function lastIndex<T>(list: readonly T[], test: (item: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i])) return i;
  return -1;
}

const emptyAnswer = (now: number): MessageRecord => ({
  id: randomId('msg'),
  role: 'assistant',
  content: '',
  sources: [],
  createdAt: now,
  updatedAt: now,
  status: 'streaming',
  toolCalls: [],
  activity: [],
  uncertain: false,
});

/** The visitor's question, with its files (§11) when it has any. */
const questionOf = (message: string, files: AttachmentRecord[], now: number): MessageRecord => ({
  ...emptyAnswer(now),
  role: 'user',
  content: message,
  status: 'complete',
  ...(files.length && { attachments: files }),
});

/** Answers generating at once per owner (or address): past the cap, a 429 that says when to try again. */
const CAP_RETRY_AFTER_S = 5;

type Activity = StartAnswer['activity'];

/** The caller's concurrent-answer slots (fleet-wide: they are in the store); an answer's end frees its slot. */
function slotOf(ctx: ChatContext, session: SessionRecord, info: RequestInfo) {
  const cap = ctx.limits.concurrentAnswers;
  return cap === false
    ? undefined
    : { key: `answers\n${session.projectId}\n${identityOf(session, info)}`, cap };
}

/** The key's question began elsewhere and its key is gone again (its thread deleted meanwhile): rare, worth a retry. */
const keyInUse = () =>
  new HttpError(
    409,
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is under way; try again.',
  );

const capReached = (ctx: ChatContext) =>
  tooMany(
    CAP_RETRY_AFTER_S,
    `${ctx.limits.concurrentAnswers} answers are already being generated for you; retry when one has ended.`,
  );

/** The thread a question goes to: the one it names (with its newest messages), or a new one. */
async function threadOf(
  ctx: ChatContext,
  session: SessionRecord,
  body: { integrationId: string; threadId: string | null; message: string },
  now: number,
  files: AttachmentRecord[],
): Promise<{ thread: ThreadMeta; history: MessageRecord[]; newThread: boolean }> {
  if (body.threadId) {
    const { messages, ...thread } = await findThread(ctx, session, body.threadId, {
      newest: HISTORY_MESSAGES,
    });
    return { thread, history: messages, newThread: false };
  }
  const thread = {
    id: randomId('th'),
    projectId: session.projectId,
    integrationId: body.integrationId,
    owner: session.owner,
    // Files alone: their names stand for the question.
    title: titleFrom(body.message.trim() ? body.message : files.map((f) => f.name).join(', ')),
    createdAt: now,
    updatedAt: now,
  };
  return { thread, history: [], newThread: true };
}

/**
 * What an answer's input holds beside the conversation: the visitor's language, and the docs of
 * the question's project when the service keeps a library, the only docs its answer may cite.
 */
const answerContext = (ctx: ChatContext, projectId: string, locale: string | undefined) => ({
  ...(locale && { locale }),
  ...(ctx.docs && { docs: ctx.docs.project(projectId) }),
});

/**
 * POST /agent/v1/projects/{projectId}/agent/chat/: a question (§4) or the results of client
 * tools (§7); both start a model call, so a draining instance refuses them (503, decision 456).
 */
export async function chat(
  ctx: ChatContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  // Before anything is read or written: a balancer, or the visitor's Retry, sends it elsewhere.
  const leave = ctx.answers.admit();
  if (!leave) throw draining();
  try {
    return await admittedChat(ctx, request, info, projectId);
  } finally {
    // Its answer is in flight by now (a drain waits for that), or the request failed.
    leave();
  }
}

async function admittedChat(
  ctx: ChatContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const project = await requireProject(ctx, projectId);
  const session = await requireSession(ctx, request, project, info);
  const body = parseChatBody(await readJsonBody(request), project.integrationIds);
  requireOrigin(project, request, body.integrationId);
  requireOwnIntegration(session, body.integrationId);
  const activity: Activity = {
    projectId,
    sessionToken: session.tokenHash,
    owner: session.owner,
    integrationId: body.integrationId,
  };
  // A continuation is taken exactly once already (resumeAnswer): a key names a question.
  if (body.kind === 'tools')
    return whileSessionHolds(ctx, session, await continueWithTools(ctx, session, info, body, activity));
  const ask = await askKeyOf(request, session, body);
  // A question asked already is answered, not asked again (nor charged, nor its files claimed
  // twice). Looked up first only where something happens before the question's one write (a
  // public budget charged, files taken); elsewhere that write finds the key taken itself, which
  // saves a read for every question (on PGlite 0.7-1.1 ms of CPU and 70 ms of first-record
  // latency at 200 concurrent answers).
  const early =
    ask && (session.integrationId || body.attachments.length) && (await answerAsked(ctx, session, ask));
  if (early) return whileSessionHolds(ctx, session, early);
  // Its files checked before the budget is charged: a question refused for them costs nothing.
  const files = await questionFiles(ctx, session, body.attachments, body);
  const refund = await chargeAnswer(ctx, project, session);
  return whileSessionHolds(
    ctx,
    session,
    await askQuestion(ctx, session, info, { ...body, files }, activity, ask, refund),
  );
}

/** The question's one write; when it begins no answer, a public integration's charge goes back (decision 682). */
async function beginOrRefund(ctx: ChatContext, refund: () => Promise<void>, start: AnswerStart) {
  let begun: BeginResult;
  try {
    begun = await ctx.storage.ledger.beginAnswer(start);
  } catch (error) {
    await refund();
    throw error;
  }
  if (begun !== 'begun') await refund();
  return begun;
}

/** A new question: its thread, both messages and its slot begun in one write, then its answer started. */
async function askQuestion(
  ctx: ChatContext,
  session: SessionRecord,
  info: RequestInfo,
  body: Extract<ReturnType<typeof parseChatBody>, { kind: 'message' }> & { files: AttachmentRecord[] },
  activity: Activity,
  ask: AskKey | undefined,
  refund: () => Promise<void>,
): Promise<Response> {
  const now = ctx.clock.now();
  const { files } = body;
  const { thread, history, newThread } = await threadOf(ctx, session, body, now, files);
  const question = questionOf(body.message, files, now);
  const answer = emptyAnswer(now);
  // One write: a concurrent-answer slot, the key, the thread (when new), both messages and their
  // activity; nothing without a slot or with a key taken, or when the thread was deleted meanwhile.
  const events = [
    ...(newThread ? [{ ...activity, kind: 'thread' as const, at: now }] : []),
    { ...activity, kind: 'message' as const, at: now },
  ];
  const begun = await beginOrRefund(ctx, refund, {
    thread,
    newThread,
    question,
    answer,
    instanceId: ctx.answers.instanceId,
    events,
    slot: slotOf(ctx, session, info),
    ...(ask && { ask }),
  });
  // Another request with the key (on any instance) began the question meanwhile, or before:
  // a repeat finds the owner's answers at their cap when its own answer holds a slot.
  if (ask && (begun === 'asked' || begun === 'cap_reached')) {
    const answered = await answerAsked(ctx, session, ask);
    if (answered) return answered;
    if (begun === 'asked') throw keyInUse();
  }
  if (begun === 'thread_gone') throw notFound('No such thread.');
  if (begun === 'cap_reached') throw capReached(ctx);
  const records = ctx.answers.start({
    thread,
    message: answer,
    input: {
      message: body.message,
      history,
      tools: body.tools,
      rounds: [],
      partial: '',
      ...answerContext(ctx, thread.projectId, body.locale),
      ...(files.length && { attachments: await withBytes(ctx, files) }),
    },
    activity,
  });
  return records.response(STREAM_HEADERS);
}

async function continueWithTools(
  ctx: ChatContext,
  session: SessionRecord,
  info: RequestInfo,
  body: { threadId: string; tools: ToolSpec[]; results: ToolResult[]; locale?: string },
  activity: Activity,
): Promise<Response> {
  const { messages, ...thread } = await findThread(ctx, session, body.threadId, { newest: HISTORY_MESSAGES });
  const index = lastIndex(
    messages,
    (m) =>
      m.role === 'assistant' && m.status === 'streaming' && m.toolCalls.some((c) => c.status === 'pending'),
  );
  const answer = messages[index];
  if (!answer) throw badRequest('No answer of this thread is waiting for tool results.');
  const now = ctx.clock.now();
  if (waitExpired(answer, now)) {
    await ctx.storage.conversations.updateMessage(answer.id, { status: 'stopped', updatedAt: now });
    throw badRequest('The answer stopped waiting for tool results after 10 minutes.');
  }
  const toolCalls = withResults(answer, body.results);
  await resume(ctx, answer, toolCalls, slotOf(ctx, session, info), now);
  answer.toolCalls = toolCalls;
  answer.updatedAt = now;
  const questionAt = lastIndex(messages.slice(0, index), (m) => m.role === 'user');
  // The question's files go with each call of its own answer, never with a later question's.
  const files = messages[questionAt]?.attachments ?? [];
  const records = ctx.answers.start({
    thread,
    message: answer,
    input: {
      message: messages[questionAt]?.content ?? '',
      history: messages.slice(0, Math.max(questionAt, 0)),
      tools: body.tools,
      rounds: roundsOf(answer),
      partial: answer.content,
      ...answerContext(ctx, thread.projectId, body.locale),
      ...(files.length && { attachments: await withBytes(ctx, files) }),
    },
    activity,
  });
  return records.response(STREAM_HEADERS);
}

/** The answer's tool calls with the browser's results: each pending call answered exactly once. */
function withResults(answer: MessageRecord, results: ToolResult[]): ToolCallRecord[] {
  const pending = new Map(answer.toolCalls.filter((c) => c.status === 'pending').map((c) => [c.id, c]));
  const seen = new Set<string>();
  for (const result of results) {
    if (!pending.has(result.tool_call_id) || seen.has(result.tool_call_id))
      throw badRequest(
        `tool_call_id ${result.tool_call_id} is not a pending call of this answer, or is answered twice.`,
      );
    seen.add(result.tool_call_id);
  }
  if (seen.size !== pending.size) throw badRequest('Every pending tool call needs exactly one result.');
  const byId = new Map(results.map((r) => [r.tool_call_id, r]));
  return answer.toolCalls.map((call): ToolCallRecord => {
    const result = byId.get(call.id);
    if (!result) return call;
    return 'error' in result
      ? { ...call, status: 'error', error: result.error }
      : { ...call, status: 'completed', output: result.output };
  });
}

/**
 * Claims the paused answer for this instance with its results: a concurrent-answer slot, then
 * the ledger's resume, which holds exactly once in the whole fleet (the store takes the results
 * only while the pending calls it holds are the ones just checked and no instance generates the
 * answer). Throws when another continuation won, the cap is reached or the thread is gone.
 */
async function resume(
  ctx: ChatContext,
  answer: MessageRecord,
  toolCalls: ToolCallRecord[],
  slot: ReturnType<typeof slotOf>,
  now: number,
): Promise<void> {
  const { ledger } = ctx.storage;
  const taken = slot
    ? await ledger.takeAnswerSlot(slot.key, slot.cap, answer.id, ctx.answers.instanceId, now)
    : 'taken';
  // Another continuation of this answer holds its slot: it is the one that goes on.
  if (taken === 'held') throw badRequest('This answer is already continuing.');
  if (taken === 'cap_reached') throw capReached(ctx);
  let resumed = false;
  try {
    resumed = await ledger.resumeAnswer(answer.id, answer.toolCalls, toolCalls, now, ctx.answers.instanceId);
  } finally {
    if (!resumed && slot) await ledger.releaseAnswerSlot(answer.id);
  }
  if (resumed) return;
  if (!(await ctx.storage.conversations.getMessage(answer.id))) throw notFound('No such thread.');
  throw badRequest('This answer is already continuing.');
}
