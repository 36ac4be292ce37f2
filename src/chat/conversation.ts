import type { ApiClient } from '../api/api-client.js';
import { isAbortError } from '../api/errors.js';
import type { FileInfo, ThreadMessage } from '../api/types.js';
import type { FeedbackComment } from '../../contract/types.js';
import type { ClientTool } from '../public-types.js';
import { answerFailed, outcomeOf } from './answer-accumulator.js';
import {
  AnswerTurn,
  localId,
  newIdempotencyKey,
  type TurnHooks,
  type TurnHost,
  type TurnParts,
} from './answer-turn.js';
import { describeError } from './describe-error.js';
import { reattachDelay } from './reattach.js';
import { ToolRunner, viewOf, type ToolHooks } from './tools.js';
import type { AnswerOutcome, ChatMessage, ConversationSnapshot, Reaction } from './types.js';

export interface ConversationHooks extends TurnHooks, ToolHooks {
  /** A new snapshot. While streaming, at most once per `schedule` tick. */
  onChange(snapshot: ConversationSnapshot): void;
  onAnswerEnd?(detail: {
    threadId: string | null;
    messageId: string;
    outcome: AnswerOutcome;
    text: string;
  }): void;
  onThreadChange?(threadId: string | null): void;
  /** A request of this conversation started (true) or ended, however it ended (false). */
  onBusy?(busy: boolean): void;
  /** The service took the visitor's feedback on an answer. */
  onFeedback?(detail: { questionAnswerId: string; reaction: Reaction }): void;
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

/**
 * One conversation with the agent, without any DOM: sends a turn, streams the answer through
 * the pure reducer, stops, retries, and switches threads. A failure is state on a message
 * (the visitor's text is never dropped), and every request is abortable.
 */
export class Conversation {
  #threadId: string | null = null;
  #messages: ChatMessage[] = [];
  #request?: AbortController;
  #pending = false;
  readonly #schedule: (callback: () => void) => void;
  /** What every request uses (see AnswerTurn). */
  readonly #parts: TurnParts;
  readonly #host: TurnHost = {
    threadId: () => this.#threadId,
    setThread: (threadId) => this.#setThread(threadId),
    replace: (current, next) => this.#replace(current, next),
    setMessages: (update) => void (this.#messages = update(this.#messages)),
    publish: (soon) => (soon ? this.#publishSoon() : this.#publishNow()),
    isCurrent: (controller) => this.#inFlight === controller,
  };
  #shown?: ConversationSnapshot;
  /** The page's tools as this conversation's answers call them; the visitor's Allow / Deny goes here. */
  readonly tools: ToolRunner;

  readonly #api: () => ApiClient;
  readonly #hooks: ConversationHooks;

  constructor(api: () => ApiClient, hooks: ConversationHooks, options: ConversationOptions = {}) {
    this.#api = api;
    this.#hooks = hooks;
    this.#schedule = options.schedule ?? ((callback) => queueMicrotask(callback));
    this.tools = new ToolRunner(hooks);
    this.#parts = {
      api,
      hooks,
      tools: options.tools ?? (() => []),
      locale: options.locale ?? (() => undefined),
      reattachDelay: options.reattachDelay ?? reattachDelay,
      toolRunner: this.tools,
    };
  }

  /** This conversation's request; setting it tells the host when one starts and ends. */
  get #inFlight(): AbortController | undefined {
    return this.#request;
  }

