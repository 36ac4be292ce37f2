import type { ApiClient } from '../api/api-client.js';
import { ApiError, NetworkError, ProtocolError, isAbortError } from '../api/errors.js';
import type { ChatRequest, FileInfo, StreamEvent, ToolCall } from '../api/types.js';
import type { ClientTool } from '../public-types.js';
import { applyStreamEvent, stopAnswer } from './answer-accumulator.js';
import { describeError, errorInfo } from './describe-error.js';
import { isOffline } from './outbox.js';
import { REATTACH_ATTEMPTS, backoff } from './reattach.js';
import { MAX_TOOL_ROUNDS, toolSpecs, type ToolRunner } from './tools.js';
import type { ChatMessage, ErrorInfo } from './types.js';

export interface TurnHooks {
  onAnswerStart?(detail: { threadId: string; messageId: string }): void;
  /** The service no longer knows the thread being continued (deleted, or another owner's). */
  onThreadGone?(threadId: string): void;
  onError?(error: ErrorInfo): void;
  /**
   * A question's request failed with the browser offline, before any answer. True: the outbox
   * keeps it (with its key: the request may have arrived), and it leaves the conversation; false:
   * it fails as any other (Retry).
   */
  onOffline?(text: string, attachments: readonly FileInfo[], idempotencyKey?: string): boolean;
}

/** The conversation as one of its requests sees it: the thread it asks in, the messages it changes. */
export interface TurnHost {
  threadId(): string | null;
  /** The conversation moves to the thread the answer named, or to none (the thread is gone). */
  setThread(threadId: string | null): void;
  /** Swaps one message for its next version and returns the new one. */
  replace(current: ChatMessage, next: ChatMessage): ChatMessage;
  /** Replaces the list of messages. */
  setMessages(update: (messages: readonly ChatMessage[]) => ChatMessage[]): void;
  /** Shows the change now, or (while text streams) at the next scheduled moment. */
  publish(soon?: boolean): void;
  /** Whether this request is still the conversation's (not stopped by a reset or a new page). */
  isCurrent(controller: AbortController): boolean;
}

/** What every request of a conversation uses. */
export interface TurnParts {
  api: () => ApiClient;
  tools: () => readonly ClientTool[];
  locale: () => string | undefined;
  reattachDelay: (attempt: number) => number;
  toolRunner: ToolRunner;
  hooks: TurnHooks;
}

/**
 * Unique across page loads, not only within one: the device keeps this page's ids, and the next
 * page restores them beside its own. A counter alone restarted at 1 there, so a new question
 * took the id of a restored one, and a reattach or Retry by id found the older message.
 */
const pageLoad = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let localIds = 0;
export const localId = (role: string) => `local-${role}-${pageLoad}-${++localIds}`;

/**
 * A question's Idempotency-Key (decision 453): 128 random bits, hex. getRandomValues works on
 * any page; randomUUID only in secure contexts, and a site may be served over plain http.
 */
export const newIdempotencyKey = (): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

/** The service was not reached: no connection, or a proxy's gateway error (decision 587). */
const unreachable = (error: unknown): boolean =>
  error instanceof NetworkError || (error instanceof ApiError && error.status >= 502 && error.status <= 504);

/**
 * One request of a conversation, from the question (or the answer it reattaches to) to how the
 * answer ended: it consumes the stream round after round (a tool round continues the answer, a
 * drop reattaches to it) and turns a failure into state on a message. No DOM.
 */
export class AnswerTurn {
  readonly #controller = new AbortController();
  #answer?: ChatMessage;

  readonly #host: TurnHost;
  readonly #parts: TurnParts;
  #question: ChatMessage | undefined;
  /** Tools that ran for the answer this one replaces (Regenerate asks again, decision 216). */
  readonly #ranBefore: ReadonlySet<string>;

  constructor(
    host: TurnHost,
    parts: TurnParts,
    question: ChatMessage | undefined,
    ranBefore: ReadonlySet<string>,
  ) {
    this.#host = host;
    this.#parts = parts;
    this.#question = question;
    this.#ranBefore = ranBefore;
  }

  /** This request's; aborting it stops the answer. */
  get controller(): AbortController {
    return this.#controller;
  }

  /** The question this request asked (none for a reattach or a continuation). */
  get question(): ChatMessage | undefined {
    return this.#question;
  }

  /** The answer as it stands (none before the stream started). */
  get answer(): ChatMessage | undefined {
    return this.#answer;
  }

  /** A resumed answer streams again (a reattach, §9). */
  resume(answer: ChatMessage): void {
    this.#answer = this.#host.replace(answer, { ...answer, status: 'streaming', error: undefined });
  }

  /** Runs the request to its end, however it ends; a failure becomes state on a message. */
  async run(): Promise<void> {
    try {
      await this.#consume();
    } catch (error) {
      if (this.current()) this.#fail(error);
    }
  }

