import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { property, query } from 'lit/decorators.js';
import { keyed } from 'lit/directives/keyed.js';
import { STREAM_IDLE_TIMEOUT_MS } from '../../api/idle-timeout.js';
import { ChatSessionController } from './chat-session-controller.js';
import { promptList } from './prompts.js';
import { LocalizeController } from './localize-controller.js';
import type { AgentChatComposerFilesEvent } from '../../events/composer-files.js';
import { AgentChatOpenChangeEvent } from '../../events/open-change.js';
import type { SessionPayload } from '../../session/types.js';
import type { SessionRequestHeaders } from '../../session/endpoint-source.js';
import type { ClientTool } from '../../public-types.js';
import type { AgentChat as PublicAgentChat } from '../../public-types.js';
import { worthSaving } from '../../chat/transcript.js';
import { AgentBar, downloadMarkdown } from './agent-bar.js';
import agentBarStyles from './agent-bar.styles.js';
import hostStyles from '../../styles/host.styles.js';
import tokenStyles from '../../styles/tokens.styles.js';
import type { AgentChatComposer } from '../composer/composer.js';
import { icon, type IconName } from '../icons.js';
import type { AgentChatThreadList } from '../thread-list/thread-list.js';
import { ModalPanel } from './modal-panel.js';
import { FocusKeeper } from './focus-keeper.js';
import { ThreadListPanel } from './thread-list-panel.js';
import { MoreMenu } from './more-menu.js';
import moreMenuStyles from './more-menu.styles.js';
import { ViewportController } from './viewport-controller.js';
import { SoleLauncher } from './sole-launcher.js';
import { PageBoundary } from './page-boundary.js';
import { AttachmentPanel, acceptOf, allowedWords, rulesOf } from './attachments.js';
import { DEFAULT_RULES } from '../../chat/attachments.js';
import { MAX_ATTACHMENTS } from '../../../contract/limits.js';
import { formatBytes } from '../../../contract/byte-size.js';
import styles from './agent-chat.styles.js';

/** Phones get no keyboard on open: it would cover the start screen and its prompts. */
const finePointer = () => globalThis.matchMedia?.('(pointer: fine)').matches ?? true;

const iconButton = (name: string, iconName: IconName, click: () => void, className = '') =>
  html`<button class="icon-button ${className}" type="button" aria-label=${name} title=${name} @click=${click}>${icon(iconName)}</button>`;

/** The header's New conversation, from the thread list beside it (one function: no new value each render). */
const newConversationBeside = (list: Element) =>
  (list.getRootNode() as ParentNode).querySelector<HTMLElement>('.new-conversation');

