import type { FileInfo } from '../api/types.js';

/** A question the visitor sent that has not gone to the service yet. */
export interface OutboxEntry {
  id: string;
  text: string;
  /** Its files, uploaded already (the service keeps them 24 hours): sent with it when it goes. */
  attachments?: readonly FileInfo[];
  /** The key of a send that went offline mid-request (it may have arrived): the next send keeps it. */
  idempotencyKey?: string;
}

/** Questions the outbox keeps at most; one more is refused (`send()` returns false). */
export const MAX_OUTBOX = 5;
/** Send attempts of a question that keeps going offline mid-request; then it fails, with Retry. */
export const MAX_SEND_ATTEMPTS = 3;

/**
 * How long a tab's claim on a queued question holds (decision 660): where there are no Web
 * Locks, the tab that claimed it sends it, and a tab that claimed it and went away leaves it to
 * another tab after this.
 */
export const CLAIM_MS = 5_000;

export const isOffline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

export interface OutboxHooks {
  onChange(): void;
  /** No answer is under way in this tab, and the tab may send (it is connected). */
  canSend(): boolean;
  /** Sends one question as a new turn; resolves when its answer ended, however it ended. */
  send(text: string, attachments: readonly FileInfo[], idempotencyKey?: string): Promise<void>;
  /**
   * Back online: sends what waits (sendNow). Every tab hears `online` at once and may hold the
   * same questions (another tab's, followed through the device): they go once across tabs.
   */
  online(): void;
}

let ids = 0;
const newEntry = (text: string, attachments: readonly FileInfo[] = []): OutboxEntry => ({
  id: `q${Date.now().toString(36)}-${++ids}`,
  text,
  ...(attachments.length ? { attachments } : {}),
});

/**
 * What the visitor sent that has not gone yet, oldest first: questions asked while an answer
 * streams, and questions that met an offline browser. One leaves at a time, taken out before it
 * is sent so it goes once: when nothing streams, the tab is connected and the browser is online.
 * A question whose request went offline comes back to the front, up to MAX_SEND_ATTEMPTS times.
 * No DOM; the device remembers the entries with the rest of the owner's state.
 */
export class Outbox {
  #items: readonly OutboxEntry[] = [];
  readonly #online = () => {
    this.#hooks.onChange();
    this.#hooks.online();
  };
  readonly #offline = () => this.#hooks.onChange();
  /** Attempts of the questions that came back, by id. */
  readonly #attempts = new Map<string, number>();
  /** The entry sent last, until its answer ended. */
  #sending?: OutboxEntry;

  readonly #hooks: OutboxHooks;

  constructor(hooks: OutboxHooks) {
    this.#hooks = hooks;
  }

  get entries(): readonly OutboxEntry[] {
    return this.#items;
  }

  /** Follows the browser's connection: back online, the outbox goes, each question once. */
  connect(): void {
    if (typeof addEventListener !== 'function') return;
    addEventListener('online', this.#online);
    addEventListener('offline', this.#offline);
  }

  disconnect(): void {
    if (typeof removeEventListener !== 'function') return;
    removeEventListener('online', this.#online);
    removeEventListener('offline', this.#offline);
  }

  /**
   * Adds a question at the end and sends it when it may go; false when the outbox is full, or
   * when there is nothing to send (a question of files alone whose files the visitor removed
   * while it waited for the conversation they chose, decision 659). Its `files` are taken only
   * once it is in: refused, they stay where the visitor put them.
   */
  add(text: string, files: () => readonly FileInfo[] = () => []): boolean {
    if (this.#items.length >= MAX_OUTBOX) return false;
    const taken = files();
    if (!text.trim() && !taken.length) return false;
    this.#set([...this.#items, newEntry(text, taken)]);
    this.sendNext();
    return true;
  }

  remove(id: string): void {
    this.#set(this.#items.filter((entry) => entry.id !== id));
  }

  /** What the device remembered, or another tab wrote: shown, not sent from here. */
  replace(entries: readonly OutboxEntry[]): void {
    this.#set(entries.slice(0, MAX_OUTBOX));
  }

  clear(): void {
    this.#attempts.clear();
    this.#set([]);
  }

  /** Sends the oldest question, soon (after the caller's own change), if it may go now. */
  sendNext(): void {
    queueMicrotask(() => this.sendNow());
  }

  /** Sends the oldest question now if it may go; whether one went. */
  sendNow(): boolean {
    const [next, ...rest] = this.#items;
    if (!next || isOffline() || !this.#hooks.canSend()) return false;
    this.#sending = next;
    this.#set(rest);
    void this.#hooks.send(next.text, next.attachments ?? [], next.idempotencyKey).finally(() => {
      if (this.#sending === next) this.#sending = undefined;
    });
    return true;
  }

  /**
   * A question's request failed with the browser offline, before any answer: it comes back to
   * the front (true), unless the outbox is full or it has had its attempts (false: it fails).
   */
  takeBack(text: string, attachments: readonly FileInfo[] = [], idempotencyKey?: string): boolean {
    const entry = {
      ...(this.#sending?.text === text ? this.#sending : newEntry(text, attachments)),
      ...(idempotencyKey && { idempotencyKey }),
    };
    this.#sending = undefined;
    const tries = (this.#attempts.get(entry.id) ?? 0) + 1;
    if (tries >= MAX_SEND_ATTEMPTS || this.#items.length >= MAX_OUTBOX) {
      this.#attempts.delete(entry.id);
      return false;
    }
    this.#attempts.set(entry.id, tries);
    this.#set([entry, ...this.#items]);
    return true;
  }

  #set(items: readonly OutboxEntry[]): void {
    this.#items = items;
    this.#hooks.onChange();
  }
}
