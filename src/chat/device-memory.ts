import { NO_OWNER } from '../../contract/paths.js';
import type { ThreadSummary } from '../api/types.js';
import type { OutboxEntry } from './outbox.js';
import type { ChatMessage } from './types.js';
import type { RemoteChange, StoredMemory, DeviceMemoryStore } from './device-memory-store.js';

/** The owner key of a site whose sessions name no owner (no `Agent-Chat-Owner-Key` header). */
export const UNNAMED_OWNER = '';

/**
 * Whether what was stored under `key` may show before a session confirms who is here: what a
 * session without owner (`-`) or a site that names no owner ('') left, and what was written
 * before any session was known (null), belong to whoever uses this browser, as the browser does.
 */
export const sharedOnDevice = (key: string | null): boolean =>
  key === null || key === NO_OWNER || key === UNNAMED_OWNER;

/**
 * Whether two owner keys are one visitor's: the same key, or the two keys of no owner (a public
 * visitor's record was stored under '' before the widget read `-`, decision 540).
 */
export const sameOwner = (a: string | null, b: string | null): boolean =>
  a === b || (a !== null && b !== null && sharedOnDevice(a) && sharedOnDevice(b));

/** What the device remembers for one owner: the conversation, the list, drafts and the outbox. */
export interface Remembered {
  activeThreadId: string | null;
  messages: readonly ChatMessage[];
  threads: readonly ThreadSummary[];
  owned: boolean;
  ownerKey: string | null;
  drafts: Record<string, string>;
  outbox: readonly OutboxEntry[];
}

/** The live state to remember, read at save time. */
export type LiveState = Omit<Remembered, 'ownerKey'> & { threadListOpen: boolean };

export interface DeviceMemoryOptions {
  openStore: (scope: string) => DeviceMemoryStore;
  /** The owner key of whoever is here now (latest session, else the page), if known. */
  currentKey: () => string | undefined;
  collect: () => LiveState;
  /** The panel's state: this tab's, shown to anyone on this device. */
  restorePanel: (state: { threadListOpen: boolean; open: boolean }) => void;
  /** What belongs to the current owner: read after a reload (`restore`) or written by another tab (`follow`). */
  restoreConversations: (remembered: Remembered, how: 'restore' | 'follow') => void;
  /** A record waits for a session to say whether it belongs to whoever is here. */
  confirmOwner: () => void;
  /** Another tab wiped this scope (sign-out, owner change). */
  wipedElsewhere: () => void;
  saveDelayMs?: number;
}

/**
 * Longest a stream of changes postpones a write: other tabs follow an answer through the
 * device, so they see it at least this often.
 */
export const MAX_SAVE_WAIT_MS = 400;

type Shared = Omit<Remembered, 'ownerKey'>;
/** The parts one change touches (decision 235); messages are replaced, never mutated. */
const PARTS: (keyof Shared)[][] = [
  ['activeThreadId', 'messages'],
  ['threads', 'owned'],
  ['drafts'],
  ['outbox'],
];
const same = (a: Shared, b: Shared, key: keyof Shared) =>
  key === 'messages'
    ? a.messages.length === b.messages.length && a.messages.every((m, i) => m === b.messages[i])
    : JSON.stringify(a[key]) === JSON.stringify(b[key]);
const NOTHING: Shared = {
  activeThreadId: null,
  messages: [],
  threads: [],
  owned: false,
  drafts: {},
  outbox: [],
};

/**
 * Another tab's state, but with each part this tab changed since it last wrote, restored or
 * followed (not written yet) kept as this tab has it: the other tab did not know that change
 * when it wrote, and this tab's pending write is about to tell it.
 */
function keepUnsaved(
  remote: Remembered,
  local: Shared,
  synced: Shared,
): { shown: Remembered; unsaved: (keyof Shared)[] } {
  const shown = { ...remote };
  const unsaved = PARTS.filter((keys) => !keys.every((key) => same(local, synced, key))).flat();
  for (const key of unsaved) Object.assign(shown, { [key]: local[key] });
  return { shown, unsaved };
}

const hasContent = (r: Remembered) =>
  r.messages.length > 0 || r.threads.length > 0 || r.outbox.length > 0 || Object.keys(r.drafts).length > 0;