/**
 * A chat with an AI agent, for any page: a floating launcher or an inline panel, streamed
 * answers rendered as safe markdown, and a session token that never leaves memory.
 *
 * @summary Embeddable AI agent chat.
 * @tag agent-chat
 * @fires {AgentChatMessageSendEvent} agent-chat-message-send - Before a message is sent; cancelable.
 * @fires {AgentChatAnswerStartEvent} agent-chat-answer-start - The agent started answering.
 * @fires {AgentChatAnswerEndEvent} agent-chat-answer-end - An answer ended: complete, aborted or error.
 * @fires {AgentChatErrorEvent} agent-chat-error - Something failed; the widget shows it too.
 * @fires {AgentChatOpenChangeEvent} agent-chat-open-change - The launcher panel opened or closed.
 * @fires {AgentChatThreadChangeEvent} agent-chat-thread-change - The active thread changed.
 * @fires {AgentChatSessionChangeEvent} agent-chat-session-change - The session state changed.
 * @fires {AgentChatHandoffEvent} agent-chat-handoff - The visitor asked for a person; cancelable (then `handoff-url` is not opened).
 * @fires {AgentChatToolCallEvent} agent-chat-tool-call - A client-side tool is about to run.
 * @fires {AgentChatToolResultEvent} agent-chat-tool-result - A client-side tool call ended (done, error or denied).
 * @fires {AgentChatFeedbackEvent} agent-chat-feedback - The visitor rated an answer (Helpful / Not helpful).
 * @csspart launcher - The floating button that opens the panel.
 * @csspart panel - The chat panel.
 * @csspart header - The panel's title bar.
 * @csspart sidebar - The conversations list.
 * @csspart conversation - The message list.
 * @csspart message - Each message.
 * @csspart message-user - A message the visitor sent (with `message`).
 * @csspart message-assistant - A message of the agent (with `message`).
 * @csspart message__bubble - A message bubble.
 * @csspart message__content - The rendered text of a message.
 * @csspart message__sources - The sources listed under an answer.
 * @csspart message__error - The error line of a message that failed.
 * @csspart message__actions - Copy, feedback and Regenerate under an answer.
 * @csspart avatar - The logo or avatar in the header.
 * @csspart disclaimer - The line under the message box.
 * @csspart composer - The message box area.
 * @csspart composer__field - The message box: the one rounded field around its files, the text and both buttons; its edge and its focus ring (`:focus-within`).
 * @csspart composer__input - The composer's textarea (the text alone: the message box's edge and focus ring are `composer__field`'s).
 * @csspart composer__send-button - The Send / Stop button, inside the message box at its end.
 * @csspart composer__attach-button - "Attach files", inside the message box at its start.
 * @csspart message__files - A question's files (thumbnails, download chips).
 * @csspart error - The notice of a chat that is not configured.
 * @csspart agent-bar - The outbox (questions not sent yet, "Queued") and "Talk to a person", above the composer.
 * @csspart menu - The header's "More" menu (Download conversation).
 * @cssprop [--agent-chat-color-accent=#1d4ed8] - Launcher, visitor bubbles, Send button.
 * @cssprop [--agent-chat-color-on-accent=#ffffff] - Text and icons on the accent colour.
 * @cssprop [--agent-chat-color-surface=#ffffff] - Panel background.
 * @cssprop [--agent-chat-color-surface-raised=#f3f4f6] - Hover, pressed and selected backgrounds.
 * @cssprop [--agent-chat-color-text=#1f2328] - Text.
 * @cssprop [--agent-chat-color-text-muted=#57606a] - Secondary text.
 * @cssprop [--agent-chat-color-border=#d0d7de] - Borders and dividers; a text field's edge mixes it with the muted text, for 3:1.
 * @cssprop [--agent-chat-color-danger=#b42318] - Errors.
 * @cssprop [--agent-chat-color-focus=var(--agent-chat-color-accent)] - Focus rings (the accent unless set).
 * @cssprop [--agent-chat-color-code-background=#f6f8fa] - Code blocks.
 * @cssprop [--agent-chat-shadow=0 12px 40px rgb(0 0 0 / 0.18)] - Shadow of the launcher, the floating panel and the conversations list over it.
 * @cssprop [--agent-chat-font-family=system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif] - Font.
 * @cssprop [--agent-chat-font-size=15px] - Base font size.
 * @cssprop [--agent-chat-radius=12px] - Corner radius of the panel.
 * @cssprop [--agent-chat-space=12px] - Base spacing unit.
 * @cssprop [--agent-chat-panel-width=400px] - Width of the floating panel.
 * @cssprop [--agent-chat-panel-height=640px] - Height of the panel.
 * @cssprop [--agent-chat-sidebar-background=var(--agent-chat-color-surface)] - Background of the conversations list.
 * @cssprop [--agent-chat-sidebar-width=280px] - Width of the conversations list (at most 85 %, over the conversation, on narrow panels).
 * @cssprop [--agent-chat-message-max-width=85%] - Widest a visitor bubble gets.
 * @cssprop [--agent-chat-composer-background=var(--agent-chat-color-surface)] - Background of the message box area.
 * @cssprop [--agent-chat-z-index=2147483000] - Stacking order of launcher and panel where the browser has no popovers (they are drawn over the page).
 */
export class AgentChat extends LitElement implements PublicAgentChat {
  static override styles = [tokenStyles, hostStyles, styles, agentBarStyles, moreMenuStyles];

