import { LitElement, html, nothing } from 'lit';
import { consume } from '@lit/context';
import { property, state } from 'lit/decorators.js';
import { keyed } from 'lit/directives/keyed.js';
import type { ThreadSummary } from '../../api/types.js';
import type { ThreadListSnapshot } from '../../chat/thread-list.js';
import type { ConversationSnapshot } from '../../chat/types.js';
import {
  conversationContext,
  englishLocale,
  threadListContext,
  localeContext,
  type Localized,
} from '../../context/index.js';
import { AgentChatThreadListDeleteEvent } from '../../events/thread-list-delete.js';
import { AgentChatThreadListLoadEvent } from '../../events/thread-list-load.js';
import { AgentChatThreadListSelectEvent } from '../../events/thread-list-select.js';
import hostStyles from '../../styles/host.styles.js';
import { dateGroup, relativeTime } from '../../i18n/index.js';
import { icon } from '../icons.js';
import styles from './thread-list.styles.js';
// Rename (§10) renders from a module of its own; the search is a controller of its own.
import { AgentChatThreadListRenameEvent } from '../../events/thread-list-rename.js';
import { renderRenameButton, renderRenameField, threadToolsStyles } from './thread-tools.js';
import { ThreadSearch, matchThreads } from './thread-search.js';
import { previewWords } from './row-words.js';

/**
 * The owner's conversations: newest first, paged, each resumable and deletable (with a
 * confirmation). Up/Down/Home/End move between threads.
 *
 * @internal
 * @tag agent-chat-thread-list
 * @fires {AgentChatThreadListSelectEvent} agent-chat-thread-list-select - A thread was chosen.
 * @fires {AgentChatThreadListDeleteEvent} agent-chat-thread-list-delete - Deletion was confirmed.
 * @fires {AgentChatThreadListLoadEvent} agent-chat-thread-list-load - More threads, or a retry.
 */
export class AgentChatThreadList extends LitElement {
  static override styles = [hostStyles, styles, threadToolsStyles];

  @consume({ context: threadListContext, subscribe: true })
  @state()
  private threadList?: ThreadListSnapshot;

  @consume({ context: conversationContext, subscribe: true })
  @state()
  private conversation?: ConversationSnapshot;

  @consume({ context: localeContext, subscribe: true })
  @state()
  private l10n: Localized = englishLocale;

  /** The thread whose deletion awaits confirmation. */
  @state() private confirming: string | null = null;

  @state() private renaming: string | null = null;

  /** Where the keyboard goes on once the last conversation is deleted (the root's New conversation). */
  @property({ attribute: false }) emptyFocus?: (list: Element) => HTMLElement | null;

  /** The deletion the visitor confirmed: its thread, its row's words and place among those shown. */
  #deleting: { id: string; title: string; at: number } | null = null;
  /** What the list last said politely; `id` says a repeat again. */
  #said = { id: 0, text: '' };
  /** The place of a row just deleted, for the focus to go on from there; -1 with none. */
  #refocus = -1;

