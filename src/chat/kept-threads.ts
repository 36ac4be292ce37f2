import type { ThreadSummary } from '../api/types.js';
import type { ClientTool } from '../public-types.js';
import { fromThreadMessage, type Conversation } from './conversation.js';
import type { DeviceMemoryStore } from './device-memory-store.js';
import type { ThreadList } from './thread-list.js';
import type { ChatMessage } from './types.js';

/** Conversations a public visitor's device keeps (decision 518): the newest this many. */
export const MAX_KEPT_THREADS = 20;
/** A kept conversation untouched this long is dropped (decision 518). */
export const KEPT_FOR_MS = 30 * 24 * 60 * 60 * 1000;

/** One line of plain text, at most `max` characters. */
const line = (text: string, max: number) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/**
 * A kept thread's row as the list shows a service's (§5): the first question as its title (a
 * title the visitor gave stays), the start of the first answer as its preview.
 */
export function summaryOf(
  threadId: string,
  messages: readonly ChatMessage[],
  before: ThreadSummary | undefined,
  now: number,
): ThreadSummary {
  const question = messages.find((m) => m.role === 'user');
  const answer = messages.find((m) => m.role === 'assistant' && m.content);
  const at = new Date(now).toISOString();
  return {
    id: threadId,
    title: before?.title || line(question?.content ?? '', 80),
    created_at: before?.created_at ?? at,
    updated_at: at,
    preview: line(answer?.content ?? '', 120),
  };
}

/** The kept rows newest first, within the bounds; `dropped` are the ids that fell out. */
export function bounded(
  threads: readonly ThreadSummary[],
  now: number,
): { threads: ThreadSummary[]; dropped: string[] } {
  const sorted = [...threads].sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at));
  const kept = sorted.filter((t) => now - Date.parse(t.updated_at) < KEPT_FOR_MS).slice(0, MAX_KEPT_THREADS);
  return { threads: kept, dropped: sorted.filter((t) => !kept.includes(t)).map((t) => t.id) };
}

export interface KeptThreadsOptions {
  list: ThreadList;
  conversation: Conversation;
  /** The device memory's store for the current scope (none before it opens). */
  store: () => DeviceMemoryStore | undefined;
  tools?: () => readonly ClientTool[];
}

/**
 * A public visitor's past conversations, kept on their device (decision 518). The service keeps
 * no list for a session without owner (§5 answers 403), so the device does: the rows ride in the
 * device memory's head with the list (other tabs follow them, a reload shows them without a
 * request, a write merges them by thread id: decision 522). Each thread's messages stay in the
 * chunks the device memory wrote while it was the active one (decision 521), read only when it is
 * opened; a row that leaves the list takes them with it.
 */
export class KeptThreads {
  readonly #o: KeptThreadsOptions;
  /** The thread being opened, and its read (see open). */
  #opening?: { id: string; abort: AbortController; read: Promise<boolean> };

  constructor(options: KeptThreadsOptions) {
    this.#o = options;
  }

  /** The conversation on screen is kept, as its latest answer ended (however it ended). */
  keepCurrent(now = Date.now()): void {
    const { threadId, messages } = this.#o.conversation.snapshot;
    if (!this.#o.list.onDevice || !threadId || !messages.some((m) => m.role === 'assistant')) return;
    const rows = this.#o.list.snapshot.threads;
    const row = summaryOf(
      threadId,
      messages,
      rows.find((t) => t.id === threadId),
      now,
    );
    // The row alone: the messages are on the device already, in the active thread's chunks.
    this.#o.list.keep(bounded([row, ...rows.filter((t) => t.id !== threadId)], now).threads);
  }

  /** Drops what has been untouched too long (after the device was read); their messages go with the rows. */
  prune(now = Date.now()): void {
    if (!this.#o.list.onDevice) return;
    const { threads, dropped } = bounded(this.#o.list.snapshot.threads, now);
    if (dropped.length) this.#o.list.keep(threads);
  }

  /** The thread the visitor chose, while it is read (decision 659). */
  get opening(): string | undefined {
    return this.#opening?.id;
  }

  /**
   * Opens a thread: `show` gets it once read, unless another opening or abandon() came first.
   * Resolves true once it shows or was abandoned, false when it could not be had.
   */
  open(threadId: string, show: (thread: { id: string; messages: ChatMessage[] }) => void): Promise<boolean> {
    this.abandon();
    const abort = new AbortController();
    const read = this.read(threadId, abort.signal).then((thread) => {
      if (abort.signal.aborted) return true;
      this.#opening = undefined;
      if (thread) show(thread);
      return Boolean(thread);
    });
    this.#opening = { id: threadId, abort, read };
    return read;
  }

  /** A new conversation, or a reset: the thread being opened is not shown. */
  abandon(): void {
    this.#opening?.abort.abort();
    this.#opening = undefined;
  }

  /**
   * Once no chosen thread is being read (a question sent meanwhile is for it, decision 659):
   * false when the last one chosen could not be had.
   */
  async opened(): Promise<boolean> {
    while (this.#opening) if (!(await this.#opening.read)) return false;
    return true;
  }

  /**
   * A thread to open, from the device for a public visitor (at once, no request), else from the
   * service; undefined when it cannot be had.
   */
  async read(
    threadId: string,
    signal: AbortSignal,
  ): Promise<{ id: string; messages: ChatMessage[] } | undefined> {
    if (this.#o.list.onDevice) {
      const messages = await this.#o.store()?.keptThread(threadId);
      // Gone from the device (storage cleared under the page): its row goes too.
      if (!messages) this.#o.list.drop(threadId);
      return messages && { id: threadId, messages };
    }
    const thread = await this.#o.list.read(threadId, signal);
    const tools = this.#o.tools?.() ?? [];
    return thread && { id: thread.id, messages: thread.messages.map((m) => fromThreadMessage(m, tools)) };
  }
}
