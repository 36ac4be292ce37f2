import type { ApiClient } from '../api/api-client.js';
import { ApiError, ProtocolError, isAbortError } from '../api/errors.js';
import type { ThreadMessage } from '../api/types.js';
import { applyStreamEvent, outcomeOf, stopAnswer } from './answer-accumulator.js';
import { describeError, errorInfo } from './describe-error.js';
import type { AnswerOutcome, ChatMessage, ConversationSnapshot, ErrorInfo, Reaction } from './types.js';

export interface ConversationHooks {
  /** A new snapshot. While streaming, at most once per `schedule` tick. */
  onChange(snapshot: ConversationSnapshot): void;
  onAnswerStart?(detail: { threadId: string; messageId: string }): void;
  onAnswerEnd?(detail: { threadId: string | null; messageId: string; outcome: AnswerOutcome; text: string }): void;
  onThreadChange?(threadId: string | null): void;
  /** The service no longer knows the thread being continued (deleted, or another owner's). */
  onThreadGone?(threadId: string): void;
  onError?(error: ErrorInfo): void;
}

export interface ConversationOptions {
  /** Coalesces streaming updates; the element passes requestAnimationFrame. */
  schedule?: (callback: () => void) => void;
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
  private inFlight?: AbortController;
  private pending = false;
  private readonly schedule: (callback: () => void) => void;

  constructor(
    private readonly api: () => ApiClient,
    private readonly hooks: ConversationHooks,
    options: ConversationOptions = {},
  ) {
    this.schedule = options.schedule ?? ((callback) => queueMicrotask(callback));
  }

  get snapshot(): ConversationSnapshot {
    return { threadId: this.threadId, messages: this.messages, streaming: this.inFlight !== undefined };
  }

  get streaming(): boolean {
    return this.inFlight !== undefined;
  }

  /** Sends `text` as a new turn. Resolves when the answer has ended, however it ended. */
  async send(text: string): Promise<void> {
    if (this.inFlight || !text.trim()) return;
    const question: ChatMessage = { id: localId('user'), role: 'user', content: text, sources: [], status: 'sending' };
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
    const question = this.messages.slice(0, index).reverse().find((m) => m.role === 'user');
    if (message.role !== 'assistant' || !question) return;
    this.messages = this.messages.filter((m) => m !== message);
    return this.ask(this.replace(question, { ...question, status: 'sending' }));
  }

  /**
   * Stops the answer: a closed connection no longer stops it on the service (§4), so the
   * cancel call goes first when the answer's id is known; then the request is aborted.
   */
  stop(): void {
    const answer = this.messages.at(-1);
    if (this.inFlight && answer?.role === 'assistant' && answer.status === 'streaming' && answer.questionAnswerId) {
      this.api().cancelAnswer(answer.questionAnswerId).catch(() => {
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

  dispose(): void {
    this.inFlight?.abort();
  }

  /** Records the visitor's reaction on an answer (feedback, wire §8); null takes it back. */
  setReaction(messageId: string, reaction: Reaction | null): void {
    const message = this.messages.find((m) => m.id === messageId);
    if (!message || message.role !== 'assistant') return;
    this.replace(message, { ...message, reaction });
    this.publishNow();
  }

  private async ask(question: ChatMessage): Promise<void> {
    const controller = new AbortController();
    this.inFlight = controller;
    this.publishNow();
    let answer: ChatMessage | undefined;
    const isCurrent = () => this.inFlight === controller;
    try {
      const events = this.api().chat({ message: question.content, threadId: this.threadId }, { signal: controller.signal });
      for await (const event of events) {
        if (!isCurrent()) return;
        if (event.type === 'start') {
          question = this.replace(question, { ...question, status: 'sent' });
          answer = { id: localId('assistant'), role: 'assistant', content: '', sources: [], status: 'streaming', questionAnswerId: event.questionAnswerId };
          this.messages = [...this.messages, answer];
          this.setThread(event.threadId);
          this.publishNow();
          this.hooks.onAnswerStart?.({ threadId: event.threadId, messageId: answer.id });
          continue;
        }
        if (!answer) continue;
        answer = this.replace(answer, applyStreamEvent(answer, event));
        if (event.type === 'delta' || event.type === 'sources') this.publishSoon();
      }
      if (answer?.status === 'streaming') answer = this.replace(answer, applyStreamEvent(answer, { type: 'interrupted', reason: 'ended early' }));
      // Nothing started (an empty or broken body): the question was never answered.
      if (!answer) throw new ProtocolError('Sending the message: the answer ended before it started.');
    } catch (error) {
      if (!isCurrent()) return;
      if (isAbortError(error)) {
        if (answer) answer = this.replace(answer, stopAnswer(answer));
        else {
          question = this.replace(question, { ...question, status: 'sent' });
          answer = { id: localId('assistant'), role: 'assistant', content: '', sources: [], status: 'stopped' };
          this.messages = [...this.messages, answer];
        }
      } else if (!answer && this.threadId && error instanceof ApiError && error.status === 404) {
        // The thread is gone. Its messages may be another owner's: only the question stays,
        // and Retry starts a new thread with it.
        const gone = this.threadId;
        const info = { ...errorInfo(describeError(error).code, 'errorThreadGoneRetry', true), status: 404 };
        question = { ...question, status: 'failed', error: info };
        this.messages = [question];
        this.threadId = null;
        this.hooks.onThreadChange?.(null);
        this.hooks.onThreadGone?.(gone);
        this.hooks.onError?.(info);
      } else {
        const info = describeError(error);
        if (answer) answer = this.replace(answer, { ...answer, status: 'interrupted', error: info });
        else question = this.replace(question, { ...question, status: 'failed', error: info });
        this.hooks.onError?.(info);
      }
    }
    if (!isCurrent()) return;
    this.inFlight = undefined;
    this.publishNow();
    if (answer) {
      if ((answer.status === 'error' || answer.status === 'interrupted') && answer.error) this.hooks.onError?.(answer.error);
      this.hooks.onAnswerEnd?.({ threadId: this.threadId, messageId: answer.id, outcome: outcomeOf(answer), text: answer.content });
    }
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

/** A message of a resumed thread, as the conversation shows it. */
export function fromThreadMessage(message: ThreadMessage): ChatMessage {
  const status = message.role === 'user' ? 'sent' : message.status;
  const qa = message.question_answer_id ? { questionAnswerId: message.question_answer_id, reaction: message.reaction ?? null } : {};
  // An answer still generating on the service shows what it has; reattaching (§9) is a later step.
  return { id: message.id, role: message.role, content: message.content, sources: message.sources ?? [], status: status === 'streaming' ? 'interrupted' : status, ...qa };
}
