import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { consume } from '@lit/context';
import { property, state } from 'lit/decorators.js';
import type { ChatMessage } from '../../chat/types.js';
import {
  englishLocale,
  fileAccessContext,
  localeContext,
  type FileAccess,
  type Localized,
} from '../../context/index.js';
import { AgentChatMessageActionEvent } from '../../events/message-action.js';
import { AgentChatMessageRetryEvent } from '../../events/message-retry.js';
import { formatBytes } from '../../../contract/byte-size.js';
import type { UiStringKey } from '../../i18n/index.js';
import type { IncrementalMarkdown, MarkdownView } from '../../markdown/markdown-engine.js';
import { loadMarkdown, markdownEngine } from '../../markdown/load.js';
import { safeHref } from '../../markdown/safe-url.js';
import hostStyles from '../../styles/host.styles.js';
import { AttachmentKitController } from '../attachments/kit-controller.js';
import { icon } from '../icons.js';
import styles from './message.styles.js';
// Tool cards, steps and uncertainty render from a module of their own.
import {
  answerExtrasStyles,
  renderActivity,
  renderToolCalls,
  renderUncertain,
  toolsBusy,
} from './answer-extras.js';

const STATUS_LABEL: Partial<Record<ChatMessage['status'], UiStringKey>> = {
  sending: 'sending',
  failed: 'notSent',
  stopped: 'stopped',
  interrupted: 'interrupted',
};

const REASONS = [
  ['incorrect', 'feedbackIncorrect'],
  ['irrelevant', 'feedbackIrrelevant'],
  ['unaddressed', 'feedbackUnaddressed'],
] as const;

