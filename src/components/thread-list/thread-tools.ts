import { css, html } from 'lit';
import type { ThreadSummary } from '../../api/types.js';
import type { Translate } from '../../i18n/index.js';
import { icon } from '../icons.js';

/** "Rename …" on a row. */
export function renderRenameButton(t: Translate, title: string, onClick: () => void) {
  const name = t('renameThread', { title });
  return html`<button class="row-action rename" type="button" aria-label=${name} title=${name} @click=${onClick}>${icon('rename')}</button>`;
}

/** The row while renaming: a "Conversation title" textbox; Enter saves, Escape cancels. */
export function renderRenameField(
  t: Translate,
  thread: ThreadSummary,
  save: (title: string) => void,
  cancel: () => void,
) {
  const keydown = (event: KeyboardEvent) => {
    const input = event.target as HTMLInputElement;
    if (event.key === 'Enter') {
      event.preventDefault();
      const title = input.value.trim();
      if (title) save(title.slice(0, 80));
      else cancel();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation(); // Escape closes the field, not the panel
      cancel();
    }
  };
  return html`<li class="renaming">
    <input class="title-field" type="text" maxlength="80" aria-label=${t('conversationTitle')} .value=${thread.title} @keydown=${keydown}>
  </li>`;
}

export const threadToolsStyles = css`
  .search, .title-field {
    box-sizing: border-box; width: calc(100% - 16px); margin: 4px 8px; padding: 6px 8px; font: inherit;
    border: 1px solid color-mix(in srgb, var(--agent-chat-color-text-muted) 60%, var(--agent-chat-color-border)); border-radius: var(--agent-chat-radius);
    background: var(--agent-chat-color-surface); color: var(--agent-chat-color-text);
  }
  .search:focus-visible, .title-field:focus-visible { outline: 2px solid var(--agent-chat-color-focus); outline-offset: 1px; }
`;
