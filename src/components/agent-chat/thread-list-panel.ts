import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ChatSession } from '../../chat/chat-session.js';
import type { AgentChatThreadList } from '../thread-list/thread-list.js';
import { loadThreadList } from '../thread-list/load.js';

export interface ThreadListPanelOptions {
  session: ChatSession;
  list: () => AgentChatThreadList | null;
  /** The header's "Conversations" button, where focus returns when the list closes. */
  toggle: () => HTMLElement | null;
  /** The page's `owner-key` names a signed-in visitor: the start screen shows their latest threads. */
  signedIn: () => boolean;
  /** The panel is in view (open, or inline). */
  inView: () => boolean;
  /** A thread was chosen and is on screen. */
  opened: () => void;
}

/**
 * The thread list as the root shows it: beside the conversation, or over it in a narrow panel
 * (a container query decides), where opening it moves focus in, Escape or choosing a thread
 * closes it, and focus goes back to its toggle. Also asks for the list once for the start screen
 * of a signed-in visitor (decision 212): when that screen is in view, and only after the device
 * has been read (a reload that restores a conversation asks nothing).
 */
export class ThreadListPanel implements ReactiveController {
  /** The list was in view at the last update. */
  #shown = false;
  readonly #host: ReactiveControllerHost;
  readonly #options: ThreadListPanelOptions;

  constructor(host: ReactiveControllerHost, options: ThreadListPanelOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  /** The list is open over the conversation. */
  get covers(): boolean {
    const list = this.#options.list();
    return Boolean(
      this.#options.session.snapshot.threadListOpen && list && getComputedStyle(list).position === 'absolute',
    );
  }

  async show(visible: boolean): Promise<void> {
    this.#options.session.threadList.setOpen(visible);
    // The list's element is a part: the first opening waits for it (and its first render).
    if (visible) await loadThreadList().catch(() => {});
    await this.#host.updateComplete;
    await this.#options.list()?.updateComplete;
    if (visible && this.covers) this.#options.list()?.focus();
    else if (!visible) this.#options.toggle()?.focus();
  }

  /** Resumes a thread; a list over the conversation gets out of the way. */
  async select(threadId: string): Promise<void> {
    const { session } = this.#options;
    await session.openThread(threadId);
    if (this.covers) session.threadList.setOpen(false);
    this.#options.opened();
  }

  /**
   * A new conversation, as a chosen thread: a list over the conversation gets out of its way
   * (the message box under it is inert until the host's next render, so focus it after).
   */
  startNew(): void {
    const { session } = this.#options;
    session.newConversation();
    if (this.covers) session.threadList.setOpen(false);
  }

  /** Escape: closes a list that covers the conversation. Returns whether it did. */
  escape(event: KeyboardEvent): boolean {
    if (!this.covers) return false;
    event.stopPropagation();
    void this.show(false);
    return true;
  }

  hostUpdated(): void {
    const open = this.#options.session.snapshot.threadListOpen;
    // Open without a click (restored from the device, or opened through the session).
    if (open) void loadThreadList().catch(() => {});
    // Out of view (closed, a thread chosen over the conversation, or the panel closed): its
    // search goes with it, and the list comes back whole (decision 541). A list whose part has not
    // arrived yet (a reload closing a restored, empty list) is no element yet and holds no search.
    const shown = open && this.#options.inView();
    const list = this.#options.list();
    if (this.#shown && !shown && list?.matches(':defined')) list.clearSearch();
    this.#shown = shown;
    void this.#loadForStartScreen();
  }

  async #loadForStartScreen(): Promise<void> {
    const { session } = this.#options;
    const wanted = () => {
      const { conversation, threadList, configured } = session.snapshot;
      return (
        this.#options.signedIn() &&
        this.#options.inView() &&
        configured &&
        threadList.status === 'idle' &&
        !conversation.messages.length &&
        !conversation.streaming
      );
    };
    if (!wanted()) return;
    await session.memory.hydrated;
    if (wanted()) await session.threadList.load(false);
  }
}
