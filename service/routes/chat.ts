import {
  MAX_LOCALE_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_TITLE_CHARS,
  MAX_TOOL_DESCRIPTION_CHARS,
  MAX_TOOLS,
  TOOL_NAME,
} from '../../contract/limits.js';
import type { ToolResult, ToolSpec } from '../../contract/types.js';
import { roundsOf, waitExpired } from '../answers/replay.js';
import { isRecord, readJsonBody } from '../http/body.js';
import type { StartAnswer } from '../answers/types.js';
import {
  type RequestInfo,
  type ServiceContext,
  identityOf,
  requireProject,
  requireSession,
} from './context.js';
import { HttpError, badRequest, notFound } from '../http/errors.js';
import { randomId } from '../kernel/ids.js';
import { requireOrigin } from '../http/origins.js';
import { tooMany } from '../http/rate-limiter.js';
import { STREAM_HEADERS } from '../http/responses.js';
import type { MessageRecord, SessionRecord, ThreadMeta, ToolCallRecord } from '../storage/types.js';
import { findThread } from './visibility.js';

/** Questions begun and resumed in the ledger, threads read from the conversations; the session (directory) and its rate window (rates). */
type ChatContext = ServiceContext<'conversations' | 'ledger' | 'directory' | 'rates'>;

/**
 * The newest messages a question in an existing thread loads as the agent's history, so a
 * question costs the same in a thread of any length (the whole of a 1,000-message thread took
 * 14-28 ms before the first record). A hundred turns: the model agent's default budget of
 * 8,000 tokens holds fewer unless they average under 40 tokens (decision 253).
 */
const HISTORY_MESSAGES = 200;

export function titleFrom(message: string): string {
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return oneLine.length <= MAX_TITLE_CHARS ? oneLine : `${oneLine.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…`;
}

function parseTools(value: unknown): ToolSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_TOOLS)
    throw badRequest(`tools must be an array of at most ${MAX_TOOLS} tools.`);
  const names = new Set<string>();
  return value.map((tool, i) => {
    if (!isRecord(tool)) throw badRequest(`tools[${i}] must be an object.`);
    const { name, description, parameters } = tool;
    if (typeof name !== 'string' || !TOOL_NAME.test(name) || names.has(name))
      throw badRequest(`tools[${i}].name must match ${TOOL_NAME.source} and be unique.`);
    if (typeof description !== 'string' || description.length > MAX_TOOL_DESCRIPTION_CHARS)
      throw badRequest(
        `tools[${i}].description must be a string of at most ${MAX_TOOL_DESCRIPTION_CHARS} characters.`,
      );
    if (!isRecord(parameters)) throw badRequest(`tools[${i}].parameters must be a JSON Schema object.`);
    names.add(name);
    return { name, description, parameters };
  });
}

function parseToolResults(value: unknown): ToolResult[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 64)
    throw badRequest('tool_results must be a non-empty array.');
  return value.map((result, i) => {
    if (!isRecord(result) || typeof result.tool_call_id !== 'string')
      throw badRequest(`tool_results[${i}].tool_call_id must be a string.`);
    const hasOutput = 'output' in result;
    const hasError = 'error' in result;
    if (hasOutput === hasError) throw badRequest(`tool_results[${i}] needs exactly one of output and error.`);
    if (hasError && typeof result.error !== 'string')
      throw badRequest(`tool_results[${i}].error must be a string.`);
    return hasError
      ? { tool_call_id: result.tool_call_id, error: result.error as string }
      : { tool_call_id: result.tool_call_id, output: result.output };
  });
}

/** The visitor's language (§4, version 3): a well-formed BCP 47 tag, in its canonical form. */
function parseLocale(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const invalid = () =>
    badRequest(
      `locale must be a BCP 47 language tag (like "de" or "pt-BR") of at most ${MAX_LOCALE_CHARS} characters.`,
    );
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_LOCALE_CHARS) throw invalid();
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    throw invalid();
  }
}

function parseChatBody(body: unknown, integrationIds: string[]) {
  if (!isRecord(body)) throw badRequest('The body must be a JSON object.');
  const { integration_id: integrationId, message, thread_id: threadId, tool_results: toolResults } = body;
  if (typeof integrationId !== 'string' || !integrationIds.includes(integrationId))
    throw badRequest('integration_id is missing or unknown.');
  if (threadId !== undefined && threadId !== null && typeof threadId !== 'string')
    throw badRequest('thread_id must be a string or null.');
  const tools = parseTools(body.tools);
  const locale = parseLocale(body.locale);
  if (toolResults !== undefined) {
    if (message !== undefined) throw badRequest('Send either message or tool_results, not both.');
    if (typeof threadId !== 'string') throw badRequest('tool_results need the thread_id of the answer.');
    return {
      kind: 'tools' as const,
      integrationId,
      threadId,
      tools,
      locale,
      results: parseToolResults(toolResults),
    };
  }
  if (typeof message !== 'string') throw badRequest('message must be a string.');
  if (message.length > MAX_MESSAGE_CHARS)
    throw new HttpError(413, 'payload_too_large', `message is longer than ${MAX_MESSAGE_CHARS} characters.`);
  if (!message.trim()) throw badRequest('message is empty.');
  return { kind: 'message' as const, integrationId, message, threadId: threadId ?? null, tools, locale };
}

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