  readonly #search = new ThreadSearch(this, {
    list: () => this.threadList,
    loadMore: () => this.dispatchEvent(new AgentChatThreadListLoadEvent({ reason: 'more' })),
  });

  /** The list went out of view: it opens again on every conversation (decision 541). */
  clearSearch(): void {
    this.#search.reset();
    this.#deleting = null;
  }

  async #startRename(threadId: string): Promise<void> {
    this.renaming = threadId;
    await this.updateComplete;
    const field = this.renderRoot.querySelector<HTMLInputElement>('.title-field');
    field?.focus();
    field?.select();
  }

  #endRename(threadId: string, title?: string): void {
    this.renaming = null;
    if (title) this.dispatchEvent(new AgentChatThreadListRenameEvent({ threadId, title }));
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLButtonElement>(`[data-thread="${CSS.escape(threadId)}"]`)?.focus(),
    );
  }

  /** The loading status had the focus when this update began (decision 515). */
  #loadingFocused = false;

  protected override willUpdate(): void {
    this.#loadingFocused = this.shadowRoot?.activeElement?.classList.contains('loading') === true;
    // The confirmed deletion went through (the thread left the list): said, and the focus goes on.
    const gone = this.#deleting;
    if (gone && this.threadList && !this.threadList.threads.some((t) => t.id === gone.id)) {
      this.#deleting = null;
      this.#said = { id: this.#said.id + 1, text: this.l10n.t('threadDeleted', { title: gone.title }) };
      this.#refocus = gone.at;
    }
  }

  /**
   * The loading status, focused when the list opened over the conversation, went with the
   * threads' arrival (or a failure): the focus goes where the list now starts, unless the
   * visitor moved it meanwhile.
   */
  protected override updated(): void {
    if (this.#loadingFocused && !this.renderRoot.querySelector('.loading')) this.focus();
    if (this.#refocus >= 0) this.#focusAfterDeletion();
  }

  /**
   * After a deletion (decision 582) the focus goes where the keyboard can go on: the row now in
   * the deleted one's place, else the one before it, else the search that is still there, else
   * the root's New conversation (an emptied list has nothing to act on). Unless the visitor moved
   * it out of the list meanwhile.
   */
  #focusAfterDeletion(): void {
    const at = this.#refocus;
    this.#refocus = -1;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (!lost && !this.shadowRoot?.activeElement) return;
    const rows = this.renderRoot.querySelectorAll<HTMLElement>('button.open');
    const next =
      rows[at] ??
      rows[at - 1] ??
      (this.#search.active ? this.#search.field : null) ??
      this.emptyFocus?.(this);
    (next ?? this).focus();
  }

  #handleListKeydown(event: KeyboardEvent): void {
    const buttons = Array.from(this.renderRoot.querySelectorAll<HTMLButtonElement>('button.open'));
    const index = buttons.indexOf(event.composedPath()[0] as HTMLButtonElement);
    if (index < 0) return;
    // Up from the first thread goes back to the search, where Down came from (decision 527).
    if (event.key === 'ArrowUp' && index === 0 && this.#search.field) {
      event.preventDefault();
      return this.#search.field.focus();
    }
    const next = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    buttons[Math.max(0, Math.min(buttons.length - 1, next))].focus();
  }

  /**
   * Focus moves here when the list opens over the conversation: the thread on screen, else the
   * first thing to act on, else the words that say why there is none (decision 500), or that
   * the threads are loading (decision 515).
   */
  override focus(options?: FocusOptions): void {
    this.#start()?.focus(options);
  }

  /** The list's last control, where Tab leaves it (the panel wraps from there); null with none (only words). */
  get lastControl(): HTMLElement | null {
    return [...this.renderRoot.querySelectorAll<HTMLElement>('button:enabled,input')].at(-1) ?? null;
  }

  #start(): HTMLElement | null {
    // A search that matches nothing: its field, which says so and where it is changed (decision
    // 527). The scroller only when nothing else is there: focus is not dropped to the page,
    // where Escape would no longer reach the panel.
    return (
      this.renderRoot.querySelector<HTMLElement>('li[aria-current="true"] .open') ??
      this.renderRoot.querySelector<HTMLElement>('.open') ??
      (this.#search.active ? this.#search.field : null) ??
      this.renderRoot.querySelector<HTMLElement>('.state p, .loading') ??
      this.renderRoot.querySelector<HTMLElement>('.scroller')
    );
  }

  /** Escape in a confirmation cancels it, and goes no further (the list stays open). */
  #handleConfirmKeydown(event: KeyboardEvent, threadId: string): void {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    this.confirming = null;
    void this.updateComplete.then(() =>
      this.renderRoot
        .querySelector<HTMLButtonElement>(`li[data-id="${CSS.escape(threadId)}"] .delete`)
        ?.focus(),
    );
  }

  async #askToDelete(threadId: string): Promise<void> {
    this.confirming = threadId;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLButtonElement>('.confirm .cancel')?.focus();
  }

  #confirmDelete(threadId: string, title: string): void {
    const shown = matchThreads(this.threadList?.threads ?? [], this.#search.query);
    this.#deleting = { id: threadId, title, at: shown.findIndex((t) => t.id === threadId) };
    this.confirming = null;
    this.dispatchEvent(new AgentChatThreadListDeleteEvent({ threadId }));
    // The confirmation went with its buttons: its row, back as it was, holds the focus meanwhile.
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLElement>(`li[data-id="${CSS.escape(threadId)}"] .open`)?.focus(),
    );
  }

  #renderThread(thread: ThreadSummary) {
    const { t, locale } = this.l10n;
    const title = thread.title || t('untitled');
    const preview = previewWords(thread, () => this.requestUpdate());
    if (this.confirming === thread.id) {
      // A public visitor's list is kept on this device: Delete forgets it here (decision 519).
      const words = t(this.threadList?.noHistory === 'public' ? 'confirmDeleteHere' : 'confirmDelete', {
        title,
      });
      return html`<li><div class="confirm" role="group" aria-label=${words} @keydown=${(e: KeyboardEvent) => this.#handleConfirmKeydown(e, thread.id)}>
        <span>${words}</span>
        <button class="danger" type="button" @click=${() => this.#confirmDelete(thread.id, title)}>${t('delete')}</button>
        <button class="cancel" type="button" @click=${() => (this.confirming = null)}>${t('cancel')}</button>
      </div></li>`;
    }
    if (this.renaming === thread.id)
      return renderRenameField(
        this.l10n.t,
        thread,
        (next) => this.#endRename(thread.id, next),
        () => this.#endRename(thread.id),
      );
    return html`<li data-id=${thread.id} aria-current=${this.conversation?.threadId === thread.id ? 'true' : 'false'}>
      <button class="open" type="button" data-thread=${thread.id} @click=${() => this.dispatchEvent(new AgentChatThreadListSelectEvent({ threadId: thread.id }))}>
        <span class="title" dir="auto">${title}</span>
        ${preview ? html`<span class="preview" dir="auto">${preview}</span>` : html`<span class="time">${relativeTime(thread.updated_at, locale, t)}</span>`}
      </button>
      ${renderRenameButton(t, title, () => this.#startRename(thread.id))}
      <button class="row-action delete" type="button" aria-label=${t('deleteThread', { title })} title=${t('deleteThread', { title })} @click=${() => this.#askToDelete(thread.id)}>${icon('trash')}</button>
    </li>`;
  }

  #renderState(list: ThreadListSnapshot) {
    const { t } = this.l10n;
    const load = (reason: 'more' | 'retry') =>
      this.dispatchEvent(new AgentChatThreadListLoadEvent({ reason }));
    if (list.status === 'unavailable') {
      // A public integration has no sign-in to point to (decision 445); its list is the device's (decision 518).
      const why = list.noHistory === 'public' ? 'noHistoryKept' : 'signInForHistory';
      return html`<div class="state"><p tabindex="-1">${t(why)}</p></div>`;
    }
    if (list.status === 'error') {
      return html`<div class="state" role="alert"><p tabindex="-1">${t(list.error?.key ?? 'historyError')}</p><button type="button" @click=${() => load('retry')}>${t('retry')}</button></div>`;
    }
    // Idle with nothing to show means a load is about to start (the list only shows when asked for).
    if ((list.status === 'loading' || list.status === 'idle') && list.threads.length === 0) {
      return html`<div class="state loading" role="status" aria-label=${t('loading')} tabindex="-1"><span class="visually-hidden">${t('loading')}</span>
        ${[0, 1, 2, 3].map(() => html`<div class="skeleton" aria-hidden="true"><span></span><span></span></div>`)}</div>`;
    }
    if (list.status === 'ready' && list.threads.length === 0)
      return html`<div class="state"><p tabindex="-1">${t(list.noHistory === 'public' ? 'noHistoryKept' : 'noConversations')}</p></div>`;
    if (list.nextCursor) {
      return html`<div class="state"><button type="button" ?disabled=${list.loadingMore} @click=${() => load('more')}>${list.loadingMore ? t('loading') : t('showMore')}</button></div>`;
    }
    return nothing;
  }

  /** Newest first, under Today, Yesterday, Previous 7 days, then month by month. */
  #groupsOf(threads: readonly ThreadSummary[]): Array<[string, ThreadSummary[]]> {
    const { t, locale } = this.l10n;
    const groups: Array<[string, ThreadSummary[]]> = [];
    for (const thread of threads) {
      const label = dateGroup(thread.updated_at, locale, t);
      if (groups.at(-1)?.[0] === label) groups.at(-1)![1].push(thread);
      else groups.push([label, [thread]]);
    }
    return groups;
  }

  override render() {
    const list = this.threadList ?? { status: 'idle', threads: [], nextCursor: null, loadingMore: false };
    const { t } = this.l10n;
    const search = this.#search;
    const shown = matchThreads(list.threads, search.query);
    // No visible heading: the toggle above already says "Conversations"; the list keeps the name.
    // A deletion is said in a live region of its own, not a second status: the search's outcome is the list's status.
    return html`${list.threads.length || search.query ? search.renderField(t) : nothing}
      ${list.status === 'ready' && list.error ? html`<p class="refused" role="alert">${t(list.error.key)}</p>` : nothing}
      <div class="scroller" tabindex="-1">
        ${
          shown.length
            ? html`<div @keydown=${this.#handleListKeydown}>${this.#groupsOf(shown).map(
                ([label, threads], i) => html`
          <h3 class="group" id="group-${i}">${label}</h3>
          <ul aria-labelledby="group-${i}">${threads.map((t) => this.#renderThread(t))}</ul>`,
              )}</div>`
            : nothing
        }
        ${list.threads.length || search.query ? search.renderOutcome(t, shown.length) : nothing}
        ${this.#renderState(list)}
      </div>
      <div class="visually-hidden" aria-live="polite" aria-atomic="true">${keyed(this.#said.id, this.#said.text)}</div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat-thread-list': AgentChatThreadList;
  }
}
