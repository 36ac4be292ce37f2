import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { consume } from '@lit/context';
import { property, query, state } from 'lit/decorators.js';
import { keyed } from 'lit/directives/keyed.js';
import type { Notice, PendingFile } from '../../chat/attachments.js';
import type { ConversationSnapshot } from '../../chat/types.js';
import { conversationContext, englishLocale, localeContext, type Localized } from '../../context/index.js';
import { AgentChatComposerFilesEvent } from '../../events/composer-files.js';
import { AgentChatComposerInputEvent } from '../../events/composer-input.js';
import { AgentChatComposerStopEvent } from '../../events/composer-stop.js';
import { AgentChatComposerSubmitEvent } from '../../events/composer-submit.js';
import { formatBytes } from '../../../contract/byte-size.js';
import hostStyles from '../../styles/host.styles.js';
import { AttachmentKitController } from '../attachments/kit-controller.js';
import { icon } from '../icons.js';
import styles from './composer.styles.js';

/**
 * The message box. Enter sends, Shift+Enter adds a line; while an answer streams the button
 * becomes Stop. The text stays until the root accepts it (a vetoed send keeps it).
 *
 * @internal
 * @tag agent-chat-composer
 * @fires {AgentChatComposerInputEvent} agent-chat-composer-input - The visitor changed the draft.
 * @fires {AgentChatComposerSubmitEvent} agent-chat-composer-submit - The visitor sends the text.
 * @fires {AgentChatComposerStopEvent} agent-chat-composer-stop - The visitor stops the answer.
 * @fires {AgentChatComposerFilesEvent} agent-chat-composer-files - The visitor added or removed files.
 * @csspart field - The message box: one rounded field around the files, the text and both buttons.
 * @csspart input - The textarea.
 * @csspart attach-button - "Attach files".
 * @csspart send-button - The Send / Stop button.
 */
export class AgentChatComposer extends LitElement {
  static override styles = [hostStyles, styles];

  /** The draft text; the root owns it and sets it back after each change. */
  @property() value = '';

  /** Placeholder of the textarea; "Ask a question…" in the widget's language when unset. */
  @property() placeholder = '';

  /** The visitor may attach files (the "Attach files" button, paste). */
  @property({ type: Boolean }) attachable = false;

  /** The file picker's `accept` list. */
  @property() accept = '';

  /** The kinds the page takes, in words, for a refusal ("images and PDFs"). */
  @property() allowed = '';

  /** The files of the question being written, and the last refusal or failure. */
  @property({ attribute: false }) tray: { files: readonly PendingFile[]; notice: Notice | null } = {
    files: [],
    notice: null,
  };

  @consume({ context: localeContext, subscribe: true })
  @state()
  private l10n: Localized = englishLocale;

  @consume({ context: conversationContext, subscribe: true })
  @state()
  private conversation?: ConversationSnapshot;

  @query('textarea') private textarea!: HTMLTextAreaElement;
  @query('input[type=file]') private picker!: HTMLInputElement | null;

  readonly #kit = new AttachmentKitController(this);

  /** Files the visitor took out of the tray (the others leave it with their question). */
  readonly #removed = new Set<string>();
  /** What the tray's last change says politely; `id` says a repeat again (decision 584). */
  #said = { id: 0, text: '' };

  override focus(options?: FocusOptions): void {
    this.textarea?.focus(options);
  }

  /** The composer's last control (Send or Stop): where Tab leaves it, and a modal panel wraps. */
  get lastControl(): HTMLElement | null {
    return this.renderRoot.querySelector<HTMLElement>('[part="send-button"]');
  }

  override willUpdate(changed: PropertyValues<this>): void {
    // Files shown ask for the kit (chips, thumbnails, progress); it renders when it arrives.
    if (this.tray.files.length || this.tray.notice) void this.#kit.need();
    const before = changed.get('tray')?.files;
    if (before) this.#sayTrayChange(before, this.tray.files);
  }

  /**
   * "report.pdf attached" for files picked, pasted or dropped, "… removed" for those the visitor
   * took out; a question sent or a reset says nothing (refusals are the notice's alert).
   */
  #sayTrayChange(before: readonly PendingFile[], after: readonly PendingFile[]): void {
    const { t, locale } = this.l10n;
    const names = (files: readonly PendingFile[]) =>
      new Intl.ListFormat(locale, { type: 'conjunction' }).format(files.map((f) => f.name));
    const added = after.filter((f) => !before.some((b) => b.id === f.id));
    const removed = before.filter((f) => !after.some((a) => a.id === f.id) && this.#removed.delete(f.id));
    const words = [
      added.length ? t('fileAttached', { name: names(added) }) : '',
      removed.length ? t('fileRemoved', { name: names(removed) }) : '',
    ].filter(Boolean);
    if (words.length) this.#said = { id: this.#said.id + 1, text: words.join(' ') };
  }