const capReached = (ctx: ChatContext) =>
  tooMany(
    CAP_RETRY_AFTER_S,
    `${ctx.limits.concurrentAnswers} answers are already being generated for you; retry when one has ended.`,
  );

/** POST /agent/v1/projects/{projectId}/agent/chat/: a question (§4) or the results of client tools (§7). */
export async function chat(
  ctx: ChatContext,
  request: Request,
  info: RequestInfo,
  projectId: string,
): Promise<Response> {
  const project = await requireProject(ctx, projectId);
  const session = await requireSession(ctx, request, project, info);
  const body = parseChatBody(await readJsonBody(request), project.integrationIds);
  requireOrigin(project, request, body.integrationId);
  const activity: Activity = {
    projectId,
    sessionToken: session.tokenHash,
    owner: session.owner,
    integrationId: body.integrationId,
  };
  if (body.kind === 'tools') return continueWithTools(ctx, session, info, body, activity);

  const now = ctx.clock.now();
  let thread: ThreadMeta;
  let history: MessageRecord[] = [];
  const newThread = !body.threadId;
  if (body.threadId) {
    const found = await findThread(ctx, session, body.threadId, { newest: HISTORY_MESSAGES });
    ({ messages: history, ...thread } = found);
  } else {
    thread = {
      id: randomId('th'),
      projectId,
      integrationId: body.integrationId,
      owner: session.owner,
      title: titleFrom(body.message),
      createdAt: now,
      updatedAt: now,
    };
  }
  const question: MessageRecord = {
    ...emptyAnswer(now),
    id: randomId('msg'),
    role: 'user',
    content: body.message,
    status: 'complete',
  };
  const answer = emptyAnswer(now);
  // One write: a concurrent-answer slot, the thread (when new), both messages and their
  // activity; nothing without a slot, or when the thread was deleted meanwhile.
  const events = [
    ...(newThread ? [{ ...activity, kind: 'thread' as const, at: now }] : []),
    { ...activity, kind: 'message' as const, at: now },
  ];
  const begun = await ctx.storage.ledger.beginAnswer({
    thread,
    newThread,
    question,
    answer,
    instanceId: ctx.answers.instanceId,
    events,
    slot: slotOf(ctx, session, info),
  });
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
      ...(body.locale && { locale: body.locale }),
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
  const pending = new Map(answer.toolCalls.filter((c) => c.status === 'pending').map((c) => [c.id, c]));
  const seen = new Set<string>();
  for (const result of body.results) {
    if (!pending.has(result.tool_call_id) || seen.has(result.tool_call_id))
      throw badRequest(
        `tool_call_id ${result.tool_call_id} is not a pending call of this answer, or is answered twice.`,
      );
    seen.add(result.tool_call_id);
  }
  if (seen.size !== pending.size) throw badRequest('Every pending tool call needs exactly one result.');
  const byId = new Map(body.results.map((r) => [r.tool_call_id, r]));
  const toolCalls = answer.toolCalls.map((call): ToolCallRecord => {
    const result = byId.get(call.id);
    if (!result) return call;
    return 'error' in result
      ? { ...call, status: 'error', error: result.error }
      : { ...call, status: 'completed', output: result.output };
  });
  const slot = slotOf(ctx, session, info);
  const taken = slot
    ? await ctx.storage.ledger.takeAnswerSlot(slot.key, slot.cap, answer.id, ctx.answers.instanceId, now)
    : 'taken';
  // Another continuation of this answer holds its slot: it is the one that goes on.
  if (taken === 'held') throw badRequest('This answer is already continuing.');
  if (taken === 'cap_reached') throw capReached(ctx);
  // Exactly once, in the whole fleet: the store takes the results only while the pending calls
  // it holds are the ones just checked and no instance generates the answer.
  let resumed = false;
  try {
    resumed = await ctx.storage.ledger.resumeAnswer(
      answer.id,
      answer.toolCalls,
      toolCalls,
      now,
      ctx.answers.instanceId,
    );
  } finally {
    if (!resumed && slot) await ctx.storage.ledger.releaseAnswerSlot(answer.id);
  }
  if (!resumed) {
    if (!(await ctx.storage.conversations.getMessage(answer.id))) throw notFound('No such thread.');
    throw badRequest('This answer is already continuing.');
  }
  answer.toolCalls = toolCalls;
  answer.updatedAt = now;
  const questionAt = lastIndex(messages.slice(0, index), (m) => m.role === 'user');
  const records = ctx.answers.start({
    thread,
    message: answer,
    input: {
      message: messages[questionAt]?.content ?? '',
      history: messages.slice(0, Math.max(questionAt, 0)),
      tools: body.tools,
      rounds: roundsOf(answer),
      partial: answer.content,
      ...(body.locale && { locale: body.locale }),
    },
    activity,
  });
  return records.response(STREAM_HEADERS);
}