  /** Project ID, from the service's console (or its `--project` flag). */
  @property({ attribute: 'project-id' }) projectId = '';
  /** Integration ID of this agent. */
  @property({ attribute: 'integration-id' }) integrationId = '';
  /** URL of the site owner's session endpoint (POSTed with the page's cookies). */
  @property({ attribute: 'session-endpoint' }) sessionEndpoint = '';
  /** Service base URL; defaults to the page's origin. */
  @property({ attribute: 'base-url' }) baseUrl = '';
  /** The signed-in visitor's owner key (wire contract §2), `-` for anonymous; remembered conversations show only for it. */
  @property({ attribute: 'owner-key' }) ownerKey = '';
  /** `launcher` (a floating button, default) or `inline` (always open, in place). */
  @property({ reflect: true }) mode: 'launcher' | 'inline' = 'launcher';
  /** `light`, `dark` or `auto` (follows the visitor's system setting). */
  @property({ reflect: true }) theme: 'light' | 'dark' | 'auto' = 'light';
  /** Title of the panel; "Chat" in the widget's language when unset. */
  @property() heading = '';
  /** A line under the greeting on the start screen. */
  @property() subheading = '';
  /** URL of a logo or avatar shown before the title (decorative; the title names the chat). */
  @property() avatar = '';
  /** A short line under the message box, e.g. "Answers are generated by AI and may be wrong." */
  @property() disclaimer = '';
  /** Text of the start screen; "Hi! How can I help?" in the widget's language when unset. */
  @property() greeting = '';
  /** Overrides for any text, by key (docs/reference.md lists them), e.g. `{ send: 'Ask' }`. */
  @property({ attribute: false }) strings?: Partial<Record<string, string>>;
  /** Starter prompts, separated by `|`. */
  @property() prompts = '';
  /** Whether the launcher panel is open (always true inline). */
  @property({ type: Boolean, reflect: true, attribute: 'open' }) opened = false;
  /** Milliseconds an answer's stream may stay silent before it counts as interrupted. */
  @property({ type: Number, attribute: 'stream-idle-timeout' }) streamIdleTimeout = STREAM_IDLE_TIMEOUT_MS;
  /** Replaces `session-endpoint`: returns either session form, optionally with `ownerKey`. */
  @property({ attribute: false }) getSessionToken?: (signal: AbortSignal) => Promise<SessionPayload>;
  /**
   * Headers added to each `session-endpoint` request (a CSRF token, WordPress's `X-WP-Nonce`): an
   * object, or a function `(signal) => headers` (may be async) called before every request.
   */
  @property({ attribute: false }) sessionRequestHeaders?: SessionRequestHeaders;

  // Tools, consent and handoff.
  /**
   * Client-side tools the agent may call (§7): `[{name, description, parameters, execute(args, context),
   * needsApproval?, displayName?, describe?(args), timeoutMs?}]`. `describe(args)` returns what a call
   * will do in the visitor's words ("Open the pricing page"), shown on its card before approval;
   * without it the card lists the arguments.
   */
  @property({ attribute: false }) tools: ClientTool[] = [];
  /** Nothing is written to the device (IndexedDB) until `grantConsent()`. */
  @property({ type: Boolean, attribute: 'consent-required' }) consentRequired = false;
  /** When to offer "Talk to a person": `always`, `uncertainty`, `downvote` (space-separated). */
  @property() handoff = '';
  /** A `mailto:` or `https:` URL "Talk to a person" opens with the transcript (https: in the fragment). */
  @property({ attribute: 'handoff-url' }) handoffUrl = '';

  // Files in a question (§11); the integration's own settings in the console still apply.
  /** `off`: no "Attach files", and dropped or pasted files are not taken. */
  @property() attachments = 'on';
  /** The kinds a visitor may attach, space-separated: `image`, `text`, `pdf` (all three when unset). */
  @property({ attribute: 'attachment-types' }) attachmentTypes = '';
  /** Largest file in bytes, below the service's limit for its kind (0: the service's limits). */
  @property({ type: Number, attribute: 'attachment-max-size' }) attachmentMaxSize = 0;
  /** Files per question, 1 to 5 (0 turns attachments off). */
  @property({ type: Number, attribute: 'attachment-max-files' }) attachmentMaxFiles = MAX_ATTACHMENTS;

