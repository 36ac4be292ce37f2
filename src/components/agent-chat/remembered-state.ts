import type { ReactiveControllerHost } from 'lit';
import type { UiState } from '../../chat/ui-state-store.js';
import type { ChatController } from '../../controllers/chat-controller.js';
import { UiStateController } from '../../controllers/ui-state-controller.js';

/** The panel state the root owns and this controller remembers. */
export interface PanelState {
  open: boolean;
  sidebarOpen: boolean;
}

export interface RememberedStateOptions {
  scope: () => string;
  chat: ChatController;
  panel: { get: () => PanelState; restore: (state: PanelState) => void };
}

/**
 * What `<agent-chat>` remembers on this device, and the per-thread composer drafts: maps the
 * root's state to a UiState for IndexedDB and back. Applying it never talks to the service.
 */
export class RememberedState {
  /** Composer drafts by thread id ('' for a new conversation). */
  private drafts: Record<string, string> = {};
  private readonly store: UiStateController;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly options: RememberedStateOptions,
  ) {
    this.store = new UiStateController(host, {
      scope: options.scope,
      collect: () => this.collect(),
      apply: (state, origin) => this.apply(state, origin),
      onWiped: () => {
        options.chat.directory.clear();
        options.chat.conversation.reset();
        void this.forget(false);
      },
    });
  }

  get hydrated(): Promise<void> {
    return this.store.hydrated;
  }

  draft(threadId: string | null): string {
    return this.drafts[threadId ?? ''] ?? '';
  }

  setDraft(threadId: string | null, text: string): void {
    const key = threadId ?? '';
    const { [key]: _replaced, ...others } = this.drafts;
    this.drafts = text ? { ...others, [key]: text } : others;
    this.host.requestUpdate();
  }

  /** Drops drafts and the stored state; `broadcast` also tells the other tabs. */
  async forget(broadcast = true): Promise<void> {
    this.drafts = {};
    this.host.requestUpdate();
    if (broadcast) await this.store.wipe();
  }

  private collect(): UiState {
    const { chat } = this.options;
    const panel = this.options.panel.get();
    return {
      open: panel.open,
      sidebarOpen: panel.sidebarOpen,
      activeThreadId: chat.snapshot.threadId,
      drafts: this.drafts,
      threads: [...chat.history.threads],
      messages: [...chat.snapshot.messages],
      owned: chat.directory.owned,
    };
  }

  private apply(state: UiState, origin: 'hydrate' | 'visible'): void {
    const { chat } = this.options;
    if (chat.history.status === 'idle') chat.directory.restore(state.threads, state.owned);
    // IndexedDB may answer after the visitor started typing or sending: theirs wins.
    const untouched = chat.snapshot.messages.length === 0 && !chat.snapshot.streaming && !Object.keys(this.drafts).length;
    if (origin === 'visible' || !untouched) return;
    this.options.panel.restore({ open: state.open, sidebarOpen: state.sidebarOpen });
    this.drafts = state.drafts;
    chat.conversation.reset(state.activeThreadId, state.messages);
  }
}