  current(): boolean {
    return this.#host.isCurrent(this.#controller);
  }

  /**
   * Streams the answer round after round: a tool round continues it (§7), a drop reattaches to it
   * (§9) a few times with backoff, only while online; then the answer waits for Retry. Returns
   * early once the turn is no longer current. A reattach that never reached the service (a dead
   * zone the browser still calls online) leaves the answer interrupted, so the attempts go on;
   * the last one's failure shows.
   */
  async #consume(): Promise<void> {
    const { signal } = this.#controller;
    const host = this.#host;
    const parts = this.#parts;
    let request: ChatRequest | undefined = this.#question && {
      message: this.#question.content,
      threadId: host.threadId(),
      idempotencyKey: this.#question.idempotencyKey,
      ...(this.#question.attachments?.length
        ? { attachments: this.#question.attachments.map((f) => f.file_id) }
        : {}),
    };
    let attempts = 0;
    for (let round = 0; ;) {
      const tools = parts.tools();
      const calls = await this.#stream(request, tools).catch((error: unknown) => {
        const drop = !request && attempts < REATTACH_ATTEMPTS && unreachable(error);
        if (drop && this.#answer?.status === 'interrupted') return [];
        throw error;
      });
      if (!this.current()) return;
      const answer = this.#answer;
      if (!answer) break;
      if (answer.status === 'interrupted' && answer.questionAnswerId && attempts < REATTACH_ATTEMPTS) {
        await this.#backoff(parts.reattachDelay(attempts++));
        if (!this.current()) return;
        request = undefined;
        continue;
      }
      if (!calls.length || answer.status !== 'streaming') break;
      if (round++ >= MAX_TOOL_ROUNDS) {
        const reason = `The agent asked for more than ${MAX_TOOL_ROUNDS} tool rounds.`;
        this.#answer = host.replace(answer, applyStreamEvent(answer, { type: 'error', reason }));
        break;
      }
      const toolResults = await parts.toolRunner.run({
        calls,
        tools,
        threadId: host.threadId(),
        signal,
        ranBefore: this.#ranBefore,
        answer: () => this.#answer!,
        show: (next) => {
          this.#answer = host.replace(this.#answer!, next);
          host.publish();
        },
      });
      if (!this.current()) return;
      signal.throwIfAborted();
      request = { threadId: host.threadId(), toolResults };
    }
    const answer = this.#answer;
    if (answer?.status === 'streaming')
      this.#answer = host.replace(
        answer,
        applyStreamEvent(answer, { type: 'interrupted', reason: 'ended early' }),
      );
    // Nothing started (an empty or broken body): the question was never answered.
    if (!this.#answer) throw new ProtocolError('Sending the message: the answer ended before it started.');
  }

  /**
   * The wait before a reattach, and the reattach itself: the answer says "Reconnecting…" until it
   * streams again (decision 587). Offline, it waits for the browser's `online` as well (decision
   * 550) and says "Waiting for a connection" (decision 567). Both are a polite status beside
   * Stop; stopped meanwhile, it is the interrupted answer it was (`stopAnswer`).
   */
  async #backoff(ms: number): Promise<void> {
    const cut = this.#answer!;
    // One code for both: the message shows either as a status (its key says which).
    const show = (key: 'reconnecting' | 'waitingForConnection') => {
      if (!this.current() || this.#answer!.error?.key === key) return;
      this.#answer = this.#host.replace(this.#answer!, {
        ...cut,
        error: errorInfo('reconnecting', key, true),
      });
      this.#host.publish();
    };
    show('reconnecting');
    await backoff(ms, this.#controller.signal, () => show('waitingForConnection'));
  }

  /**
   * One stream: a question (or a continuation with tool results), or without a request a
   * reattach (§9). Applies its records to the answer and returns the tool calls it paused for.
   */
  async #stream(request: ChatRequest | undefined, tools: readonly ClientTool[]): Promise<ToolCall[]> {
    const { signal } = this.#controller;
    const { api, locale } = this.#parts;
    let calls: ToolCall[] = [];
    // Reattaching replays the answer from its start: hold what is on screen until the replay
    // has caught up, so the text neither blinks nor shows twice.
    let hold = request ? 0 : this.#answer!.content.length;
    const before = this.#answer?.content ?? '';
    const events = request
      ? api().chat({ ...request, tools: toolSpecs(tools), locale: locale() }, { signal })
      : api().reattach(this.#answer!.questionAnswerId!, { signal });
    for await (const event of events) {
      if (!this.current()) return calls;
      if (event.type === 'start') {
        this.#started(event, !request);
        continue;
      }
      const answer = this.#answer;
      if (!answer) continue;
      if (event.type === 'tool_calls') calls = event.calls;
      // The end that follows tool_calls is a pause, not the answer's end.
      if (event.type === 'end' && calls.length) continue;
      this.#answer = this.#host.replace(answer, applyStreamEvent(answer, event));
      if (this.#answer.content.length >= hold) {
        hold = 0;
        if (event.type !== 'end') this.#host.publish(true);
      }
    }
    const answer = this.#answer;
    if (answer && hold && answer.content.length < hold)
      this.#answer = this.#host.replace(answer, { ...answer, content: before });
    return calls;
  }

  /**
   * The stream started: the question was sent and its answer begins, or (a continuation, §7) the
   * answer goes on, or (a reattach) it starts over.
   */
  #started(event: Extract<StreamEvent, { type: 'start' }>, reattaching: boolean): void {
    const host = this.#host;
    const answer = this.#answer;
    if (answer) {
      if (reattaching)
        this.#answer = host.replace(answer, {
          ...answer,
          content: '',
          sources: [],
          activity: [],
          status: 'streaming',
          error: undefined,
        });
      return;
    }
    this.#question = host.replace(this.#question!, { ...this.#question!, status: 'sent' });
    const started: ChatMessage = {
      id: localId('assistant'),
      role: 'assistant',
      content: '',
      sources: [],
      status: 'streaming',
      questionAnswerId: event.questionAnswerId,
    };
    this.#answer = started;
    host.setMessages((messages) => [...messages, started]);
    host.setThread(event.threadId);
    host.publish();
    this.#parts.hooks.onAnswerStart?.({ threadId: event.threadId, messageId: started.id });
  }

  /**
   * The request failed. Stopped: the answer (or an empty one) says so. The thread is gone: the
   * question alone stays, for Retry in a new thread. Offline before any answer: the outbox may
   * keep the question. Else the failure shows on the answer or the question, with Retry.
   */
  #fail(error: unknown): void {
    const answer = this.#answer;
    const host = this.#host;
    const question = this.#question;
    const { hooks } = this.#parts;
    const gone = host.threadId();
    if (isAbortError(error)) {
      if (answer) this.#answer = host.replace(answer, stopAnswer(answer));
      else {
        this.#question = host.replace(question!, { ...question!, status: 'sent' });
        const stopped: ChatMessage = {
          id: localId('assistant'),
          role: 'assistant',
          content: '',
          sources: [],
          status: 'stopped',
        };
        this.#answer = stopped;
        host.setMessages((messages) => [...messages, stopped]);
      }
    } else if (!answer && gone && error instanceof ApiError && error.status === 404) {
      // The thread is gone. Its messages may be another owner's: only the question stays,
      // and Retry starts a new thread with it.
      const info = { ...errorInfo(describeError(error).code, 'errorThreadGoneRetry', true), status: 404 };
      host.setMessages(() => [{ ...question!, status: 'failed', error: info }]);
      host.setThread(null);
      hooks.onThreadGone?.(gone);
      hooks.onError?.(info);
    } else if (
      !answer &&
      question &&
      !(error instanceof ApiError) &&
      isOffline() &&
      hooks.onOffline?.(question.content, question.attachments ?? [], question.idempotencyKey)
    ) {
      // Offline: the question waits in the outbox (it goes again when the browser is back online).
      host.setMessages((messages) => messages.filter((m) => m !== question));
    } else if (
      !answer &&
      question?.attachments &&
      error instanceof ApiError &&
      error.code === 'file_unavailable'
    ) {
      // Its files cannot go from this session (a new one after a reload or a renewal, §11): it
      // keeps its text, names the files it lost, and Retry sends the text alone (decision 671).
      const info = filesGone(question, error.status);
      const { attachments: _gone, ...rest } = question;
      this.#question = host.replace(question, { ...rest, status: 'failed', error: info });
      hooks.onError?.(info);
    } else {
      const info = describeError(error);
      // An answer's error is reported with its end (Conversation's finish), once.
      if (answer) this.#answer = host.replace(answer, { ...answer, status: 'interrupted', error: info });
      else {
        this.#question = host.replace(question!, { ...question!, status: 'failed', error: info });
        hooks.onError?.(info);
      }
    }
  }
}

/**
 * Files the service no longer takes from this session, named, in the singular or the plural;
 * Retry only when there is text to send without them. More than one is the plural: for counts
 * of 1 and up that is where Intl.PluralRules leaves `one` in every bundled language whose words
 * agree in number, and the key is chosen here, where no language is known, and kept with the
 * question on the device.
 */
function filesGone(question: ChatMessage, status: number): ErrorInfo {
  const text = question.content.trim() !== '';
  const gone = question.attachments!;
  const several = gone.length > 1 ? 'Several' : '';
  return errorInfo('file_unavailable', `errorFilesGone${text ? '' : 'Only'}${several}`, text, {
    status,
    values: { files: gone.map((f) => f.name).join(', ') },
  });
}