/**
 * What the widget remembers on this device, bound to an owner (wire contract §2's owner key).
 * Everything but the panel's state is stored with the key of the owner it belongs to. What a
 * shared key left (see sharedOnDevice) shows at once after a reload, with no request; what a
 * named owner left waits, untouched, until a session or the page names whoever is here, and is
 * wiped when that is someone else. A key that changes while something is shown resets it.
 * Writes are debounced (with a ceiling) and wait for the first read, so defaults never
 * overwrite what was stored; other tabs' writes are followed as they land.
 */
export class DeviceMemory {
  #store?: DeviceMemoryStore;
  #hydration: Promise<void> = Promise.resolve();
  #timer?: ReturnType<typeof setTimeout>;
  /** When the pending write was first asked for. */
  #since?: number;
  #unwatch?: () => void;
  #panelOpen = false;
  /** Whose state is in memory: undefined until something is held, null while no key is known. */
  #boundKey?: string | null;
  /** A stored record that waits for its owner to be confirmed. */
  #pending?: Remembered;
  /** What this tab last wrote, restored or followed: a part that differs from it now is not written yet. */
  #synced: Shared = NOTHING;
  /** The device was read: until then what is live may be defaults, never stashed over a stash not read yet. */
  #loaded = false;

  readonly #options: DeviceMemoryOptions;

  constructor(options: DeviceMemoryOptions) {
    this.#options = options;
  }

  /** The store of the scope open now (none while closed). */
  get store(): DeviceMemoryStore | undefined {
    return this.#store;
  }

  get hydrated(): Promise<void> {
    return this.#hydration;
  }

  /**
   * What is held was stored under a shared key (a session without owner, or a site that names
   * none) and may not be the next session's: a send asks for that session first.
   */
  get provisional(): boolean {
    return this.#boundKey === NO_OWNER || this.#boundKey === UNNAMED_OWNER;
  }

  /** A stored record waits for a session to confirm its owner. */
  get waiting(): boolean {
    return this.#pending !== undefined;
  }

  open(scope: string): void {
    const store = this.#options.openStore(scope);
    this.#store = store;
    this.#loaded = false;
    this.#hydration = this.#read();
    this.#unwatch = store.watch((change) => void this.#followRemote(change));
  }

