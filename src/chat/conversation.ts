import type { ApiClient } from '../api/api-client.js';
import { ApiError, ProtocolError, isAbortError } from '../api/errors.js';
import type { ChatRequest, StreamEvent, ThreadMessage, ToolCall } from '../api/types.js';
import { applyStreamEvent, outcomeOf, stopAnswer } from './answer-accumulator.js';
import { describeError, errorInfo } from './describe-error.js';
import { REATTACH_ATTEMPTS, backoff, reattachDelay } from './reattach.js';
import { MAX_TOOL_ROUNDS, ToolRunner, toolSpecs, viewOf, type ToolHooks } from './tools.js';
import type { ClientTool } from '../public-types.js';
import { isOffline } from './outbox.js';
import type { AnswerOutcome, ChatMessage, ConversationSnapshot, ErrorInfo, Reaction } from './types.js';

export interface ConversationHooks extends ToolHooks {
  /** A new snapshot. While streaming, at most once per `schedule` tick. */
  onChange(snapshot: ConversationSnapshot): void;
  onAnswerStart?(detail: { threadId: string; messageId: string }): void;
  onAnswerEnd?(detail: {
    threadId: string | null;
    messageId: string;
    outcome: AnswerOutcome;
    text: string;
  }): void;
  onThreadChange?(threadId: string | null): void;
  /** The service no longer knows the thread being continued (deleted, or another owner's). */
  onThreadGone?(threadId: string): void;
  onError?(error: ErrorInfo): void;
  /** A request of this conversation started (true) or ended, however it ended (false). */
  onBusy?(busy: boolean): void;
  /**
   * A question's request failed with the browser offline, before any answer. True: the outbox
   * keeps it, and it leaves the conversation; false: it fails as any other (Retry).
   */
  onOffline?(text: string): boolean;
}

export interface ConversationOptions {
  /** The page's client-side tools (§7), read at every chat call. */
  tools?: () => readonly ClientTool[];
  /** Coalesces streaming updates; the element passes requestAnimationFrame. */
  schedule?: (callback: () => void) => void;
  /** The visitor's language (a BCP 47 tag), read at every chat call. */
  locale?: () => string | undefined;
  /** Milliseconds before reattach attempt `n` (0-based) after a drop; 0.5, 1, 2, 4 s by default. */
  reattachDelay?: (attempt: number) => number;
}

/** One request of the conversation, from opening to finishing: its messages as they change. */
interface Turn {
  controller: AbortController;
  question?: ChatMessage;
  answer?: ChatMessage;
  /** Tools that ran for the answer this one replaces (Regenerate asks again, decision 216). */
  ranBefore: ReadonlySet<string>;
}

let localIds = 0;
const localId = (role: string) => `local-${role}-${++localIds}`;

/**
 * One conversation with the agent, without any DOM: sends a turn, streams the answer through
 * the pure reducer, stops, retries, and switches threads. A failure is state on a message
 * (the visitor's text is never dropped), and every request is abortable.
 */
export class Conversation {
  private threadId: string | null = null;
  private messages: ChatMessage[] = [];
  private request?: AbortController;
  private pending = false;
  private readonly schedule: (callback: () => void) => void;
  private readonly tools: () => readonly ClientTool[];
  private readonly locale: () => string | undefined;
  private readonly reattachDelay: (attempt: number) => number;
  private readonly toolRunner: ToolRunner;
  private shown?: ConversationSnapshot;

  constructor(
    private readonly api: () => ApiClient,
    private readonly hooks: ConversationHooks,
    options: ConversationOptions = {},
  ) {
    this.schedule = options.schedule ?? ((callback) => queueMicrotask(callback));
    this.tools = options.tools ?? (() => []);
    this.locale = options.locale ?? (() => undefined);
    this.reattachDelay = options.reattachDelay ?? reattachDelay;
    this.toolRunner = new ToolRunner(hooks);
  }

  /** The visitor allowed or denied a tool call that asked for approval. */
  decideTool(toolCallId: string, allowed: boolean): void {
    this.toolRunner.decide(toolCallId, allowed);
  }

