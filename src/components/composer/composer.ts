import { LitElement, html, nothing } from 'lit';
import { consume } from '@lit/context';
import { property, query, state } from 'lit/decorators.js';
import type { ConversationSnapshot } from '../../chat/types.js';
import { conversationContext, englishLocale, localeContext, type Localized } from '../../context/index.js';
import { AgentChatComposerInputEvent } from '../../events/composer-input.js';
import { AgentChatComposerStopEvent } from '../../events/composer-stop.js';
import { AgentChatComposerSubmitEvent } from '../../events/composer-submit.js';
import hostStyles from '../../styles/host.styles.js';
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
 * @csspart input - The textarea.
 * @csspart send-button - The Send / Stop button.
 */
export class AgentChatComposer extends LitElement {
  static override styles = [hostStyles, styles];

  /** The draft text; the root owns it and sets it back after each change. */
  @property() value = '';

  /** Placeholder of the textarea; "Ask a question…" in the widget's language when unset. */
  @property() placeholder = '';

  @consume({ context: localeContext, subscribe: true })
  @state()
  private l10n: Localized = englishLocale;

  @consume({ context: conversationContext, subscribe: true })
  @state()
  private conversation?: ConversationSnapshot;

  @query('textarea') private textarea!: HTMLTextAreaElement;

  override focus(options?: FocusOptions): void {
    this.textarea?.focus(options);
  }

  /** The composer's last control (Send or Stop): where Tab leaves it, and a modal panel wraps. */
  get lastControl(): HTMLElement | null {
    return this.renderRoot.querySelector<HTMLElement>('[part="send-button"]');
  }

  #submit(): void {
    // While an answer streams, Enter puts the message in the outbox; the button stays Stop.
    if (!this.value.trim()) return;
    this.dispatchEvent(new AgentChatComposerSubmitEvent({ text: this.value }));
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

  override render() {
    const streaming = this.conversation?.streaming ?? false;
    // An empty box follows the panel (its placeholder is in the widget's language); typed text finds its own direction.
    const empty = !this.value.trim();
    const { t } = this.l10n;
    return html`<form @submit=${this.#handleSubmit}>
      <textarea
        part="input"
        rows="1"
        aria-label=${t('message')}
        enterkeyhint="send"
        dir=${empty ? nothing : 'auto'}
        placeholder=${this.placeholder || t('messagePlaceholder')}
        .value=${this.value}
        @input=${this.#handleInput}
        @keydown=${this.#handleKeydown}
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
      }
    </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat-composer': AgentChatComposer;
  }
}
