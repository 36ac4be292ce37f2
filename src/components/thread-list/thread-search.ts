import { html, nothing, type ReactiveController, type ReactiveControllerHost } from 'lit';
import type { ThreadSummary } from '../../api/types.js';
import type { ThreadListSnapshot } from '../../chat/thread-list.js';
import type { Translate } from '../../i18n/index.js';
import { icon } from '../icons.js';

/** Pages the search loads on its own for one query before it leaves "Show more" to the visitor. */
export const SEARCH_AUTO_PAGES = 5;
/** How long the typing pauses before a query's outcome shows and is spoken: once a query, not once a key. */
export const SEARCH_SETTLE_MS = 500;
/** A longer query is cut in the words that repeat it. */
const QUOTED_MAX = 60;

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/**
 * The threads whose title and preview (the title's answer, decision 339) hold every word of
 * `query`, case- and accent-insensitive (decision 528).
 */
export function matchThreads(threads: readonly ThreadSummary[], query: string): readonly ThreadSummary[] {
  const words = fold(query).split(/\s+/).filter(Boolean);
  return words.length
    ? threads.filter((thread) => {
        const text = fold(`${thread.title}\n${thread.preview ?? ''}`);
        return words.every((w) => text.includes(w));
      })
    : threads;
}

type Host = ReactiveControllerHost & { readonly renderRoot: HTMLElement | DocumentFragment };

export interface ThreadSearchOptions {
  list: () => ThreadListSnapshot | undefined;
  /** Asks for the list's next page. */
  loadMore: () => void;
}

/**
 * The Conversations list's search (decision 527): typing never moves the focus; once the query
 * has settled, its outcome (no match, or how many) shows and a polite status region speaks it,
 * once. Escape in a field with words empties it and keeps the focus there (on an empty field it
 * goes on to close what it closed before), so does "Clear search"; Arrow Down goes to the first
 * match. A query loads a few more pages by itself, then says that only loaded threads were searched.
 */
export class ThreadSearch implements ReactiveController {
  query = '';
  /** The query has stood still long enough for its outcome to be shown and spoken. */
  #settled = true;
  #timer?: ReturnType<typeof setTimeout>;
  #autoPages = 0;

  readonly #host: Host;
  readonly #options: ThreadSearchOptions;

  constructor(host: Host, options: ThreadSearchOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  /** A query with words in it. */
  get active(): boolean {
    return this.query.trim() !== '';
  }

  get field(): HTMLInputElement | null {
    return this.#host.renderRoot.querySelector<HTMLInputElement>('input.search');
  }

  hostDisconnected(): void {
    clearTimeout(this.#timer);
    // Taken off the page before its query settled: its outcome shows when it is back.
    this.#settled = true;
  }

  /**
   * The search will ask for another page by itself: a bounded number per query, once it has
   * settled (a query typed key by key is one query, not one per key).
   */
  #paging(list: ThreadListSnapshot): boolean {
    return Boolean(
      this.active &&
      this.#settled &&
      list.nextCursor &&
      list.status === 'ready' &&
      this.#autoPages < SEARCH_AUTO_PAGES,
    );
  }

  hostUpdated(): void {
    const list = this.#options.list();
    if (!list || list.loadingMore || !this.#paging(list)) return;
    this.#autoPages++;
    queueMicrotask(() => this.#options.loadMore());
  }

  #set(query: string): void {
    this.query = query;
    this.#autoPages = 0;
    clearTimeout(this.#timer);
    // An emptied region first, so the same words for the next query are spoken again.
    this.#settled = !query.trim();
    if (!this.#settled)
      this.#timer = setTimeout(() => {
        this.#settled = true;
        this.#host.requestUpdate();
      }, SEARCH_SETTLE_MS);
    this.#host.requestUpdate();
  }

  /** Empties the search, the focus left where it is. */
  reset(): void {
    if (this.query) this.#set('');
  }

  #clear(): void {
    this.#set('');
    void this.#host.updateComplete.then(() => this.field?.focus());
  }

  readonly #keydown = (event: KeyboardEvent): void => {
    if (event.isComposing) return;
    if (event.key === 'Escape' && this.query) {
      event.preventDefault();
      event.stopPropagation(); // Escape empties the search first; the list stays open
      this.#clear();
    } else if (event.key === 'ArrowDown') {
      const first = this.#host.renderRoot.querySelector<HTMLElement>('button.open');
      if (!first) return;
      event.preventDefault();
      first.focus();
    }
  };

  /** The search field, with its "Clear search" while it has words (the browser's own clear button is hidden). */
  renderField(t: Translate) {
    const clear = t('clearSearch');
    return html`<div class="search-box">
      <input class="search" type="search" aria-label=${t('searchConversations')} placeholder=${t('searchConversations')}
        aria-describedby="search-outcome" .value=${this.query} @keydown=${this.#keydown}
        @input=${(e: Event) => this.#set((e.target as HTMLInputElement).value)}>
      ${this.query ? html`<button class="clear-search" type="button" aria-label=${clear} title=${clear} @click=${() => this.#clear()}>${icon('close')}</button>` : nothing}
    </div>`;
  }

  /**
   * The settled query's outcome, in a status region that is always there while the field is (a
   * region that arrives with its words is not reliably read): the visible words when nothing
   * matches, a count for a screen reader when something does, and what was not searched.
   */
  renderOutcome(t: Translate, matches: number) {
    const list = this.#options.list();
    // Not while it loads pages by itself: the words would come and go with each page.
    const ready =
      list?.threads.length && this.active && this.#settled && !list.loadingMore && !this.#paging(list);
    return html`<div class="search-outcome" id="search-outcome" role="status">${
      ready
        ? html`${matches ? html`<span class="visually-hidden">${t('searchMatches', { count: matches })}</span>` : html`<p>${this.#noMatches(t)}</p>`}
          ${list.nextCursor ? html`<p>${t('searchLoadedOnly')}</p>` : nothing}`
        : nothing
    }</div>`;
  }

  /** "No conversations match “…”.", the query isolated so one in another direction does not reorder the sentence. */
  #noMatches(t: Translate) {
    const query = this.query.trim();
    const [before, after] = t('noMatches', { query: '\u0000' }).split('\u0000');
    // A site's own words may leave the query out.
    if (after === undefined) return before;
    return html`${before}<bdi>${query.length > QUOTED_MAX ? `${query.slice(0, QUOTED_MAX - 1)}…` : query}</bdi>${after}`;
  }
}