/** "docs.example.com" for a source link: where the visitor would go, before they go. */
function domainOf(href: string): string {
  try {
    return new URL(href).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

/**
 * One message. Assistant text is untrusted markdown, rendered token by token as Lit templates;
 * a finished answer offers Copy, Helpful / Not helpful (with optional reasons) and, when last,
 * Regenerate.
 *
 * @internal
 * @tag agent-chat-message
 * @fires {AgentChatMessageRetryEvent} agent-chat-message-retry - The visitor asked to try again.
 * @fires {AgentChatMessageActionEvent} agent-chat-message-action - Feedback or Regenerate.
 * @csspart bubble - The message bubble (the visitor's) or the answer's body.
 * @csspart content - The rendered text.
 * @csspart sources - The list of sources under an answer.
 * @csspart meta - Status line (stopped, interrupted, not sent).
 * @csspart error - An error explaining a failed message.
 * @csspart actions - Copy, feedback and Regenerate under an answer.
 * @csspart files - A question's files: thumbnails of images, download chips for the others.
 */
export class AgentChatMessage extends LitElement {
  static override styles = [hostStyles, styles, answerExtrasStyles];

  /** The message to show; replaced, never mutated, on every change. */
  @property({ attribute: false }) message?: ChatMessage;

  /** The visitor opened this answer's steps. */
  @state() private stepsOpen = false;

  /** The newest answer: it may be regenerated. */
  @property({ type: Boolean }) last = false;

  /** Only the newest failure offers Retry: retrying an older one would reorder the conversation. */
  @property({ type: Boolean }) retryable = false;

  @consume({ context: localeContext, subscribe: true })
  @state()
  private l10n: Localized = englishLocale;

  /** Thumbnails and downloads of a question's files, with the session's token. */
  @consume({ context: fileAccessContext, subscribe: true })
  @state()
  private files?: FileAccess;

  readonly #kit = new AttachmentKitController(this);

  /** What the last Copy did, for two seconds: the words of its outcome. */
  @state() private copied: '' | 'copied' | 'copyFailed' = '';
  @state() private asking = false;
  @state() private thanked = false;

  #markdown?: IncrementalMarkdown;
  /** The answer's markdown, parsed; undefined until the engine has loaded (the text shows plain meanwhile). */
  #view?: MarkdownView;

  override willUpdate(changed: PropertyValues<this>): void {
    const message = this.message;
    if (message?.attachments?.length) void this.#kit.need();
    if (!changed.has('message') || !message || message.role !== 'assistant') return;
    const engine = markdownEngine();
    if (!engine) {
      // The first answer of the page: the engine arrives in a moment, then the text is parsed.
      void loadMarkdown().then(
        () => this.requestUpdate('message', undefined),
        () => {},
      );
      return;
    }
    this.#markdown ??= new engine.IncrementalMarkdown();
    // A stopped or interrupted answer ends where it was cut, maybe inside `**bold`: it keeps
    // the finished forms it streamed with rather than showing the raw syntax.
    const cut =
      message.status === 'streaming' || message.status === 'stopped' || message.status === 'interrupted';
    this.#view = cut ? this.#markdown.update(message.content) : this.#markdown.finish(message.content);
  }

  /** Settled means rendered as markdown: an answer waits for the engine, then for its render. */
  protected override async getUpdateComplete(): Promise<boolean> {
    const settled = await super.getUpdateComplete();
    if (this.message?.role !== 'assistant' || markdownEngine()) return settled;
    await loadMarkdown().catch(() => {});
    return super.getUpdateComplete();
  }

  #act(
    action: AgentChatMessageActionEvent['detail']['action'],
    comment?: AgentChatMessageActionEvent['detail']['comment'],
  ): void {
    if (this.message)
      this.dispatchEvent(new AgentChatMessageActionEvent({ messageId: this.message.id, action, comment }));
  }

  #react(reaction: 'upvote' | 'downvote'): void {
    this.#act(reaction);
    // Reasons are optional and asked only for "Not helpful"; a second click closes them.
    this.asking = reaction === 'downvote' && !this.asking;
    this.thanked = reaction === 'upvote';
    // The view may be held on the question above (decision 788): the visitor asked for the
    // form, so it comes into view rather than opening under the panel's edge.
    if (this.asking)
      void this.updateComplete.then(() =>
        this.renderRoot.querySelector('.reasons')?.scrollIntoView({ block: 'nearest' }),
      );
  }

  #sendReasons(event: SubmitEvent): void {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const comment = Object.fromEntries(REASONS.map(([name]) => [name, data.has(name)]));
    // §8: at most 2,000 characters (the field's maxlength); an empty one is left out.
    const value = data.get('issue');
    const issue = typeof value === 'string' ? value.trim() : '';
    this.#act('downvote', { ...comment, ...(issue ? { issue } : {}) });
    this.thanked = true;
    this.#closeReasons();
  }

  /**
   * The reasons form went with the button that closed it: the focus goes back to the vote it
   * came from (now pressed), not to the page and from there to the message box (decision 582).
   */
  #closeReasons(): void {
    this.asking = false;
    void this.updateComplete.then(() =>
      this.renderRoot.querySelector<HTMLElement>('.actions [aria-pressed="true"]')?.focus(),
    );
  }

  /** Escape in the reasons is their Cancel: the innermost layer closes, not the panel (decision 711). */
  #escapeReasons = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    this.#closeReasons();
  };

  async #copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.message?.content ?? '');
      this.copied = 'copied';
    } catch {
      // Refused (a permissions policy, an insecure page with no clipboard): said, and shown, as a
      // code block's Copy says it; the text stays selectable.
      this.copied = 'copyFailed';
    }
    setTimeout(() => (this.copied = ''), 2000);
  }

  #renderSources() {
    const links = (this.message?.sources ?? []).flatMap((source) => {
      const href = safeHref(source.source_url);
      return href ? [{ href, title: source.title, section: source.section, domain: domainOf(href) }] : [];
    });
    if (!links.length) return nothing;
    const { t } = this.l10n;
    return html`<div class="sources" part="sources">
      <p class="caption" id="sources">${t('sources')}</p>
      <ol aria-labelledby="sources">
        ${links.map((link, i) => html`<li><a href=${link.href} target="_blank" rel="noopener noreferrer nofollow"><span class="number" aria-hidden="true">${i + 1}</span><span class="title" dir="auto">${link.title}${link.section ? html`<span class="section" dir="auto">${link.section}</span>` : nothing}</span><span class="domain">${link.domain}</span></a></li>`)}
      </ol>
    </div>`;
  }

  #renderMeta(message: ChatMessage) {
    const { t } = this.l10n;
    const label = STATUS_LABEL[message.status];
    const retry = this.retryable && message.error?.recoverable !== false;
    if (!label && !message.error) return nothing;
    return html`<div class="meta" part="meta">
      ${
        // An answer that reconnects, or waits offline to (decisions 567, 587): a status, not an alert.
        message.error?.code === 'reconnecting'
          ? html`<span role="status">${t(message.error.key)}</span>`
          : message.error
            ? html`<p class="error" part="error" role="alert">${t(message.error.key ?? 'errorGeneric', message.error.values)}</p>`
            : label
              ? html`<span>${t(label)}</span>`
              : nothing
      }
      ${retry ? html`<button class="retry" type="button" @click=${() => this.dispatchEvent(new AgentChatMessageRetryEvent({ messageId: message.id }))}>${t('retry')}</button>` : nothing}
    </div>`;
  }

  #renderActions(message: ChatMessage) {
    // A stopped answer keeps what the visitor may want of it: its text (Copy) and another try.
    const stopped = message.status === 'stopped';
    if (!stopped && (message.status !== 'complete' || !message.content)) return nothing;
    const { t } = this.l10n;
    const feedback = Boolean(message.questionAnswerId) && !stopped;
    const button = (
      name: string,
      iconName: Parameters<typeof icon>[0],
      click: () => void,
      pressed?: boolean,
    ) =>
      html`<button class="action" type="button" aria-label=${name} title=${name} aria-pressed=${pressed === undefined ? nothing : String(pressed)} @click=${click}>${icon(iconName)}</button>`;
    return html`<div class="actions" part="actions">
        ${message.content ? button(this.copied === 'copied' ? t('copied') : t('copyAnswer'), this.copied === 'copied' ? 'check' : 'copy', () => void this.#copy()) : nothing}
        ${feedback ? button(t('helpful'), 'thumbUp', () => this.#react('upvote'), message.reaction === 'upvote') : nothing}
        ${feedback ? button(t('notHelpful'), 'thumbDown', () => this.#react('downvote'), message.reaction === 'downvote') : nothing}
        ${this.last ? button(t('regenerate'), 'regenerate', () => this.#act('regenerate')) : nothing}
        <span class=${(this.thanked && !this.copied) || this.copied === 'copyFailed' ? 'thanks' : 'visually-hidden'} role="status">${this.copied ? t(this.copied) : this.thanked ? t('feedbackThanks') : ''}</span>
      </div>
      ${
        this.asking
          ? html`<form class="reasons" aria-label=${t('feedbackQuestion')} @submit=${this.#sendReasons} @keydown=${this.#escapeReasons}>
        <p class="caption">${t('feedbackQuestion')}</p>
        <div class="chips">${REASONS.map(([name, key]) => html`<label class="chip"><input type="checkbox" name=${name} />${icon('check')}${t(key)}</label>`)}</div>
        <textarea name="issue" maxlength="2000" rows="2" aria-label=${t('feedbackDetails')} placeholder=${t('feedbackDetails')}></textarea>
        <div class="form-actions"><button type="submit" class="primary">${t('feedbackSubmit')}</button><button type="button" @click=${() => this.#closeReasons()}>${t('cancel')}</button></div>
      </form>`
          : nothing
      }`;
  }

  /** A question's files above its bubble; their names as a plain list until the kit has loaded. */
  #renderFiles(message: ChatMessage) {
    const files = message.attachments;
    if (!files?.length) return nothing;
    const { t, locale } = this.l10n;
    const kit = this.#kit.kit;
    const access = this.files;
    if (!kit || !access)
      return html`<ul class="file-names" part="files" aria-label=${t('attachedFiles')}>${files.map((f) => html`<li dir="auto">${f.name}</li>`)}</ul>`;
    return kit.files({
      files,
      t,
      formatBytes: (bytes) => formatBytes(bytes, locale),
      thumbnail: (file) => access.thumbnail(file),
      download: (file) => access.download(file),
    });
  }

  override render() {
    const message = this.message;
    if (!message) return nothing;
    const { t } = this.l10n;
    if (message.role === 'user') {
      // A question of files alone has no bubble of text.
      return html`<div class="user">${this.#renderFiles(message)}${message.content ? html`<div class="bubble" part="bubble" dir="auto">${message.content}</div>` : nothing}${this.#renderMeta(message)}</div>`;
    }
    // No typing dots while a tool card waits for the visitor or runs: the card says what is happening.
    const empty = !message.content && message.status === 'streaming' && !toolsBusy(message);
    return html`<div class="assistant ${this.last ? 'latest' : ''}">
      ${renderActivity(this.l10n.t, message, this.stepsOpen, () => (this.stepsOpen = !this.stepsOpen))}
      ${renderToolCalls(this.l10n.t, message)}
      <div class="body" part="bubble" aria-busy=${message.status === 'streaming' ? 'true' : 'false'}>
        <div class="content" part="content">
          ${empty ? html`<span class="typing"><span></span><span></span><span></span><span class="visually-hidden">${t('thinking')}</span></span>` : nothing}
          ${this.#view ? markdownEngine()!.renderView(this.#view, t) : html`<p class="plain" dir="auto">${message.content}</p>`}
        </div>
        ${this.#renderSources()}
      </div>
      ${renderUncertain(this.l10n.t, message)}
      ${this.#renderMeta(message)}
      ${this.#renderActions(message)}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat-message': AgentChatMessage;
  }
}
