import { html, nothing } from 'lit';
import type { ChatSession } from '../../chat/chat-session.js';
import { handoffHref, handoffTriggers, offersHandoff } from '../../chat/transcript.js';
import { AgentChatHandoffEvent } from '../../events/handoff.js';
import type { Translate } from '../../i18n/index.js';
import { icon } from '../icons.js';

export interface AgentBarOptions {
  session: ChatSession;
  t: () => Translate;
  /** The `handoff` attribute: when "Talk to a person" is offered. */
  triggers: () => string;
  /** The `handoff-url` attribute. */
  url: () => string;
  /** The conversation on screen as Markdown, in the widget's language. */
  transcript: () => string;
}

/**
 * Under the conversation, above the composer: the outbox (questions that have not gone yet, each
 * "Queued"), and "Talk to a person" when a handoff trigger matched. Nothing at all otherwise; the
 * transcript download lives in the header's "More" menu.
 */
export class AgentBar {
  readonly #host: HTMLElement;
  readonly #options: AgentBarOptions;

  constructor(host: HTMLElement, options: AgentBarOptions) {
    this.#host = host;
    this.#options = options;
  }

  render() {
    const { session, t: words, triggers } = this.#options;
    const t = words();
    const { outbox, offline, conversation } = session.snapshot;
    const handoff = offersHandoff(handoffTriggers(triggers()), conversation.messages.at(-1));
    if (!outbox.length && !handoff) return nothing;
    return html`<div class="agent-bar" part="agent-bar">
      ${outbox.length && offline ? html`<p class="offline" role="status">${t('waitingForConnection')}</p>` : nothing}
      ${
        outbox.length
          ? html`<ul class="outbox" aria-label=${t('queued')}>
            ${outbox.map(
              (q) => html`<li>
              <span class="outbox-text" dir="auto">${q.text ? html`<span class="outbox-words">${q.text}</span>` : nothing} ${
                // Its files too: offline, a visitor saw only the words and could not tell the photo would go.
                q.attachments?.length
                  ? html`<span class="outbox-files">${icon('attach')}${q.attachments.map((f) => f.name).join(', ')}</span>`
                  : nothing
              }</span>
              <span class="outbox-label">${t('queued')}</span>
              <button type="button" class="remove" aria-label=${t('removeQueued')} title=${t('removeQueued')} @click=${() => session.outbox.remove(q.id)}>${icon('close')}</button>
            </li>`,
            )}
          </ul>`
          : nothing
      }
      ${handoff ? html`<div class="bar-actions"><button type="button" class="link handoff" @click=${() => this.#talkToPerson()}>${icon('person')}${t('talkToPerson')}</button></div>` : nothing}
    </div>`;
  }

  /**
   * Reported to the service, told to the page (which may handle it itself: the event is
   * cancelable), then `handoff-url` opened with the transcript.
   */
  #talkToPerson(): void {
    const { session, url, transcript: markdown } = this.#options;
    const transcript = markdown();
    const threadId = session.snapshot.conversation.threadId;
    void session.conversation.reportHandoff();
    if (!this.#host.dispatchEvent(new AgentChatHandoffEvent({ threadId, transcript })) || !url()) return;
    const href = handoffHref(url(), transcript, this.#options.t()('handoffSubject'));
    if (href) window.open(href, '_blank', 'noopener');
  }
}

/** Saves `markdown` as a file through a temporary link (no server round trip). */
export function downloadMarkdown(markdown: string, name = 'conversation.md'): void {
  const url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown;charset=utf-8' }));
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