  /** This conversation's request; setting it tells the host when one starts and ends. */
  private get inFlight(): AbortController | undefined {
    return this.request;
  }

  private set inFlight(next: AbortController | undefined) {
    const busy = next !== undefined;
    const was = this.request !== undefined;
    this.request = next;
    if (busy !== was) this.hooks.onBusy?.(busy);
  }

  /** The last answer, when another tab streams it and this one follows it through the device. */
  get followed(): ChatMessage | undefined {
    const last = this.messages.at(-1);
    return !this.request && last?.role === 'assistant' && last.status === 'streaming' ? last : undefined;
  }

  /**
   * Shows what another tab of this device shows (it streams, this tab follows, no request of
   * its own). Ignored while this tab has a request under way: its own writes win.
   */
  follow(threadId: string | null, messages: readonly ChatMessage[]): void {
    if (this.request) return;
    const changed = threadId !== this.threadId;
    this.threadId = threadId;
    this.messages = [...messages];
    this.publishNow();
    if (changed) this.hooks.onThreadChange?.(threadId);
  }

  /** The same object until the thread, the messages or the streaming flag change, so views can skip it. */
  get snapshot(): ConversationSnapshot {
    const streaming = this.streaming;
    const last = this.shown;
    if (last?.threadId === this.threadId && last.messages === this.messages && last.streaming === streaming)
      return last;
    this.shown = { threadId: this.threadId, messages: this.messages, streaming };
    return this.shown;
  }

  /** A request of this tab is under way, or another tab streams the last answer. */
  get streaming(): boolean {
    return this.request !== undefined || this.followed !== undefined;
  }

  /** Sends `text` as a new turn. Resolves when the answer has ended, however it ended. */
  async send(text: string): Promise<void> {
    if (this.inFlight || !text.trim()) return;
    const question: ChatMessage = {
      id: localId('user'),
      role: 'user',
      content: text,
      sources: [],
      status: 'sending',
    };
    this.messages = [...this.messages, question];
    await this.ask(question);
  }

  /** Tries a failed question, or an answer that errored or broke, again. */
  async retry(messageId: string): Promise<void> {
    if (this.inFlight) return;
    const index = this.messages.findIndex((m) => m.id === messageId);
    const message = this.messages[index];
    if (!message) return;
    if (message.role === 'user' && message.status === 'failed') {
      return this.ask(this.replace(message, { ...message, status: 'sending', error: undefined }));
    }
    // An answer cut off with its id known is reattached (§9), never asked again.
    if (message.role === 'assistant' && message.status === 'interrupted' && message.questionAnswerId)
      return this.ask(undefined, message);
    const question = this.messages
      .slice(0, index)
      .reverse()
      .find((m) => m.role === 'user');
    if (message.role !== 'assistant' || !question) return;
    this.messages = this.messages.filter((m) => m !== message);
    // Actions the replaced answer ran are asked for again, and their cards say why.
    const ran = new Set((message.toolCalls ?? []).filter((c) => c.state === 'done').map((c) => c.name));
    return this.ask(this.replace(question, { ...question, status: 'sending' }), undefined, ran);
  }

  /**
   * Stops the answer: a closed connection no longer stops it on the service (§4), so the
   * cancel call goes first when the answer's id is known; then the request is aborted.
   */
  stop(): void {
    // Streamed by another tab: the cancel stops it there too, and that tab writes the end.
    const followed = this.followed;
    if (followed?.questionAnswerId) {
      this.api()
        .cancelAnswer(followed.questionAnswerId)
        .catch(() => {});
      return;
    }
    const answer = this.messages.at(-1);
    if (
      this.inFlight &&
      answer?.role === 'assistant' &&
      answer.status === 'streaming' &&
      answer.questionAnswerId
    ) {
      this.api()
        .cancelAnswer(answer.questionAnswerId)
        .catch(() => {
          // Best effort: the answer is stopped on screen either way; the service ends it on its own limit.
        });
    }
    this.inFlight?.abort();
  }

