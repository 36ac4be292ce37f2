import { AnswerLock } from './answer-lock.js';
import type { Conversation } from './conversation.js';
import type { DeviceMemory } from './device-memory.js';
import { CLAIM_MS, type Outbox } from './outbox.js';

/** What the hand-off reads and asks of the other parts. */
export interface TabHandoffParts {
  /** Where this widget's state lives on the device: the lock is named after it. */
  scope: () => string;
  /** Between connect() and disconnect(): only then may this tab hold or take over an answer. */
  connected: () => boolean;
  conversation: Pick<Conversation, 'snapshot' | 'streaming' | 'followed' | 'reattach' | 'retry'>;
  /** Writes this tab's changes (an answer's end, before the lock goes) and reads other tabs'. */
  memory: Pick<DeviceMemory, 'flush' | 'revisit' | 'store'>;
  /** What waits to be sent; `sendNow` sends its oldest question if it may go, and says whether one went. */
  outbox: Pick<Outbox, 'entries' | 'sendNow'>;
}

/** How long after its first send a question a navigation cut off is sent again by the next load (decision 455). */
export const RESEND_WINDOW_MS = 5 * 60_000;

/**
 * One answer, one request, whatever the number of tabs (decision 113): the tab that streams
 * holds the answer's Web Lock until its end is written; a tab that finds the last answer cut off
 * reattaches unless another tab holds the lock, and then follows it through the device and takes
 * the answer over when that tab lets go (the answer ended, or the tab went away). No DOM.
 */
export class TabHandoff {
  readonly #lock = new AnswerLock(() => `agent-chat.answer:${this.#parts.scope()}`);
  /** The answer another tab streams that this tab waits to take over, by id. */
  #takingOver?: string;
  /** Bumped by reset(): a wait that ends after a reset is dropped. */
  #epoch = 0;
  /** A look again at a question another tab claimed, once that claim has lapsed. */
  #lapse?: ReturnType<typeof setTimeout>;
  /** The claimed send under way: one at a time, or a second would read the first's question back from the device. */
  #claiming?: Promise<void>;

  readonly #parts: TabHandoffParts;

  constructor(parts: TabHandoffParts) {
    this.#parts = parts;
  }

