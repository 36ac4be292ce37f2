import { css, html, LitElement, nothing } from 'lit';
import { property, state } from 'lit/decorators.js';
import { ConsoleApiError, type ConsoleApi } from '../api.js';
import type { ConsoleDocHit } from '../../../contract/console.js';
import { field } from '../form.js';
import { base, tokens } from '../styles.js';

/**
 * "What a question retrieves": a project's index searched as a chat searches it, the ranked
 * sections with their scores and the words the search added (synonyms). The Sources page runs it
 * again when the synonyms change, and a conversation's question opens it searched (`question`).
 */
export class DocsSearch extends LitElement {
  static styles = [
    tokens,
    base,
    css`
    :host { display: block; }
    .search-form { align-items: end; }
    .search-form label { flex: 1; min-width: 220px; }
    .hint { margin: 4px 0 0; color: var(--c-muted); font-size: 13px; }
    .hits { margin: 0; padding-inline-start: 22px; display: grid; gap: 10px; }
    .hits li { min-width: 0; }
    .hit-head { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 2px 12px; }
    .hits a, .hits strong { font-weight: 600; overflow-wrap: anywhere; }
    .hits .where { color: var(--c-muted); font-size: 13px; overflow-wrap: anywhere; }
    .hits .excerpt { margin: 2px 0 0; font-size: 14px; white-space: pre-line; overflow-wrap: anywhere; }
    .score { font-variant-numeric: tabular-nums; font-size: 13px; color: var(--c-muted); white-space: nowrap; }
  `,
  ];

  @property({ attribute: false }) api!: ConsoleApi;
  @property() project = '';
  /** A question to search as soon as it is given (a conversation's), with the search brought into view. */
  @property() question = '';
  /** The question asked before `question` in its conversation: a follow-up is searched after it, as its chat was. */
  @property() earlier = '';
  /** The project has no sources: a search finds nothing, and says why. */
  @property({ type: Boolean }) empty = false;
  @state() private hits: ConsoleDocHit[] | null = null;
  /** The words the last search added to its question. */
  @state() private also: string[] = [];
  /** The question the last search was asked after (null: alone), and whether it took its words. */
  @state() private asked: { earlier: string; took: boolean } | null = null;
  @state() private searched = '';
  @state() private error = '';

  updated(changed: Map<string, unknown>) {
    if (changed.has('project')) this.hits = null;
    if ((changed.has('question') || changed.has('earlier') || changed.has('project')) && this.question.trim())
      void this.show();
  }

  /** The last question searched again (after the synonyms changed). */
  async rerun(): Promise<void> {
    if (this.searched) await this.retrieve(this.searched, this.asked?.earlier);
  }

  private async show() {
    await this.retrieve(this.question.trim(), this.earlier.trim());
    await this.updateComplete;
    const heading = this.renderRoot.querySelector<HTMLElement>('h2');
    heading?.scrollIntoView({ block: 'start' });
    heading?.focus({ preventScroll: true });
  }

  private async search(event: SubmitEvent) {
    event.preventDefault();
    const question = field(new FormData(event.target as HTMLFormElement), 'q').trim();
    // A question typed here is a first question: asked alone.
    if (question) await this.retrieve(question);
  }

  private async retrieve(question: string, earlier = '') {
    try {
      const found = await this.api.searchDocs(this.project, question, earlier);
      ({ hits: this.hits, also: this.also } = found);
      this.asked = earlier ? { earlier, took: found.earlier !== null } : null;
      this.searched = question;
      this.error = '';
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The search failed.';
    }
  }

  render() {
    return html`<section class="card stack" aria-labelledby="search-title">
      <h2 id="search-title" tabindex="-1">What a question retrieves</h2>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <form class="row search-form" role="search" @submit=${this.search}>
        <label>Question <input name="q" type="search" required maxlength="2000" .value=${this.searched}></label>
        <button type="submit">Search</button>
      </form>
      ${
        this.hits !== null && this.asked
          ? html`<p class="hint">Asked after “${this.asked.earlier}”: ${this.asked.took ? 'it refers back, so that question’s words were searched too.' : 'it does not refer back, so it was searched alone.'}</p>`
          : nothing
      }
      ${
        this.hits !== null && this.also.length
          ? html`<p class="hint">Also searched for: ${this.also.join(', ')}</p>`
          : nothing
      }
      ${
        this.hits === null
          ? nothing
          : this.hits.length
            ? html`<ol class="hits" aria-label=${`Sections for “${this.searched}”`}>${this.hits.map(hitItem)}</ol>`
            : html`<p class="muted">No section matches “${this.searched}”${this.empty ? ': this project has no sources yet. Add its documentation above.' : '.'}</p>`
      }
    </section>`;
  }
}

/** One ranked section of a search, linked when it has a web address. */
const hitItem = (hit: ConsoleDocHit) =>
  html`<li><div class="row">${/^https?:\/\//i.test(hit.url) ? html`<a href=${hit.url} target="_blank" rel="noopener noreferrer">${[hit.title, ...hit.headings].join(' › ')}</a>` : html`<strong>${[hit.title, ...hit.headings].join(' › ')}</strong>`}
                <span class="score">score ${hit.score.toFixed(4)} · match ${hit.match.toFixed(2)}</span></div>
                <div class="where">${hit.url}</div><p class="excerpt">${hit.excerpt.replace(/\n{2,}/g, '\n')}</p></li>`;

declare global {
  interface HTMLElementTagNameMap {
    'docs-search': DocsSearch;
  }
}