  #submit(): void {
    // While an answer streams, Enter puts the message in the outbox; the button stays Stop.
    if (!this.value.trim() && !this.tray.files.length) return;
    this.dispatchEvent(new AgentChatComposerSubmitEvent({ text: this.value }));
  }

  #addFiles(files: readonly File[]): void {
    if (!files.length) return;
    void this.#kit.need();
    this.dispatchEvent(new AgentChatComposerFilesEvent({ add: files }));
  }

  #handlePicked(event: Event): void {
    const input = event.target as HTMLInputElement;
    this.#addFiles([...(input.files ?? [])]);
    // The same file may be picked again after its removal.
    input.value = '';
  }

  /** A pasted image (a screenshot) is attached; pasted text stays text. */
  #handlePaste(event: ClipboardEvent): void {
    const files = [...(event.clipboardData?.files ?? [])];
    if (!this.attachable || !files.length) return;
    event.preventDefault();
    this.#addFiles(files);
  }

  #handleInput(event: InputEvent): void {
    this.value = (event.target as HTMLTextAreaElement).value;
    // The draft's owner is the root's session; the native event is no contract of ours.
    this.dispatchEvent(new AgentChatComposerInputEvent({ text: this.value }));
  }

  #handleKeydown(event: KeyboardEvent): void {
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    this.#submit();
  }

  #handleSubmit(event: SubmitEvent): void {
    event.preventDefault();
    if (this.conversation?.streaming)
      this.dispatchEvent(new AgentChatComposerStopEvent({ source: 'button' }));
    else this.#submit();
  }

  #renderTray() {
    const { files, notice } = this.tray;
    if (!files.length && !notice) return nothing;
    const { t, locale } = this.l10n;
    const kit = this.#kit.kit;
    // Until the kit arrives (or where the site does not serve it): names, and the refusal in words.
    if (!kit)
      return html`<ul class="plain" aria-label=${t('attachedFiles')}>${files.map((f) => html`<li dir="auto">${f.name}</li>`)}</ul>
        <p class="plain" role="alert">${notice ? t(notice.key, { ...notice.values, allowed: this.allowed }) : ''}</p>`;
    return kit.tray({
      files,
      notice,
      t,
      allowed: this.allowed,
      formatBytes: (bytes) => formatBytes(bytes, locale),
      remove: (id) => {
        this.#removed.add(id);
        this.dispatchEvent(new AgentChatComposerFilesEvent({ remove: id }));
        // The removed chip took the focus with it: the message box keeps it.
        this.textarea.focus();
      },
    });
  }

  override render() {
    const streaming = this.conversation?.streaming ?? false;
    // A box without text follows the panel (its placeholder is in the widget's language), files in
    // the tray or not; typed text finds its own direction.
    const typed = !!this.value.trim();
    const empty = !typed && !this.tray.files.length;
    const { t } = this.l10n;
    // Files attached or removed are said in a polite live region (decision 584).
    // The files sit inside the field, above the text; the field's edge and ring are the form's.
    return html`<span class="visually-hidden" aria-live="polite" aria-atomic="true">${keyed(this.#said.id, this.#said.text)}</span><form part="field" @submit=${this.#handleSubmit}>
      ${this.#renderTray()}<div class="row">${
        this.attachable
          ? html`<button class="attach" part="attach-button" type="button" aria-label=${t('attachFiles')} title=${t('attachFiles')} @click=${() => this.picker?.click()}>${icon('attach')}</button>
        <input type="file" multiple hidden accept=${this.accept || nothing} tabindex="-1" aria-hidden="true" @change=${this.#handlePicked} />`
          : nothing
      }
      <textarea
        part="input"
        rows="1"
        aria-label=${t('message')}
        enterkeyhint="send"
        dir=${typed ? 'auto' : nothing}
        placeholder=${this.placeholder || t('messagePlaceholder')}
        .value=${this.value}
        @input=${this.#handleInput}
        @keydown=${this.#handleKeydown}
        @paste=${this.#handlePaste}
      ></textarea>
      ${
        // One button that turns from Stop into Send, never two: a Stop button swapped for a new
        // Send button took the focus with it, and the visitor who stopped was left on the page.
        html`<button
          class=${streaming ? 'stop' : ''}
          part="send-button"
          type="submit"
          aria-label=${t(streaming ? 'stop' : 'send')}
          title=${t(streaming ? 'stop' : 'send')}
          aria-disabled=${!streaming && empty ? 'true' : 'false'}
        >${icon(streaming ? 'stop' : 'send')}</button>`
      }</div>
    </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat-composer': AgentChatComposer;
  }
}
