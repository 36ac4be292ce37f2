import { css, html, nothing } from 'lit';
import type { QueuedMessage } from '../../chat/chat-session.js';
import type { Translate } from '../../i18n/index.js';
import { icon } from '../icons.js';

export interface AgentBarOptions {
  queued: readonly QueuedMessage[];
  removeQueued: (id: string) => void;
  /** "Talk to a person" is offered (a `handoff` trigger matched). */
  handoff: boolean;
  onHandoff: () => void;
}

/**
 * Under the conversation, above the composer: follow-ups queued behind the answer in progress,
 * and "Talk to a person" when a handoff trigger matched. Nothing at all otherwise; the transcript
 * download lives in the header's "More" menu.
 */
export function renderAgentBar(t: Translate, o: AgentBarOptions) {
  if (!o.queued.length && !o.handoff) return nothing;
  return html`<div class="agent-bar" part="agent-bar">
    ${
      o.queued.length
        ? html`<ul class="queued" aria-label=${t('queued')}>
          ${o.queued.map(
            (q) => html`<li>
            <span class="queued-text">${q.text}</span>
            <span class="queued-label">${t('queued')}</span>
            <button type="button" class="remove" aria-label=${t('removeQueued')} title=${t('removeQueued')} @click=${() => o.removeQueued(q.id)}>${icon('close')}</button>
          </li>`,
          )}
        </ul>`
        : nothing
    }
    ${o.handoff ? html`<div class="bar-actions"><button type="button" class="link handoff" @click=${o.onHandoff}>${icon('person')}${t('talkToPerson')}</button></div>` : nothing}
  </div>`;
}

/** Saves `markdown` as a file through a temporary link (no server round trip). */
export function downloadMarkdown(markdown: string, name = 'conversation.md'): void {
  const url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown;charset=utf-8' }));
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export const agentBarStyles = css`
  .agent-bar { padding: 4px var(--agent-chat-space); font-size: 0.9em; }
  .queued { list-style: none; margin: 0; padding: 0; }
  .queued li { display: flex; gap: 8px; align-items: center; justify-content: flex-end; margin: 2px 0; }
  .queued-text { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .queued-label { color: var(--agent-chat-color-text-muted); }
  .bar-actions { display: flex; gap: 12px; justify-content: flex-end; }
  .link {
    font: inherit; font-size: 0.95em; background: none; border: 1px solid transparent; border-radius: 999px;
    padding: 3px 10px; cursor: pointer; color: var(--agent-chat-color-text-muted);
  }
  .link:hover { background: var(--agent-chat-color-surface-raised); color: var(--agent-chat-color-text); }
  .link.handoff { display: inline-flex; align-items: center; gap: 6px; border-color: var(--agent-chat-color-border); color: var(--agent-chat-color-text); }
  .link svg { width: 16px; height: 16px; }
  .remove { display: grid; place-items: center; width: 28px; height: 28px; padding: 0; border: 0; border-radius: 50%; background: none; color: var(--agent-chat-color-text-muted); cursor: pointer; }
  .remove svg { width: 16px; height: 16px; }
  .remove:hover { background: var(--agent-chat-color-surface-raised); }
  .remove:focus-visible, .link:focus-visible { outline: 2px solid var(--agent-chat-color-focus); outline-offset: 1px; }
`;
