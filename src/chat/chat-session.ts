import { NO_OWNER } from '../../contract/paths.js';
import type { FileInfo } from '../api/types.js';
import { Composer, type ComposerOptions, type Tray } from './composer.js';
import type { SessionStatus } from '../session/types.js';
import { Conversation, type ConversationHooks } from './conversation.js';
import { describeError } from './describe-error.js';
import { DeviceMemory } from './device-memory.js';
import { follow, liveStateOf, restore } from './device-state.js';
import { KeptThreads } from './kept-threads.js';
import { Outbox, isOffline, type OutboxEntry } from './outbox.js';
import { OwnerGate } from './owner-gate.js';
import { ServiceConnection, sessionSourceOf, type ConnectionConfig } from './service-connection.js';
import { TabHandoff } from './tab-handoff.js';
import { ThreadList, type ThreadListSnapshot } from './thread-list.js';
import type { ClientTool } from '../public-types.js';
import type { ConversationSnapshot, ErrorInfo } from './types.js';
import type { DeviceMemoryStore } from './device-memory-store.js';

/** Keeps nothing: the device is not touched (consent not given yet). */
const NO_STORE: DeviceMemoryStore = {
  load: async () => undefined,
  save: async () => {},
  clear: async () => {},
  watch: () => () => {},
  stash: () => {},
  keptThread: async () => undefined,
};

/** What the session reads from its host each time it needs it (attributes may change). */
export interface ChatSessionConfig extends ConnectionConfig {
  /** The page's `owner-key` ('' when unset). */
  ownerKey: string;
}

export interface ChatSessionHooks extends Omit<
  ConversationHooks,
  'onChange' | 'onThreadGone' | 'onError' | 'onOffline' | 'onBusy'
> {
  onChange(snapshot: ChatSnapshot): void;
  onError(error: ErrorInfo): void;
  onSessionChange?(status: SessionStatus): void;
  /** The device remembered the panel open or closed; the host owns that state. */
  onPanelRestored?(open: boolean): void;
}

export interface ChatSessionOptions extends ComposerOptions {
  config: () => ChatSessionConfig;
  /** Where this widget's state lives on the device (project + integration + element id). */
  scope: () => string;
  openStore: (scope: string) => DeviceMemoryStore;
  /** Coalesces streaming updates; the element passes a frame scheduler. */
  schedule?: (callback: () => void) => void;
  fetch?: typeof fetch;
  saveDelayMs?: number;
  /** The page's client-side tools (§7). */
  tools?: () => readonly ClientTool[];
  /** The visitor's language for the agent (§4), read at every chat call. */
  locale?: () => string | undefined;
  /** False while `consent-required` waits for grantConsent(): nothing touches the device. */
  storageAllowed?: () => boolean;
}

/** Everything a view needs, replaced (never mutated) on every change. */
export interface ChatSnapshot {
  conversation: ConversationSnapshot;
  threadList: ThreadListSnapshot;
  /** The composer draft of the thread on screen. */
  draft: string;
  threadListOpen: boolean;
  /** A session endpoint or a token source is set. */
  configured: boolean;
  /** What the visitor sent that has not gone yet, oldest first (see Outbox). */
  outbox: readonly OutboxEntry[];
  /** The browser says it is offline: what is in the outbox waits for a connection. */
  offline: boolean;
  attachments: Tray;
}

/** Why `forget` runs; each reason resets the same things, only the token and the other tabs differ. */
export type ForgetReason = 'sign-out' | 'owner-changed' | 'other-tab';

/**
 * The whole conversation core, without a DOM: it builds its parts and ties them together. The
 * connection (token manager and API client, built lazily from the config), the conversation,
 * the outbox, the thread list, drafts and the device memory, bound to the owner it belongs to.
 * Views call the intents of the part that owns them (`session.conversation.stop()`), the
 * session's own where several parts take part (`send`, `openThread`, `forget`), and render
 * `snapshot`.
 *
 * Every request is abortable, and `forget` aborts what is under way, so a result that arrives
 * after a reset is dropped rather than shown or stored.
 */
export class ChatSession {
  readonly conversation: Conversation;
  readonly outbox: Outbox = new Outbox({
    onChange: () => this.#publish(),
    canSend: () => this.#tabs.maySend(),
    send: (text, attachments, key) => this.conversation.send(text, attachments, key),
    online: () => this.#tabs.sendWaiting(),
  });
  readonly threadList: ThreadList;
  readonly composer: Composer;
  readonly memory: DeviceMemory;
  readonly owner: OwnerGate;
  readonly #connection: ServiceConnection;
  #current: ChatSnapshot;
  /** Between connect() and disconnect(): only then may this session take an answer over or send from the outbox. */
  #connected = false;
  readonly #tabs: TabHandoff;
  readonly #kept: KeptThreads;