  /** Starts over (a new conversation) or shows a resumed thread. Aborts any answer in flight. */
  reset(threadId: string | null = null, messages: readonly ChatMessage[] = []): void {
    this.inFlight?.abort();
    this.inFlight = undefined;
    const changed = threadId !== this.threadId;
    this.threadId = threadId;
    this.messages = [...messages];
    this.publishNow();
    if (changed) this.hooks.onThreadChange?.(threadId);
  }

  /**
   * The element left the page (or the page is unloading): the request is dropped without
   * calling cancel and without marking the answer stopped, so a new element can reattach (§9).
   */
  dispose(): void {
    const inFlight = this.inFlight;
    this.inFlight = undefined;
    inFlight?.abort();
  }

  /** Records the visitor's reaction on an answer (feedback, wire §8); null takes it back. */
  setReaction(messageId: string, reaction: Reaction | null): void {
    const message = this.messages.find((m) => m.id === messageId);
    if (!message || message.role !== 'assistant') return;
    this.replace(message, { ...message, reaction });
    this.publishNow();
  }

  /**
   * Reattaches (§9) to an answer the service may still be generating: after a reload, a resumed
   * thread, or Retry on an interrupted answer. The question is not asked again; the text is
   * replaced by what the service has, so it continues where it was and shows once.
   */
  async reattach(messageId: string): Promise<void> {
    const answer = this.messages.find((m) => m.id === messageId);
    if (this.inFlight || !answer?.questionAnswerId || answer.role !== 'assistant') return;
    return this.ask(undefined, answer);
  }

  /** One request: opens it, consumes its stream (tool rounds, reattaches after a drop), finishes it. */
  private async ask(
    question: ChatMessage | undefined,
    resumed?: ChatMessage,
    ranBefore: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    const turn = this.open(question, resumed, ranBefore);
    try {
      await this.consume(turn);
    } catch (error) {
      if (this.isCurrent(turn)) this.fail(turn, error);
    }
    this.finish(turn);
  }

  /** Starts a turn: this conversation's request from now on; a resumed answer streams again. */
  private open(
    question: ChatMessage | undefined,
    resumed: ChatMessage | undefined,
    ranBefore: ReadonlySet<string>,
  ): Turn {
    const controller = new AbortController();
    this.inFlight = controller;
    const answer = resumed && this.replace(resumed, { ...resumed, status: 'streaming', error: undefined });
    this.publishNow();
    return { controller, question, answer, ranBefore };
  }

  private isCurrent(turn: Turn): boolean {
    return this.inFlight === turn.controller;
  }

  /**
   * Streams the answer round after round: a tool round continues it (§7), a drop reattaches to it
   * (§9) a few times with backoff, only while online; then the answer waits for Retry. Returns
   * early once the turn is no longer current.
   */
  private async consume(turn: Turn): Promise<void> {
    const { signal } = turn.controller;
    let request: ChatRequest | undefined = turn.question && {
      message: turn.question.content,
      threadId: this.threadId,
    };
    let attempts = 0;
    for (let round = 0; ;) {
      const tools = this.tools();
      const calls = await this.stream(turn, request, tools);
      if (!this.isCurrent(turn)) return;
      const answer = turn.answer;
      if (!answer) break;
      if (answer.status === 'interrupted' && answer.questionAnswerId && attempts < REATTACH_ATTEMPTS) {
        await backoff(this.reattachDelay(attempts++), signal);
        if (!this.isCurrent(turn)) return;
        request = undefined;
        continue;
      }
      if (!calls.length || answer.status !== 'streaming') break;
      if (round++ >= MAX_TOOL_ROUNDS) {
        const reason = `The agent asked for more than ${MAX_TOOL_ROUNDS} tool rounds.`;
        turn.answer = this.replace(answer, applyStreamEvent(answer, { type: 'error', reason }));
        break;
      }
      const { threadId, ranBefore } = { threadId: this.threadId, ranBefore: turn.ranBefore };
      const toolResults = await this.toolRunner.run({
        calls,
        tools,
        threadId,
        signal,
        ranBefore,
        answer: () => turn.answer!,
        show: (next) => {
          turn.answer = this.replace(turn.answer!, next);
          this.publishNow();
        },
      });
      if (!this.isCurrent(turn)) return;
      signal.throwIfAborted();
      request = { threadId: this.threadId, toolResults };
    }
    const answer = turn.answer;
    if (answer?.status === 'streaming')
      turn.answer = this.replace(
        answer,
        applyStreamEvent(answer, { type: 'interrupted', reason: 'ended early' }),
      );
    // Nothing started (an empty or broken body): the question was never answered.
    if (!turn.answer) throw new ProtocolError('Sending the message: the answer ended before it started.');
  }

