import type { ThreadSummary } from '../api/types.js';
import type { ChatMessage } from './types.js';
import type { UiState, UiStateStore } from './ui-state-store.js';

/** Conversations as the device remembers them, with the owner key they were stored under. */
export interface Remembered {
  activeThreadId: string | null;
  messages: readonly ChatMessage[];
  threads: readonly ThreadSummary[];
  owned: boolean;
  ownerKey: string | null;
}

/** The live state to remember, read at save time. */
export interface LiveState {
  drafts: Record<string, string>;
  /** Follow-ups waiting for the answer in progress; device-level, like drafts. */
  queued: readonly { id: string; text: string }[];
  historyVisible: boolean;
  activeThreadId: string | null;
  messages: readonly ChatMessage[];
  threads: readonly ThreadSummary[];
  owned: boolean;
}

export interface DeviceMemoryOptions {
  openStore: (scope: string) => UiStateStore;
  /** The owner key of whoever is here now (latest session, else the page), if known. */
  currentKey: () => string | undefined;
  collect: () => LiveState;
  /** Device-level state (panel, drafts): shown to anyone on this device. */
  restoreDevice: (state: { drafts: Record<string, string>; historyVisible: boolean; open: boolean; queued: { id: string; text: string }[] }) => void;
  /** Conversations confirmed to belong to the current owner. */
  restoreConversations: (remembered: Remembered) => void;
  /** Another tab wiped this scope (sign-out, owner change). */
  wipedElsewhere: () => void;
  saveDelayMs?: number;
}

const EMPTY: Remembered = { activeThreadId: null, messages: [], threads: [], owned: false, ownerKey: null };

/** Longest a stream of changes postpones a write. */
const MAX_SAVE_WAIT_MS = 2000;

/**
 * What the widget remembers on this device, bound to an owner (wire contract §2's owner key).
 * Remembered conversations are handed out only once the current owner key matches the key they
 * were stored under; until a key is known they stay unshown (and untouched in storage), and a
 * different key wipes them. Panel state and drafts are device-level. Writes are debounced and
 * wait for the first read, so defaults never overwrite what was stored.
 */
export class DeviceMemory {
  private store?: UiStateStore;
  private hydration: Promise<void> = Promise.resolve();
  private timer?: ReturnType<typeof setTimeout>;
  /** When the pending write was first asked for. */
  private since?: number;
  private unwatch?: () => void;
  /** What storage holds as far as this tab knows; an unchanged state is not written again. */
  private stored = '';
  private panelOpen = false;
  /** The owner of the conversations in memory; undefined until a key is known. */
  private boundKey?: string;
  /** Stored conversations not yet confirmed for anyone. */
  private pending?: Remembered;

  constructor(private readonly options: DeviceMemoryOptions) {}

  get hydrated(): Promise<void> {
    return this.hydration;
  }

  open(scope: string): void {
    const store = this.options.openStore(scope);
    this.store = store;
    // A store just opened (another one after consent changed) holds nothing this tab wrote.
    this.stored = '';
    this.hydration = this.read();
    this.unwatch = store.watch(() => void this.followWipe());
  }

  close(): void {
    this.unwatch?.();
    if (this.timer !== undefined) void this.flush();
    this.store = undefined;
  }

  setPanelOpen(open: boolean): void {
    this.panelOpen = open;
    this.changed();
  }

  /** Something changed: write it soon. */
  changed(): void {
    if (!this.store) return;
    // Debounced, but a stream of changes (a long answer) is still written every few seconds, so
    // the answer's id is on the device for a reattach (§9) even if the page dies without pagehide.
    const now = Date.now();
    this.since ??= now;
    if (this.timer !== undefined && now - this.since > MAX_SAVE_WAIT_MS) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.options.saveDelayMs ?? 250);
  }

  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.since = undefined;
    const store = this.store;
    await this.hydration;
    if (!store) return;
    const state = this.collect();
    const serialized = JSON.stringify(state);
    // Also what keeps two tabs from echoing each other's writes back and forth.
    if (serialized === this.stored) return;
    this.stored = serialized;
    await store.save(state);
  }

  /**
   * The current owner key is `key`. Returns 'changed' when conversations in memory belong to
   * someone else (the caller resets); stored ones waiting for a key are shown or wiped here.
   */
  bind(key: string): 'kept' | 'changed' {
    const previous = this.boundKey;
    this.boundKey = key;
    const pending = this.pending;
    if (pending) {
      this.pending = undefined;
      if (pending.ownerKey === key) this.options.restoreConversations(pending);
      else {
        // Writes the foreign conversations away before anything could show them.
        this.stored = '';
        void this.flush();
      }
      return 'kept';
    }
    return previous !== undefined && previous !== key ? 'changed' : 'kept';
  }

  /** Forgets stored conversations and drafts; `broadcast` tells the other tabs, `unbind` forgets the owner too. */
  async wipe({ broadcast, unbind }: { broadcast: boolean; unbind: boolean }): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
    if (unbind) this.boundKey = undefined;
    const store = this.store;
    await this.hydration;
    this.stored = '';
    if (broadcast) await store?.clear();
  }

  /** Picks up another tab's thread list when this tab comes back into view. */
  async revisit(): Promise<void> {
    const state = await this.store?.load();
    if (state && this.boundKey !== undefined && state.ownerKey === this.boundKey) {
      this.options.restoreConversations({ ...rememberedOf(state), messages: [] });
    }
  }

  private collect(): UiState {
    const live = this.options.collect();
    const conversations: Remembered = this.boundKey !== undefined
      ? { activeThreadId: live.activeThreadId, messages: live.messages, threads: live.threads, owned: live.owned, ownerKey: this.boundKey }
      : (this.pending ?? EMPTY);
    return {
      open: this.panelOpen,
      sidebarOpen: live.historyVisible,
      drafts: live.drafts,
      queued: [...live.queued],
      ...conversations,
      messages: [...conversations.messages],
      threads: [...conversations.threads],
    };
  }

  private async read(): Promise<void> {
    const state = await this.store?.load();
    if (state) {
      this.panelOpen = state.open;
      this.options.restoreDevice({ drafts: state.drafts, historyVisible: state.sidebarOpen, open: state.open, queued: state.queued });
      const remembered = rememberedOf(state);
      if (remembered.messages.length || remembered.threads.length) this.pending = remembered;
    }
    // What was just read needs no write back.
    if (state) this.stored = JSON.stringify(this.collect());
    const key = this.options.currentKey();
    if (key !== undefined) this.bind(key);
  }

  private async followWipe(): Promise<void> {
    if (await this.store?.load()) return;
    this.stored = '';
    this.options.wipedElsewhere();
  }
}

function rememberedOf(state: UiState): Remembered {
  const { activeThreadId, messages, threads, owned, ownerKey } = state;
  return { activeThreadId, messages, threads, owned, ownerKey };
}