  /** `prompts` split once per change, so the list is not re-rendered on every streaming update. */
  #promptList: readonly string[] = [];
  /** open() or close() ran on this page: what the device remembers of the panel no longer applies. */
  #panelChosen = false;
  readonly #chat = new ChatSessionController(this, {
    locale: () => this.#l10n.tag,
    onPanelRestored: (open) => {
      // The visitor or the page opened or closed it before the device answered: that choice is newer.
      if (this.mode !== 'inline' && !this.#panelChosen) this.opened = open;
    },
    t: () => this.#l10n.t,
    attachmentRules: () => rulesOf(this) ?? { ...DEFAULT_RULES, kinds: [] },
    uploadTransport: async (onProgress) => (await this.#files.kit.need())?.transport(onProgress),
    formatBytes: (bytes) => formatBytes(bytes, this.#l10n.locale),
  });
  /** The language: `lang` on this element, else the nearest on the page. */
  readonly #l10n = new LocalizeController(this, () => this.strings);
  // Protected only because nothing reads them: they work through their host hooks.
  protected readonly viewport = new ViewportController(this, () => this.panel);
  protected readonly boundary = new PageBoundary(this);
  readonly #sole = new SoleLauncher(this);
  readonly #more = new MoreMenu(this);
  readonly #files = new AttachmentPanel(this, {
    session: this.#chat.session,
    enabled: () => rulesOf(this) !== null && (this.opened || this.mode === 'inline'),
    t: () => this.#l10n.t,
  });
  readonly #bar = new AgentBar(this, {
    session: this.#chat.session,
    t: () => this.#l10n.t,
    triggers: () => this.handoff,
    url: () => this.handoffUrl,
    transcript: () => this.#chat.transcript(),
  });
  readonly #threads = new ThreadListPanel(this, {
    session: this.#chat.session,
    list: () => this.threadList,
    toggle: () => this.threadListToggle,
    signedIn: () => this.ownerKey !== '' && this.ownerKey !== '-',
    inView: () => this.opened || this.mode === 'inline',
    opened: () => {
      if (finePointer()) this.composer?.focus();
    },
  });
  readonly #focus = new FocusKeeper({
    list: () => this.threadList,
    main: () => (finePointer() ? this.composer : this.panel),
  });
  readonly #modalPanel = new ModalPanel(this, {
    open: () => this.mode !== 'inline' && this.opened,
    panel: () => this.panel,
    first: () => this.threadListToggle,
    last: () => this.composer?.lastControl ?? null,
    over: () => (this.#threads.covers ? this.threadList : null),
  });

  @query('.panel') private panel!: HTMLElement | null;
  @query('.launcher') private launcher!: HTMLButtonElement | null;
  @query('agent-chat-composer') private composer!: AgentChatComposer | null;
  @query('#thread-list') private threadList!: AgentChatThreadList | null;
  @query('.thread-list-toggle') private threadListToggle!: HTMLButtonElement | null;

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('prompts')) this.#promptList = promptList(this.prompts);
    if (changed.has('opened') || changed.has('mode')) this.#chat.shown(this.mode === 'inline' || this.opened);
    if (!changed.has('opened')) return;
    this.#chat.session.memory.setPanelOpen(this.opened);
    if (changed.get('opened') !== undefined)
      this.dispatchEvent(new AgentChatOpenChangeEvent({ open: this.opened }));
  }

  /** Also waits for the remembered state (IndexedDB) to be applied. */
  protected override async getUpdateComplete(): Promise<boolean> {
    await this.#chat.session.memory.hydrated;
    return super.getUpdateComplete();
  }

  /**
   * Opens the panel and puts the cursor in the message box (not on touch screens, where the
   * keyboard would cover the start screen); with `query`, the question is filled in, and sent
   * when `submit` is true.
   */
  async open(options: { query?: string; submit?: boolean } = {}): Promise<void> {
    this.#panelChosen = true;
    this.opened = true;
    await this.updateComplete;
    if (options.query) {
      this.#chat.session.composer.setDraft(options.query);
      await this.updateComplete;
      if (options.submit) void this.send(options.query);
    }
    if (finePointer()) this.composer?.focus();
    else this.panel?.focus();
  }

  /** Closes the panel and returns focus to the launcher. */
  async close(): Promise<void> {
    if (this.mode === 'inline') return;
    this.#panelChosen = true;
    this.opened = false;
    await this.updateComplete;
    this.launcher?.focus();
  }

  toggle(): Promise<void> {
    return this.opened ? this.close() : this.open();
  }

  /** Sends `text` as the visitor would. Resolves when the answer ends. Returns false if vetoed. */
  send(text: string): Promise<boolean> {
    return this.#chat.send(text);
  }

  /** Starts a new conversation (the current thread stays in the thread list). */
  newConversation(): void {
    this.#threads.startNew();
    if (finePointer()) void this.updateComplete.then(() => this.composer?.focus());
  }

  /**
   * Forgets the session token and everything remembered on this device (threads, messages,
   * drafts), e.g. when the visitor signs out: a shared computer must not show the next visitor
   * the previous one's conversations.
   */
  clearSession(): Promise<void> {
    return this.#chat.session.forget('sign-out');
  }

  // Consent, transcript, handoff.
  /** The visitor agreed: from now on the conversation is remembered on this device. */
  grantConsent(): Promise<void> {
    return this.#chat.setConsent(true);
  }

  /** The visitor withdrew consent: what was stored is wiped, and nothing more is written. */
  revokeConsent(): Promise<void> {
    return this.#chat.setConsent(false);
  }

  /** The conversation on screen as Markdown (a promise, like every method through the loader). */
  async exportTranscript(): Promise<string> {
    return this.#chat.transcript();
  }

  /**
   * Escape closes the innermost layer: a confirmation or "More" (they handle it), the thread list over the conversation,
   * the panel. A modal (phone) panel keeps Tab inside.
   */
  #handleKeydown(event: KeyboardEvent): void {
    if (this.#modalPanel.wrapTab(event) || event.key !== 'Escape' || event.defaultPrevented) return;
    if (this.#threads.escape(event)) return;
    if (this.mode !== 'inline' && this.opened) {
      event.stopPropagation();
      void this.close();
    }
  }

  #renderPanel(floating: boolean) {
    const { session, snapshot } = this.#chat;
    const { t, dir, locale } = this.#l10n;
    const heading = this.heading || t('title');
    const listOpen = snapshot.threadListOpen;
    const rules = rulesOf(this);
    return html`<section id="panel" class="panel ${floating ? 'floating' : 'inline'}" part="panel" popover=${floating ? 'manual' : nothing} role=${floating ? 'dialog' : 'region'}
      aria-modal=${this.#modalPanel.modal ? 'true' : nothing} aria-label=${heading} dir=${dir} lang=${locale} tabindex="-1" ?hidden=${floating && !this.opened} @keydown=${this.#handleKeydown} @click=${this.#focus.clicked}
      @agent-chat-tool-decide=${this.#chat.decideTool}>
      <header part="header" role="none">
        <button class="icon-button thread-list-toggle" type="button" aria-label=${t('conversations')} title=${t('conversations')}
          aria-expanded=${listOpen ? 'true' : 'false'} aria-controls="thread-list" @click=${() => void this.#threads.show(!this.#chat.snapshot.threadListOpen)}>${icon('menu')}</button>
        ${this.avatar ? html`<img class="avatar" part="avatar" src=${this.avatar} alt="" />` : nothing}
        <h2 title=${heading}>${heading}</h2>
        ${iconButton(t('newConversation'), 'compose', () => this.newConversation(), 'new-conversation')}
        ${this.#more.render(t('more'), worthSaving(this.#chat.snapshot.conversation) ? [{ label: t('downloadConversation'), icon: 'download', run: () => downloadMarkdown(this.#chat.transcript()) }] : [])}
        ${floating ? iconButton(t('closeChat'), 'close', () => void this.close()) : nothing}
      </header>
      <div class="body">
      ${this.#files.render()}
      <div class="scrim" ?hidden=${!listOpen} @click=${() => void this.#threads.show(false)}></div>
      <agent-chat-thread-list id="thread-list" part="sidebar" role="region" aria-label=${t('conversations')} ?hidden=${!listOpen} .emptyFocus=${newConversationBeside}
        @agent-chat-thread-list-select=${(e: CustomEvent<{ threadId: string }>) => void this.#threads.select(e.detail.threadId)}
        @agent-chat-thread-list-delete=${(e: CustomEvent<{ threadId: string }>) => void session.deleteThread(e.detail.threadId)}
        @agent-chat-thread-list-rename=${(e: CustomEvent<{ threadId: string; title: string }>) => void session.threadList.rename(e.detail.threadId, e.detail.title)}
        @agent-chat-thread-list-load=${(e: CustomEvent<{ reason: string }>) => void session.threadList.load(e.detail.reason === 'more')}
      ></agent-chat-thread-list>
      <div class="main" ?inert=${listOpen && this.#threads.covers}>
      ${snapshot.configured ? nothing : html`<p class="notice" part="error" role="alert">${t('errorNotConfigured')}</p>`}
      <agent-chat-message-list class="conversation" part="conversation"
        exportparts="message, message-user, message-assistant, message__bubble, message__content, message__sources, message__error, message__actions, message__files"
        .greeting=${this.greeting || t('greeting')} .subheading=${this.subheading} .prompts=${this.#promptList} .label=${heading} .avatar=${this.avatar}
        @agent-chat-prompt-select=${(e: CustomEvent<{ text: string }>) => void this.send(e.detail.text)}
        @agent-chat-thread-list-select=${(e: CustomEvent<{ threadId: string }>) => void this.#threads.select(e.detail.threadId)}
        @agent-chat-message-retry=${(e: CustomEvent<{ messageId: string }>) => void session.conversation.retry(e.detail.messageId)}
        @agent-chat-message-action=${this.#chat.act}
      ></agent-chat-message-list>
      ${this.#bar.render()}
      <agent-chat-composer part="composer" exportparts="field:composer__field, input:composer__input, send-button:composer__send-button, attach-button:composer__attach-button" .value=${snapshot.draft}
        ?attachable=${rules !== null} .accept=${rules ? acceptOf(rules) : ''} .allowed=${rules ? allowedWords(rules, t, locale) : ''} .tray=${snapshot.attachments}
        @agent-chat-composer-input=${(e: CustomEvent<{ text: string }>) => session.composer.setDraft(e.detail.text)}
        @agent-chat-composer-files=${(e: AgentChatComposerFilesEvent) => ('add' in e.detail ? session.composer.attachments.add(e.detail.add) : session.composer.attachments.remove(e.detail.remove))}
        @agent-chat-composer-submit=${(e: CustomEvent<{ text: string }>) => void session.composer.send(e.detail.text, () => this.#chat.approves(e.detail.text))}
        @agent-chat-composer-stop=${() => session.conversation.stop()}
      ></agent-chat-composer>
      ${this.disclaimer ? html`<p class="disclaimer" part="disclaimer" dir="auto">${this.disclaimer}</p>` : nothing}
      </div>
      </div>
    </section>`;
  }

  override render() {
    const floating = this.mode !== 'inline';
    const launcher = floating && this.#sole.drawn;
    if (floating && !launcher && !this.#panelChosen) return nothing;
    const { announcement } = this.#chat;
    // The launcher keeps its name ("Open chat") and says open or closed with aria-expanded; its icon shows it too.
    return html`${
      launcher
        ? html`<button class="launcher" part="launcher" type="button" popover="manual" aria-label=${this.#l10n.t('openChat')} aria-expanded=${this.opened ? 'true' : 'false'} aria-controls="panel" @click=${this.toggle}>${icon(this.opened ? 'chevronDown' : 'chat')}</button>`
        : nothing
    }
      ${this.#renderPanel(floating)}
      <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${keyed(announcement.id, announcement.text)}</div>`;
  }
}