  /**
   * One stream: a question (or a continuation with tool results), or without a request a
   * reattach (§9). Applies its records to the answer and returns the tool calls it paused for.
   */
  private async stream(
    turn: Turn,
    request: ChatRequest | undefined,
    tools: readonly ClientTool[],
  ): Promise<ToolCall[]> {
    const { signal } = turn.controller;
    let calls: ToolCall[] = [];
    // Reattaching replays the answer from its start: hold what is on screen until the replay
    // has caught up, so the text neither blinks nor shows twice.
    let hold = request ? 0 : turn.answer!.content.length;
    const before = turn.answer?.content ?? '';
    const events = request
      ? this.api().chat({ ...request, tools: toolSpecs(tools), locale: this.locale() }, { signal })
      : this.api().reattach(turn.answer!.questionAnswerId!, { signal });
    for await (const event of events) {
      if (!this.isCurrent(turn)) return calls;
      if (event.type === 'start') {
        this.started(turn, event, !request);
        continue;
      }
      const answer = turn.answer;
      if (!answer) continue;
      if (event.type === 'tool_calls') calls = event.calls;
      // The end that follows tool_calls is a pause, not the answer's end.
      if (event.type === 'end' && calls.length) continue;
      turn.answer = this.replace(answer, applyStreamEvent(answer, event));
      if (turn.answer.content.length >= hold) {
        hold = 0;
        if (event.type !== 'end') this.publishSoon();
      }
    }
    const answer = turn.answer;
    if (answer && hold && answer.content.length < hold)
      turn.answer = this.replace(answer, { ...answer, content: before });
    return calls;
  }

  /**
   * The stream started: the question was sent and its answer begins, or (a continuation, §7) the
   * answer goes on, or (a reattach) it starts over.
   */
  private started(turn: Turn, event: Extract<StreamEvent, { type: 'start' }>, reattaching: boolean): void {
    const answer = turn.answer;
    if (answer) {
      if (reattaching)
        turn.answer = this.replace(answer, {
          ...answer,
          content: '',
          sources: [],
          activity: [],
          status: 'streaming',
          error: undefined,
        });
      return;
    }
    turn.question = this.replace(turn.question!, { ...turn.question!, status: 'sent' });
    turn.answer = {
      id: localId('assistant'),
      role: 'assistant',
      content: '',
      sources: [],
      status: 'streaming',
      questionAnswerId: event.questionAnswerId,
    };
    this.messages = [...this.messages, turn.answer];
    this.setThread(event.threadId);
    this.publishNow();
    this.hooks.onAnswerStart?.({ threadId: event.threadId, messageId: turn.answer.id });
  }

