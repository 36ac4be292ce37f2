import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import { RETRYABLE, type ChatMessage } from '../../chat/types.js';
import { AgentChatMessageRetryEvent } from '../../events/message-retry.js';
import { IncrementalMarkdown, type MarkdownView } from '../../markdown/incremental.js';
import { renderView } from '../../markdown/render.js';
import { safeHref } from '../../markdown/safe-url.js';
import hostStyles from '../../styles/host.styles.js';
import styles from './message.styles.js';
// Issue 14 (tools, activity, uncertainty): rendered by a module of its own.
import { answerExtrasStyles, renderActivity, renderToolCalls, renderUncertain, renderWaiting } from '../tool-call/answer-extras.js';

const STATUS_LABEL: Partial<Record<ChatMessage['status'], string>> = {
  sending: 'Sending…',
  failed: 'Not sent',
  stopped: 'Stopped',
  interrupted: 'Interrupted',
};

/**
 * One message. Assistant text is untrusted markdown, rendered token by token as Lit templates.
 *
 * @internal
 * @tag agent-chat-message
 * @fires {AgentChatMessageRetryEvent} agent-chat-message-retry - The visitor asked to try again.
 * @csspart bubble - The message bubble.
 * @csspart content - The rendered text.
 * @csspart sources - The list of sources under an answer.
 * @csspart meta - Status line (stopped, interrupted, not sent).
 * @csspart error - An error explaining a failed message.
 */
export class AgentChatMessage extends LitElement {
  static override styles = [hostStyles, styles, answerExtrasStyles];

  /** The message to show; replaced, never mutated, on every change. */
  @property({ attribute: false }) message?: ChatMessage;

  /** Issue 14: the visitor opened this answer's steps. */
  @state() private stepsOpen = false;

  private readonly markdown = new IncrementalMarkdown();
  private view: MarkdownView = { groups: [], tail: [], overflow: [] };

  override willUpdate(changed: PropertyValues<this>): void {
    const message = this.message;
    if (!changed.has('message') || !message || message.role !== 'assistant') return;
    this.view = message.status === 'streaming' ? this.markdown.update(message.content) : this.markdown.finish(message.content);
  }

  private handleRetryClick(): void {
    if (this.message) this.dispatchEvent(new AgentChatMessageRetryEvent({ messageId: this.message.id }));
  }

  private renderSources() {
    const links = (this.message?.sources ?? []).flatMap((source) => {
      const href = safeHref(source.source_url);
      return href ? [{ href, title: source.title }] : [];
    });
    if (!links.length) return nothing;
    return html`<ul class="sources" part="sources" aria-label="Sources">
      ${links.map((link) => html`<li><a href=${link.href} target="_blank" rel="noopener noreferrer nofollow">${link.title}</a></li>`)}
    </ul>`;
  }

  private renderMeta(message: ChatMessage) {
    const label = STATUS_LABEL[message.status];
    const retry = RETRYABLE.has(message.status) && message.error?.recoverable !== false;
    if (!label && !message.error) return nothing;
    return html`<div class="meta" part="meta">
      ${label ? html`<span>${label}</span>` : nothing}
      ${message.error ? html`<p class="error" part="error" role="alert">${message.error.message}</p>` : nothing}
      ${retry ? html`<button class="retry" type="button" @click=${this.handleRetryClick}>Retry</button>` : nothing}
    </div>`;
  }

  override render() {
    const message = this.message;
    if (!message) return nothing;
    if (message.role === 'user') {
      return html`<div class="user"><div class="bubble" part="bubble"><span class="visually-hidden">You said: </span>${message.content}</div>${this.renderMeta(message)}${renderWaiting(message)}</div>`;
    }
    const empty = !message.content && message.status === 'streaming';
    return html`<div class="assistant">
      ${renderActivity(message, this.stepsOpen, () => (this.stepsOpen = !this.stepsOpen))}
      ${renderToolCalls(message)}
      <div class="bubble" part="bubble" aria-busy=${message.status === 'streaming' ? 'true' : 'false'}>
        <div class="content" part="content">
          ${empty ? html`<span class="typing"><span class="visually-hidden">The assistant is typing</span></span>` : nothing}
          ${renderView(this.view)}
        </div>
        ${this.renderSources()}
      </div>
      ${renderUncertain(message)}
      ${this.renderMeta(message)}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat-message': AgentChatMessage;
  }
}
