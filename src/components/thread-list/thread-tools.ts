import { css, html } from 'lit';
import type { ThreadSummary } from '../../api/types.js';
import type { Translate } from '../../i18n/index.js';
import { icon } from '../icons.js';

/** Pages the search loads on its own for one query before it leaves "Show more" to the visitor. */
export const SEARCH_AUTO_PAGES = 5;

/** The threads whose title holds every word of `query`, case- and accent-insensitive. */
export function matchThreads(threads: readonly ThreadSummary[], query: string): readonly ThreadSummary[] {
  const fold = (s: string) =>
    s
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
  const words = fold(query).split(/\s+/).filter(Boolean);
  return words.length
    ? threads.filter((thread) => words.every((w) => fold(thread.title).includes(w)))
    : threads;
}

export function renderSearch(t: Translate, query: string, onInput: (query: string) => void) {
  return html`<input class="search" type="search" aria-label=${t('searchConversations')} placeholder=${t('searchConversations')}
    .value=${query} @input=${(e: Event) => onInput((e.target as HTMLInputElement).value)}>`;
}

export function renderNoMatches(t: Translate) {
  return html`<p class="state" role="status">${t('noMatches')}</p>`;
}

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
    border: 1px solid var(--agent-chat-color-border); border-radius: var(--agent-chat-radius);
    background: var(--agent-chat-color-surface); color: var(--agent-chat-color-text);
  }
  .search:focus-visible, .title-field:focus-visible { outline: 2px solid var(--agent-chat-color-focus); outline-offset: 1px; }
`;