  close(): void {
    this.#unwatch?.();
    if (this.#timer !== undefined) void this.flush();
    this.#store = undefined;
  }

  setPanelOpen(open: boolean): void {
    this.#panelOpen = open;
    this.changed();
  }

  /** Something changed: write it soon. */
  changed(): void {
    if (!this.#store) return;
    // Debounced, but a stream of changes (a long answer) is still written every few hundred ms:
    // other tabs follow it, and the answer's id is on the device even if the page dies.
    const now = Date.now();
    this.#since ??= now;
    if (this.#timer !== undefined && now - this.#since > MAX_SAVE_WAIT_MS) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => void this.flush(),
      Math.min(this.#options.saveDelayMs ?? 150, Math.max(0, this.#since + MAX_SAVE_WAIT_MS - now)),
    );
  }

  /**
   * The page is going away (`pagehide`): the drafts, the outbox and the last question are
   * stashed at once, since the write that flush() starts may not land during a navigation
   * (decisions 443, 451), then flushed as ever.
   */
  leave(): void {
    const state = this.#pending ?? this.#collect();
    if (this.#loaded && state) this.#store?.stash(state);
    void this.flush();
  }

  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#since = undefined;
    const store = this.#store;
    await this.#hydration;
    if (!store) return;
    // A record waiting for its owner stays as it is: only the panel's state may change.
    const state = this.#collect();
    if (!state) return;
    // The rows as this tab had them before its change: a kept list is merged from them (decision 522).
    const rowsBefore = this.#synced.threads;
    this.#synced = rememberedOf(state);
    await store.save(state, rowsBefore);
  }

  /**
   * The current owner key is `key`. Returns 'changed' when what is in memory belongs to someone
   * else (the caller resets); a stored record waiting for a key is shown or wiped here.
   */
  bind(key: string): 'kept' | 'changed' {
    const previous = this.#boundKey;
    this.#boundKey = key;
    const pending = this.#pending;
    if (pending) {
      this.#pending = undefined;
      if (pending.ownerKey === key) this.#restore(pending);
      // Wiped before anything could show it; the other tabs drop it too.
      else void this.#store?.clear().then(() => this.changed());
      return 'kept';
    }
    // What was held with no key known is the first owner's; a known key that changes is another
    // visitor (but '' and `-` are one: see sameOwner).
    return previous != null && !sameOwner(previous, key) ? 'changed' : 'kept';
  }

  /**
   * The list is as the service just answered it: not a change of this tab's to keep over what
   * another tab writes after (a rename or delete there). Still written, where the device differs.
   */
  listAnswered(): void {
    const { threads, owned } = this.#options.collect();
    this.#synced = { ...this.#synced, threads, owned };
  }

  /** Forgets what is stored for the owner; `broadcast` tells the other tabs, `unbind` forgets the owner too. */
  async wipe({ broadcast, unbind }: { broadcast: boolean; unbind: boolean }): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
    this.#synced = NOTHING;
    if (unbind) this.#boundKey = undefined;
    const store = this.#store;
    // And what this tab stashed: a page back from the back-forward cache may still hold it.
    store?.stash();
    await this.#hydration;
    if (broadcast) await store?.clear();
  }

  /**
   * Reads the device again and follows what another tab wrote there: when this tab comes back
   * into view, or takes over an answer whose tab went away (`live` false: an answer still
   * marked streaming is then interrupted).
   */
  async revisit(live: boolean): Promise<void> {
    await this.#hydration;
    const state = await this.#store?.load(live);
    if (state) await this.#followRemote({ state });
  }

  /** The owner's part of the state is never written while it waits for confirmation. */
  #collect(): StoredMemory | undefined {
    if (this.#pending) return undefined;
    const live = this.#options.collect();
    return {
      open: this.#panelOpen,
      threadListOpen: live.threadListOpen,
      activeThreadId: live.activeThreadId,
      drafts: live.drafts,
      outbox: [...live.outbox],
      threads: [...live.threads],
      messages: [...live.messages],
      owned: live.owned,
      ownerKey: this.#boundKey ?? null,
    };
  }

  async #read(): Promise<void> {
    const store = this.#store;
    const state = await store?.load();
    this.#loaded = true;
    if (state) {
      this.#panelOpen = state.open;
      this.#options.restorePanel({ threadListOpen: state.threadListOpen, open: state.open });
    }
    const remembered = state && rememberedOf(state);
    const key = this.#options.currentKey();
    if (remembered && hasContent(remembered)) {
      if (key === undefined && sharedOnDevice(remembered.ownerKey)) {
        this.#boundKey = remembered.ownerKey;
        this.#restore(remembered);
        return;
      }
      this.#pending = remembered;
    }
    if (key !== undefined) this.bind(key);
    // Closed (the widget left the page) or opened again while it read: no session for a record
    // nobody can see here; the open that follows, if any, asks for itself.
    else if (this.#pending && this.#store === store) this.#options.confirmOwner();
  }

  #restore(remembered: Remembered): void {
    this.#options.restoreConversations(remembered, 'restore');
    // What this tab shows now, not the record: applying one keeps what the visitor already touched.
    this.#synced = this.#options.collect();
  }

  /** Another tab wrote (or wiped) this scope. */
  async #followRemote(change: RemoteChange): Promise<void> {
    await this.#hydration;
    if (!this.#store) return;
    if (!change.state) return this.#options.wipedElsewhere();
    const remote = rememberedOf(change.state);
    if (this.#pending) {
      this.#pending = hasContent(remote) ? remote : undefined;
      return;
    }
    const bound = this.#boundKey;
    if (remote.ownerKey === bound || (bound == null && sharedOnDevice(remote.ownerKey))) {
      this.#boundKey = remote.ownerKey;
      const { shown, unsaved } =
        this.#timer === undefined
          ? { shown: remote, unsaved: [] }
          : keepUnsaved(remote, this.#options.collect(), this.#synced);
      this.#options.restoreConversations(shown, 'follow');
      // A part kept unsaved is still unsaved: compared with what the device had before.
      const before = this.#synced;
      this.#synced = { ...this.#options.collect() };
      for (const key of unsaved) Object.assign(this.#synced, { [key]: before[key] });
    } else if (bound == null && hasContent(remote)) {
      // Another tab's session named an owner this tab does not know yet: confirm first.
      this.#pending = remote;
      this.#options.confirmOwner();
    }
  }
}

function rememberedOf(state: StoredMemory): Remembered {
  const { activeThreadId, messages, threads, owned, ownerKey, drafts, outbox } = state;
  return { activeThreadId, messages, threads, owned, ownerKey, drafts, outbox };
}