  readonly #options: ChatSessionOptions;
  readonly #hooks: ChatSessionHooks;

  constructor(options: ChatSessionOptions, hooks: ChatSessionHooks) {
    this.#options = options;
    this.#hooks = hooks;
    this.#connection = new ServiceConnection(
      options.config,
      (status) => {
        hooks.onSessionChange?.(status);
        if (status === 'ready') this.owner.judge();
      },
      options.fetch,
    );
    const client = () => this.#connection.client();
    this.conversation = new Conversation(client, this.#conversationHooks(), options);
    this.threadList = new ThreadList(client, {
      onChange: () => this.#publish(),
      // A public session never has an owner (§2b, decision 436): no proof of work spent on a 403.
      // Else the session's word (held first: decision 695), else the page's owner-key as it is now.
      noHistory: () =>
        sessionSourceOf(options.config()) === 'public'
          ? 'public'
          : (this.#connection.ownerKey ?? options.config().ownerKey) === NO_OWNER && 'signed-out',
      // The list answered 403 after answering for an owner: someone else holds the session now.
      onOwnerLost: () => this.forget('owner-changed'),
      onError: (error) => hooks.onError(error),
      onAnswered: () => this.memory.listAnswered(),
      session: () => this.#connection.confirm(),
    });
    this.composer = new Composer(
      {
        onChange: () => this.#publish(),
        // From the visitor's choice of a thread, what they type is its draft (decision 659).
        threadId: () => this.#kept.opening ?? this.conversation.snapshot.threadId,
        client,
        send: (text, files) => this.send(text, files),
      },
      options,
    );
    this.memory = this.#deviceMemory();
    const { threadList: list, conversation } = this;
    this.#kept = new KeptThreads({
      list,
      conversation,
      store: () => this.memory.store,
      tools: options.tools,
    });
    this.#tabs = new TabHandoff({
      scope: () => options.scope(),
      connected: () => this.#connected,
      conversation: this.conversation,
      memory: this.memory,
      outbox: this.outbox,
    });
    this.owner = new OwnerGate(this.#connection, this.memory, {
      onOwnerChanged: () => void this.forget('owner-changed'),
    });
    this.#current = snapshotOf(this, options.config());
  }

  /** The conversation's hooks: the host's, and what its answers mean to the other parts. */
  #conversationHooks(): ConversationHooks {
    const hooks = this.#hooks;
    return {
      ...hooks,
      onChange: () => this.#publish(),
      onAnswerStart: (detail) => {
        hooks.onAnswerStart?.(detail);
        // The question, its thread and the answer's id go to the device at once: a reload (or
        // another tab) a moment later reattaches to the answer or follows it.
        void this.memory.flush();
      },
      onBusy: (busy) => this.#tabs.setBusy(busy),
      onAnswerEnd: (detail) => {
        hooks.onAnswerEnd?.(detail);
        this.outbox.sendNext();
        this.#kept.keepCurrent();
        // A message creates or bumps a thread: the list is out of date.
        this.threadList.markStale();
        this.threadList.refreshIfOpen();
      },
      onThreadGone: (threadId) => this.threadList.drop(threadId),
      onOffline: (text, attachments, key) => this.outbox.takeBack(text, attachments, key),
    };
  }

  #deviceMemory(): DeviceMemory {
    const options = this.#options;
    return new DeviceMemory({
      // Before consent, a store that keeps nothing: IndexedDB is not even opened.
      openStore: (scope) => ((options.storageAllowed?.() ?? true) ? options.openStore(scope) : NO_STORE),
      saveDelayMs: options.saveDelayMs,
      currentKey: () => this.owner.currentKey,
      collect: () => liveStateOf(this),
      restorePanel: ({ threadListOpen, open }) => {
        // The visitor (or the page) may have opened or closed the list before the device answered.
        this.threadList.restoreOpen(threadListOpen);
        this.#hooks.onPanelRestored?.(open);
        this.#publish();
      },
      restoreConversations: (remembered, how) => {
        (how === 'follow' ? follow : restore)(this, this.#tabs, remembered);
        this.#publish();
      },
      confirmOwner: () => this.owner.awaitConfirmation(),
      wipedElsewhere: () => this.forget('other-tab'),
    });
  }

  get snapshot(): ChatSnapshot {
    return this.#current;
  }

  /** Starts remembering: reads the device once, follows other tabs' wipes. */
  connect(): void {
    this.#connected = true;
    this.syncConfig();
    this.outbox.connect();
    this.memory.open(this.#options.scope());
    // A list remembered open with nothing it may show stays closed rather than "loading"
    // forever: opening it asks the service, and that is the visitor's call.
    void this.memory.hydrated.then(() => {
      const { status, threads } = this.threadList.snapshot;
      if (this.threadList.open && status === 'idle' && !threads.length) this.threadList.setOpen(false);
      this.#kept.prune();
    });
  }

  disconnect(): void {
    this.#connected = false;
    this.outbox.disconnect();
    this.conversation.dispose();
    this.memory.close();
  }

  /**
   * Reports, once, a page that gave no way to get a session, with the fix. Called after the
   * host's first render, so properties a framework sets right after creating it count.
   */
  checkConfigured(): void {
    const error = this.#connection.misconfigured();
    if (!error) return;
    console.error(error.message);
    this.#hooks.onError(describeError(error));
  }

  /**
   * Reads the config again (the host calls this before each render). A new page owner key
   * means another visitor. The previous visitor's
   * token, list and conversation go, and an open list reloads for the new one.
   */
  syncConfig(): void {
    const config = this.#options.config();
    if (Boolean(sessionSourceOf(config)) !== this.#current.configured) this.#publish();
    if (this.owner.setPageKey(config.ownerKey)) this.#publish();
  }

  /**
   * Sends `text`, or puts it in the outbox while an answer streams, the outbox holds earlier
   * questions, or the browser is offline (it is sent once, when it may go); `files` are taken
   * then. False when the outbox is full or the chosen thread could not be read (files kept).
   */
  async send(text: string, files: () => readonly FileInfo[] = () => []): Promise<boolean> {
    await this.owner.beforeSend();
    // Sent while a chosen thread is read, it goes to that thread once it shows (decision 659).
    if (!(await this.#kept.opened())) return false;
    const threadId = this.conversation.snapshot.threadId;
    const wait = this.conversation.streaming || this.outbox.entries.length > 0 || isOffline();
    if (wait && !this.outbox.add(text, files)) return false;
    this.composer.sent(threadId, text);
    if (!wait) await this.conversation.send(text, files());
    return true;
  }

  /**
   * Consent changed. Granted: what is on screen is written from now on. Revoked: what was
   * stored is wiped, and nothing is written again until it is granted.
   */
  async setStorageAllowed(allowed: boolean): Promise<void> {
    if (!allowed) await this.memory.wipe({ broadcast: true, unbind: false });
    this.memory.close();
    this.memory.open(this.#options.scope());
    await this.memory.hydrated;
    this.owner.judge();
    this.#publish();
  }

  newConversation(): void {
    this.#kept.abandon();
    this.conversation.reset();
  }

  /** Resumes a thread (see ThreadList.read); opening another, or a new conversation, abandons it. */
  async openThread(threadId: string): Promise<void> {
    const read = this.#kept.open(threadId, (thread) => {
      this.conversation.reset(thread.id, thread.messages);
      this.#tabs.reattachLast();
    });
    // The message box is the chosen thread's from now on (decision 659).
    this.#publish();
    const { composer } = this;
    // Not had (an error says why): the box is the screen's again, and shows what was typed for
    // the chosen one if the screen's holds nothing, rather than hide it.
    if (!(await read) && !composer.draft) composer.setDraft(composer.drafts[threadId] ?? '');
    this.#publish();
  }

  /** Deletes a thread; the conversation on screen starts over when it was that thread. */
  async deleteThread(threadId: string): Promise<void> {
    // A public visitor's row leaves the device's list, and its messages with it (decision 519).
    if (!(await this.threadList.remove(threadId))) return;
    if (this.conversation.snapshot.threadId === threadId) this.conversation.reset();
  }

  /**
   * The one place that resets. Every reason aborts what is under way, empties the conversation,
   * the list and the drafts, and wipes the device; a sign-out and another tab's wipe also drop
   * the token (it may be the previous owner's). Only this tab's own reasons tell the others.
   * An open list reloads for whoever is here now.
   */
  forget(reason: ForgetReason): Promise<void> {
    this.#kept.abandon();
    this.#tabs.reset();
    this.owner.reset();
    if (reason !== 'owner-changed') this.#connection.clearToken();
    this.composer.clear();
    this.outbox.clear();
    this.conversation.reset();
    this.threadList.clear();
    const wiped = this.memory.wipe({ broadcast: reason !== 'other-tab', unbind: reason !== 'owner-changed' });
    this.threadList.refreshIfOpen();
    this.#publish();
    return wiped;
  }

  #publish(): void {
    this.#current = snapshotOf(this, this.#options.config());
    this.memory.changed();
    this.#hooks.onChange(this.#current);
  }
}

/** What views render, from the session's parts as they are now. */
function snapshotOf(session: ChatSession, config: ChatSessionConfig): ChatSnapshot {
  const { conversation, threadList, composer, outbox } = session;
  return {
    conversation: conversation.snapshot,
    threadList: threadList.snapshot,
    draft: composer.draft,
    threadListOpen: threadList.open,
    configured: Boolean(sessionSourceOf(config)),
    outbox: outbox.entries,
    offline: isOffline(),
    attachments: composer.tray,
  };
}
