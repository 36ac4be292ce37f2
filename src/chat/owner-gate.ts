import type { DeviceMemory } from './device-memory.js';
import { UNNAMED_OWNER } from './device-memory.js';
import type { ServiceConnection } from './service-connection.js';

export interface OwnerGateHooks {
  /** Someone else is here now: what is shown and remembered goes (a reset, `owner-changed`). */
  onOwnerChanged(): void;
}

/**
 * Who is here, and whether what the device remembers may show to them (decisions 110 to 112):
 * the owner key of the latest session, else the page's `owner-key`. A key that becomes known or
 * changes binds the device memory to it; a named owner's record waits for one session to confirm
 * them, minted only when the conversation could be seen. No DOM.
 */
export class OwnerGate {
  #pageKey = '';
  #visible = false;
  /** A remembered conversation waits for a session to say whether it belongs to whoever is here. */
  #confirming = false;

  readonly #connection: Pick<ServiceConnection, 'ownerKey' | 'confirm' | 'clearToken'>;
  readonly #memory: Pick<DeviceMemory, 'bind' | 'waiting' | 'provisional'>;
  readonly #hooks: OwnerGateHooks;

  constructor(
    connection: Pick<ServiceConnection, 'ownerKey' | 'confirm' | 'clearToken'>,
    memory: Pick<DeviceMemory, 'bind' | 'waiting' | 'provisional'>,
    hooks: OwnerGateHooks,
  ) {
    this.#connection = connection;
    this.#memory = memory;
    this.#hooks = hooks;
  }

  /**
   * The owner key that what is on screen must belong to: the latest session's, else the page's,
   * else UNNAMED_OWNER once a session without a key has been seen. undefined: nobody known yet.
   */
  get currentKey(): string | undefined {
    const session = this.#connection.ownerKey;
    // A session that names no owner says nothing against the page's key.
    if (session !== undefined && session !== UNNAMED_OWNER) return session;
    return this.#pageKey || session;
  }

  /**
   * The page's `owner-key`. A new one means another visitor: a token of a session that named
   * someone else goes, and what is shown is judged again. Returns whether it changed.
   */
  setPageKey(key: string): boolean {
    if (key === this.#pageKey) return false;
    this.#pageKey = key;
    const sessionKey = this.#connection.ownerKey;
    if (sessionKey !== undefined && sessionKey !== UNNAMED_OWNER && sessionKey !== key)
      this.#connection.clearToken();
    this.judge();
    return true;
  }

  /**
   * Whether the visitor can see the conversation (the panel is open, or the chat is inline):
   * the moment a remembered conversation of a named owner may cost a session to confirm.
   */
  setVisible(visible: boolean): void {
    this.#visible = visible;
    this.#confirm();
  }

  /** A stored record waits for a session to say whose it is. */
  awaitConfirmation(): void {
    this.#confirming = true;
    this.#confirm();
  }

  /** A key became known or changed: show what the device holds for it, or wipe what is not theirs. */
  judge(): void {
    const key = this.currentKey;
    if (key === undefined) return;
    if (this.#memory.bind(key) === 'changed') this.#hooks.onOwnerChanged();
  }

  /**
   * A conversation left by a session without owner shows at once after a reload; before
   * anything is sent into it, the session the send needs anyway says whether that is still who
   * is here (a visitor who signed in since gets a fresh conversation, not that one).
   */
  async beforeSend(): Promise<void> {
    if (this.#memory.provisional && this.#connection.ownerKey === undefined)
      await this.#connection.confirm().catch(() => {});
  }

  reset(): void {
    this.#confirming = false;
  }

  /**
   * A remembered conversation of a named owner shows once a session confirms that owner is here.
   * That visitor sent a message before, so one session now stays within the token rules; it is
   * minted only when the conversation could be seen (the panel is open), never for nothing.
   */
  #confirm(): void {
    if (!this.#confirming || !this.#visible || !this.#memory.waiting) return;
    this.#confirming = false;
    void this.#connection.confirm().catch(() => {
      // The endpoint failed: nothing shows, and the next send tries again (and reports it).
      this.#confirming = true;
    });
  }
}