  /**
   * This tab streams an answer (busy) or stopped: other tabs wait for the lock meanwhile. At the
   * end the lock goes once the device has the end and the question the outbox sent next (the
   * host sends it as the answer ends, just after this): a tab that takes the lock then finds that
   * question gone from the outbox.
   */
  setBusy(busy: boolean): void {
    if (!busy) {
      const afterEnd = new Promise((resolve) => setTimeout(resolve, 0));
      return this.#lock.letGo(afterEnd.then(() => this.#parts.memory.flush()));
    }
    if (this.#parts.connected()) this.#lock.hold();
  }

  /**
   * The outbox may send now: this tab is connected, and no answer streams here or in another tab,
   * nor waits to start for a question another tab sent.
   */
  maySend(): boolean {
    const { conversation } = this.#parts;
    const last = conversation.snapshot.messages.at(-1);
    const askedElsewhere = last?.role === 'user' && last.status === 'sending';
    return !conversation.streaming && !askedElsewhere && this.#parts.connected();
  }

  /**
   * A question waits in the outbox and nothing streams here: send it from this tab, once across
   * tabs. It may have been asked in another tab, or in this one while another streamed, and that
   * answer may have ended before the tabs heard of each other's writes, so every idle tab that
   * holds it tries: under the answer's lock (never while another tab streams or sends), after
   * writing this tab's changes and reading the other tabs' (a question another tab took is gone
   * by then), and with its removal written before the lock goes. Without Web Locks the tab that
   * streamed sends what it knew at the end, and nothing more.
   */
  sendQueued(): void {
    if (this.#parts.connected()) this.#lock.ifFree(() => this.#sendLocked());
  }

  /**
   * What waits in the outbox goes now (the browser is back online, in every tab at once, or a
   * load found it on the device): as sendQueued sends it, once across tabs, as each tab holds
   * the questions asked offline in any of them. Without Web Locks, the tab that claims it on
   * the device sends it (decision 660).
   */
  sendWaiting(): void {
    if (this.#lock.available) this.sendQueued();
    else if (!this.#claiming)
      this.#claiming = this.#sendClaimed().finally(() => (this.#claiming = undefined));
  }

  async #sendLocked(): Promise<void> {
    const { memory } = this.#parts;
    await memory.flush();
    await memory.revisit(true);
    if (this.#parts.connected() && this.#parts.outbox.sendNow()) await memory.flush();
  }

  /**
   * As #sendLocked, under a claim of the oldest question instead of the lock: this tab writes
   * its changes, claims it, reads the other tabs' (a question sent under an earlier claim is gone
   * by then), sends it and writes its removal. A tab refused looks again once that claim has
   * lapsed: the tab that holds it may have gone before it sent.
   */
  async #sendClaimed(): Promise<void> {
    const { memory, outbox } = this.#parts;
    await memory.flush();
    const id = outbox.entries[0]?.id;
    if (!id || !this.#parts.connected()) return;
    if (!((await memory.store?.claim?.(id)) ?? true)) {
      clearTimeout(this.#lapse);
      this.#lapse = setTimeout(() => this.sendWaiting(), CLAIM_MS);
      return;
    }
    await memory.revisit(true);
    if (this.#parts.connected() && outbox.entries[0]?.id === id && outbox.sendNow()) await memory.flush();
  }

  /**
   * An answer cut off by a reload or a drop, its id known: follow it on the service (§9), unless
   * another tab streams it now (it holds the answer's lock): then wait to take it over. False
   * when there is no such answer.
   */
  reattachLast(othersFirst = true): boolean {
    const { conversation } = this.#parts;
    const last = conversation.snapshot.messages.at(-1);
    if (last?.role !== 'assistant' || last.status !== 'interrupted' || !last.questionAnswerId) return false;
    if (!othersFirst) {
      void conversation.reattach(last.id);
      return true;
    }
    this.#askingOthers((elsewhere) => {
      if (!elsewhere) return void conversation.reattach(last.id);
      // Another tab streams it (or is writing its end): follow that tab's writes until it lets go.
      this.awaitTakeover(last.questionAnswerId);
    });
    return true;
  }

  /**
   * The last question, cut off by a navigation before its answer started (read back as not sent,
   * with no error, decision 451): sent again, once, under its key, so that at worst it
   * reattaches to the answer the service began (decision 455); only while it is recent, and not
   * while another tab streams. False when there is no such question.
   */
  resendLast(): boolean {
    const { conversation } = this.#parts;
    const last = conversation.snapshot.messages.at(-1);
    if (
      last?.role !== 'user' ||
      last.status !== 'failed' ||
      last.error ||
      !last.idempotencyKey ||
      !(Date.now() - (last.sentAt ?? 0) < RESEND_WINDOW_MS)
    )
      return false;
    void conversation.retry(last.id, this.#mayResend());
    return true;
  }

  /**
   * Whether the question read back as cut off goes from this tab. Not while another tab holds the
   * answer's lock: that tab is sending it now (on a slow network "Sending…" lasts seconds), and
   * this one showed it "Not sent" with Retry beside the other's "Sending…". It reads "sending"
   * here too until that tab lets go; then the device says how it went, as after a reload: its
   * answer came (this tab's copy is replaced, nothing goes), or that tab went away first (Not sent).
   */
  async #mayResend(): Promise<boolean> {
    const elsewhere = await this.#othersHold();
    if (elsewhere !== true) return elsewhere === false;
    await new Promise<void>((resolve) => {
      if (!this.#lock.whenFree(async () => resolve())) resolve();
    });
    if (this.#parts.connected()) await this.#parts.memory.revisit(false);
    return false;
  }

  /** `then`, told whether another tab holds the answer's lock, unless a reset or a disconnect came first. */
  #askingOthers(then: (elsewhere: boolean) => void): void {
    void this.#othersHold().then((elsewhere) => elsewhere !== null && then(elsewhere));
  }

  /** Whether another tab holds the answer's lock; null when a reset or a disconnect came first. */
  #othersHold(): Promise<boolean | null> {
    const epoch = this.#epoch;
    return this.#lock
      .heldElsewhere()
      .catch(() => false)
      .then((elsewhere) => (epoch === this.#epoch && this.#parts.connected() ? elsewhere : null));
  }

  /**
   * Another tab streams the last answer and this one follows it. When that tab lets go of the
   * answer's lock, the device already says how the answer ended; if it still says streaming,
   * that tab went away mid-answer, and this one reattaches (§9).
   */
  awaitTakeover(id = this.#parts.conversation.followed?.questionAnswerId): void {
    if (!id || this.#takingOver === id) return;
    const epoch = this.#epoch;
    const waiting = this.#lock.whenFree(async () => {
      if (this.#takingOver === id) this.#takingOver = undefined;
      if (epoch !== this.#epoch || !this.#parts.connected()) return;
      // Read as after a reload: an answer still marked streaming is interrupted.
      await this.#parts.memory.revisit(false);
      // This tab holds the lock now: reattach without asking who holds it, or send what waits.
      if (epoch === this.#epoch && !this.reattachLast(false)) await this.#sendLocked();
    });
    if (waiting) this.#takingOver = id;
  }

  /** A reset: nothing this tab waited for applies any more. */
  reset(): void {
    this.#epoch += 1;
    this.#takingOver = undefined;
  }
}