  set #inFlight(next: AbortController | undefined) {
    const busy = next !== undefined;
    const was = this.#request !== undefined;
    this.#request = next;
    if (busy !== was) this.#hooks.onBusy?.(busy);
  }

  /** The last answer, when another tab streams it and this one follows it through the device. */
  get followed(): ChatMessage | undefined {
    const last = this.#messages.at(-1);
    return !this.#request && last?.role === 'assistant' && last.status === 'streaming' ? last : undefined;
  }

  /**
   * Shows what another tab of this device shows (it streams, this tab follows, no request of
   * its own). Ignored while this tab has a request under way: its own writes win.
   */
  follow(threadId: string | null, messages: readonly ChatMessage[]): void {
    if (!this.#request) this.#show(threadId, [...messages]);
  }

  /** The same object until the thread, the messages or the streaming flag change, so views can skip it. */
  get snapshot(): ConversationSnapshot {
    const streaming = this.streaming;
    const last = this.#shown;
    if (last?.threadId === this.#threadId && last.messages === this.#messages && last.streaming === streaming)
      return last;
    this.#shown = { threadId: this.#threadId, messages: this.#messages, streaming };
    return this.#shown;
  }

  /** A request of this tab is under way, or another tab streams the last answer. */
  get streaming(): boolean {
    return this.#request !== undefined || this.followed !== undefined;
  }

  /**
   * Sends `text` (and its files) as a new turn, under a new Idempotency-Key, or the one an earlier
   * send of it had (the outbox's). Resolves when the answer has ended, however it ended.
   */
  async send(text: string, attachments: readonly FileInfo[] = [], idempotencyKey?: string): Promise<void> {
    if (this.#inFlight || (!text.trim() && !attachments.length)) return;
    const question: ChatMessage = {
      id: localId('user'),
      role: 'user',
      content: text,
      sources: [],
      status: 'sending',
      ...(attachments.length ? { attachments } : {}),
      ...asked(idempotencyKey),
    };
    this.#messages = [...this.#messages, question];
    await this.#ask(question);
  }

  /**
   * Tries a failed question, or an answer that errored or broke, again. A question the page sends
   * again itself reads "sending" at once, and goes only if `mayGo` says so (decision 493).
   */
  async retry(messageId: string, mayGo = Promise.resolve(true)): Promise<void> {
    if (this.#inFlight) return;
    const index = this.#messages.findIndex((m) => m.id === messageId);
    const message = this.#messages[index];
    if (!message) return;
    if (message.role === 'user' && message.status === 'failed') {
      const sending = this.#replace(message, { ...message, status: 'sending', error: undefined });
      this.#publishNow();
      const go = await mayGo;
      if (this.#inFlight || !this.#messages.includes(sending)) return;
      if (go) return this.#ask(sending);
      this.#replace(sending, message);
      return this.#publishNow();
    }
    // An answer cut off with its id known is reattached (§9), never asked again.
    if (message.role === 'assistant' && message.status === 'interrupted' && message.questionAnswerId)
      return this.#ask(undefined, message);
    const question = this.#messages
      .slice(0, index)
      .reverse()
      .find((m) => m.role === 'user');
    if (message.role !== 'assistant' || !question) return;
    this.#messages = this.#messages.filter((m) => m !== message);
    // Actions the replaced answer ran are asked for again, and their cards say why.
    const ran = new Set((message.toolCalls ?? []).filter((c) => c.state === 'done').map((c) => c.name));
    // Asked again on purpose: a new key, or the service would answer with the answer replaced.
    return this.#ask(this.#replace(question, { ...question, status: 'sending', ...asked() }), undefined, ran);
  }

  /**
   * Stops the answer: a closed connection no longer stops it on the service (§4), so the
   * cancel call goes first when the answer's id is known; then the request is aborted. An
   * answer another tab streams (followed, no request here) is cancelled the same way: that
   * stops it there too, and that tab writes the end.
   */
  stop(): void {
    const answer = this.followed ?? (this.#inFlight && this.#messages.at(-1));
    if (answer && answer.role === 'assistant' && answer.status === 'streaming' && answer.questionAnswerId)
      this.#api()
        .cancelAnswer(answer.questionAnswerId)
        .catch(() => {
          // Best effort: the answer is stopped on screen either way; the service ends it on its own limit.
        });
    this.#inFlight?.abort();
  }

  /** Starts over (a new conversation) or shows a resumed thread. Aborts any answer in flight. */
  reset(threadId: string | null = null, messages: readonly ChatMessage[] = []): void {
    this.#inFlight?.abort();
    this.#inFlight = undefined;
    this.#show(threadId, withUniqueIds(messages));
  }

  #show(threadId: string | null, messages: ChatMessage[]): void {
    const changed = threadId !== this.#threadId;
    this.#threadId = threadId;
    this.#messages = messages;
    this.#publishNow();
    if (changed) this.#hooks.onThreadChange?.(threadId);
  }

  /**
   * The element left the page (or the page is unloading): the request is dropped without
   * calling cancel and without marking the answer stopped, so a new element can reattach (§9).
   */
  dispose(): void {
    const inFlight = this.#inFlight;
    this.#inFlight = undefined;
    inFlight?.abort();
  }

  /**
   * The visitor's feedback on an answer (wire §8). Shown at once; if the service refuses it, the
   * previous reaction comes back and the failure is reported. Without an answer id (an answer
   * from a service older than §9) there is nothing to send it about.
   */
  async react(
    messageId: string,
    reaction: Reaction,
    comment: FeedbackComment | null = null,
  ): Promise<boolean> {
    const message = this.#messages.find((m) => m.id === messageId);
    const questionAnswerId = message?.questionAnswerId;
    if (!message || !questionAnswerId) return false;
    const previous = message.reaction ?? null;
    this.#setReaction(message, reaction);
    try {
      await this.#api().sendFeedback({ questionAnswerId, reaction, comment });
      // Reasons added to a rating are the same rating: the page hears of it once.
      if (reaction !== previous) this.#hooks.onFeedback?.({ questionAnswerId, reaction });
      return true;
    } catch (error) {
      this.#setReaction(
        this.#messages.find((m) => m.id === messageId),
        previous,
      );
      if (!isAbortError(error)) this.#hooks.onError?.(describeError(error));
      return false;
    }
  }

  /** Asks again for the last answer (it is replaced). */
  regenerate(): Promise<void> {
    const last = this.#messages.at(-1);
    return last?.role === 'assistant' ? this.retry(last.id) : Promise.resolve();
  }

  /**
   * Records on the service that the visitor asked for a person in this thread. Best effort: the
   * handoff itself goes on whatever the answer (an older service may not know the call).
   */
  async reportHandoff(): Promise<void> {
    const [threadId, api] = [this.#threadId, this.#api()];
    if (threadId) await api.reportHandoff(threadId).catch(() => {});
  }

  #setReaction(message: ChatMessage | undefined, reaction: Reaction | null): void {
    if (message?.role !== 'assistant') return;
    this.#replace(message, { ...message, reaction });
    this.#publishNow();
  }

  /**
   * Reattaches (§9) to an answer the service may still be generating: after a reload, a resumed
   * thread, or Retry on an interrupted answer. The question is not asked again; the text is
   * replaced by what the service has, so it continues where it was and shows once.
   */
  async reattach(messageId: string): Promise<void> {
    const answer = this.#messages.find((m) => m.id === messageId);
    if (this.#inFlight || !answer?.questionAnswerId || answer.role !== 'assistant') return;
    return this.#ask(undefined, answer);
  }

  /** One request: opens it, runs it (see AnswerTurn), and tells the host how it ended. */
  async #ask(
    question: ChatMessage | undefined,
    resumed?: ChatMessage,
    ranBefore: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    const turn = new AnswerTurn(this.#host, this.#parts, question, ranBefore);
    this.#inFlight = turn.controller;
    if (resumed) turn.resume(resumed);
    this.#publishNow();
    await turn.run();
    this.#finish(turn);
  }

  /**
   * The request is over, however it ended: the host hears how the answer ended. One that failed
   * before its answer started (a 500, a 429, no session) ends in an error on its question, which
   * shows Retry; a question the outbox took back (offline) has not failed, and is not on screen.
   */
  #finish(turn: AnswerTurn): void {
    if (!turn.current()) return;
    this.#inFlight = undefined;
    this.#publishNow();
    const { answer, question } = turn;
    const ended = answer ?? (question?.status === 'failed' ? question : undefined);
    if (!ended) return;
    if ((ended.status === 'error' || ended.status === 'interrupted') && ended.error)
      this.#hooks.onError?.(ended.error);
    this.#hooks.onAnswerEnd?.({
      threadId: this.#threadId,
      messageId: ended.id,
      outcome: outcomeOf(ended),
      text: answer?.content ?? '',
    });
  }

  #setThread(threadId: string | null): void {
    if (threadId === this.#threadId) return;
    this.#threadId = threadId;
    this.#hooks.onThreadChange?.(threadId);
  }

  /** Swaps one message for its next version and returns the new one. */
  #replace(current: ChatMessage, next: ChatMessage): ChatMessage {
    if (current === next) return next;
    // The streaming answer is last: replace it without walking a long thread on every delta.
    const last = this.#messages.length - 1;
    if (this.#messages[last] === current) this.#messages = [...this.#messages.slice(0, last), next];
    else this.#messages = this.#messages.map((m) => (m === current ? next : m));
    return next;
  }

  #publishNow(): void {
    this.#pending = false;
    this.#hooks.onChange(this.snapshot);
  }

  #publishSoon(): void {
    if (this.#pending) return;
    this.#pending = true;
    this.#schedule(() => {
      if (this.#pending) this.#publishNow();
    });
  }
}

/** A question's send: its key (a new one, unless it is sent again) and when it first went. */
const asked = (idempotencyKey = newIdempotencyKey()) => ({ idempotencyKey, sentAt: Date.now() });

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
    // A failed answer reads as it did live, with Retry (decision 514).
    ...(status === 'error' ? { error: answerFailed() } : {}),
    ...qa,
    ...extras,
    ...(message.attachments?.length ? { attachments: message.attachments } : {}),
  };
}

/**
 * Every message its own id. Earlier versions minted ids that restarted at 1 on every page, so a
 * device may hold a thread where two messages share one; the later one gets a new id.
 */
function withUniqueIds(messages: readonly ChatMessage[]): ChatMessage[] {
  const seen = new Set<string>();
  return messages.map((m) => {
    if (!seen.has(m.id)) return (seen.add(m.id), m);
    return { ...m, id: localId(m.role) };
  });
}