  /**
   * The turn failed. Stopped: the answer (or an empty one) says so. The thread is gone: the
   * question alone stays, for Retry in a new thread. Offline before any answer: the outbox may
   * keep the question. Else the failure shows on the answer or the question, with Retry.
   */
  private fail(turn: Turn, error: unknown): void {
    const { answer, question } = turn;
    if (isAbortError(error)) {
      if (answer) turn.answer = this.replace(answer, stopAnswer(answer));
      else {
        turn.question = this.replace(question!, { ...question!, status: 'sent' });
        turn.answer = {
          id: localId('assistant'),
          role: 'assistant',
          content: '',
          sources: [],
          status: 'stopped',
        };
        this.messages = [...this.messages, turn.answer];
      }
    } else if (!answer && this.threadId && error instanceof ApiError && error.status === 404) {
      // The thread is gone. Its messages may be another owner's: only the question stays,
      // and Retry starts a new thread with it.
      const gone = this.threadId;
      const info = { ...errorInfo(describeError(error).code, 'errorThreadGoneRetry', true), status: 404 };
      this.messages = [{ ...question!, status: 'failed', error: info }];
      this.threadId = null;
      this.hooks.onThreadChange?.(null);
      this.hooks.onThreadGone?.(gone);
      this.hooks.onError?.(info);
    } else if (
      !answer &&
      question &&
      !(error instanceof ApiError) &&
      isOffline() &&
      this.hooks.onOffline?.(question.content)
    ) {
      // Offline: the question waits in the outbox (it goes again when the browser is back online).
      this.messages = this.messages.filter((m) => m !== question);
    } else {
      const info = describeError(error);
      if (answer) turn.answer = this.replace(answer, { ...answer, status: 'interrupted', error: info });
      else turn.question = this.replace(question!, { ...question!, status: 'failed', error: info });
      this.hooks.onError?.(info);
    }
  }

  /** The request is over, however it ended: the host hears how the answer ended. */
  private finish(turn: Turn): void {
    if (!this.isCurrent(turn)) return;
    this.inFlight = undefined;
    this.publishNow();
    const { answer } = turn;
    if (!answer) return;
    if ((answer.status === 'error' || answer.status === 'interrupted') && answer.error)
      this.hooks.onError?.(answer.error);
    this.hooks.onAnswerEnd?.({
      threadId: this.threadId,
      messageId: answer.id,
      outcome: outcomeOf(answer),
      text: answer.content,
    });
  }

  private setThread(threadId: string): void {
    if (threadId === this.threadId) return;
    this.threadId = threadId;
    this.hooks.onThreadChange?.(threadId);
  }

  /** Swaps one message for its next version and returns the new one. */
  private replace(current: ChatMessage, next: ChatMessage): ChatMessage {
    if (current === next) return next;
    // The streaming answer is last: replace it without walking a long thread on every delta.
    const last = this.messages.length - 1;
    if (this.messages[last] === current) this.messages = [...this.messages.slice(0, last), next];
    else this.messages = this.messages.map((m) => (m === current ? next : m));
    return next;
  }

  private publishNow(): void {
    this.pending = false;
    this.hooks.onChange(this.snapshot);
  }

  private publishSoon(): void {
    if (this.pending) return;
    this.pending = true;
    this.schedule(() => {
      if (this.pending) this.publishNow();
    });
  }
}

/**
 * A message of a resumed thread, as the conversation shows it. The service stores a tool call's
 * name only; the page's tools give it back the name the visitor saw (`displayName`).
 */
export function fromThreadMessage(message: ThreadMessage, tools: readonly ClientTool[] = []): ChatMessage {
  const status = message.role === 'user' ? 'sent' : message.status;
  const qa = message.question_answer_id
    ? { questionAnswerId: message.question_answer_id, reaction: message.reaction ?? null }
    : {};
  // An answer still generating on the service shows what it has, as interrupted: the session reattaches to it (§9).
  const extras = {
    ...(message.activity?.length ? { activity: message.activity } : {}),
    ...(message.tool_calls?.length
      ? {
          toolCalls: message.tool_calls.map((c) => ({
            ...viewOf(
              c,
              tools.find((tool) => tool.name === c.name),
            ),
            state: c.status === 'completed' ? ('done' as const) : ('error' as const),
            ...(c.error ? { error: c.error } : {}),
          })),
        }
      : {}),
  };
  return {
    id: message.id,
    role: message.role,
    content: message.content,
    sources: message.sources ?? [],
    status: status === 'streaming' ? 'interrupted' : status,
    ...qa,
    ...extras,
  };
}
