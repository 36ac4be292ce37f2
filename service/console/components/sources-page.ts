import { css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApiError } from '../api.js';
import type { ConsoleDocHit, ConsoleDocSource } from '../../../contract/console.js';
import { field } from '../form.js';
import { count, when } from '../format.js';
import { ConsolePage } from './page.js';

/**
 * Sources: the documentation a project's agent answers from (decisions 296, 298). Add a website
 * or a folder, see what each holds, its failures and its crawls, re-crawl it now or remove it;
 * and search the project's index as a chat would, with the scores.
 */
export class SourcesPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    .add, .search-form { align-items: end; }
    .add label, .search-form label { flex: 1; min-width: 220px; }
    .source h2 { margin: 0; font-size: 16px; overflow-wrap: anywhere; }
    .facts { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 0; color: var(--c-muted); font-size: 14px; }
    .facts dt { display: inline; font-weight: 600; color: var(--c-text); }
    .facts dd { display: inline; margin: 0 0 0 4px; }
    .failures { margin: 0; padding-inline-start: 20px; font-size: 14px; }
    .failures li { overflow-wrap: anywhere; }
    .failures .reason { color: var(--c-danger); }
    .list { list-style: none; margin: 0; padding: 0; }
    .hits { margin: 0; padding-inline-start: 22px; display: grid; gap: 10px; }
    .hits li { min-width: 0; }
    .hit-head { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 2px 12px; }
    .hits a, .hits strong { font-weight: 600; overflow-wrap: anywhere; }
    .hits .where { color: var(--c-muted); font-size: 13px; overflow-wrap: anywhere; }
    .hits .excerpt { margin: 2px 0 0; font-size: 14px; white-space: pre-line; overflow-wrap: anywhere; }
    .score { font-variant-numeric: tabular-nums; font-size: 13px; color: var(--c-muted); white-space: nowrap; }
  `,
  ];

  @state() private sources: ConsoleDocSource[] | null = null;
  @state() private enabled = true;
  @state() private error = '';
  @state() private notice = '';
  @state() private hits: ConsoleDocHit[] | null = null;
  @state() private searched = '';
  @state() private busy = false;

  updated(changed: Map<string, unknown>) {
    if (changed.has('project')) {
      this.sources = null;
      this.hits = null;
      this.notice = '';
      void this.load();
    }
  }

  private async load() {
    try {
      const { enabled, sources } = await this.api.sources(this.project.id);
      this.enabled = enabled;
      this.sources = sources;
      this.error = '';
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The sources could not be loaded.';
    }
  }

  private async add(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const location = field(new FormData(form), 'location').trim();
    if (!location) return;
    this.busy = true;
    try {
      const source = await this.api.addSource(this.project.id, location);
      form.reset();
      this.notice = `Added ${source.location}: crawling now.`;
      this.error = '';
      await this.load();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The source could not be added.';
    }
    this.busy = false;
  }

  private async recrawl(source: ConsoleDocSource) {
    try {
      await this.api.recrawlSource(this.project.id, source.id);
      this.notice = `Re-crawling ${source.location}.`;
      await this.load();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The crawl could not be started.';
    }
  }

  private async removeSource(source: ConsoleDocSource) {
    if (!confirm(`Remove ${source.location} and its ${count(source.pages)} pages from the answers?`)) return;
    try {
      await this.api.removeSource(this.project.id, source.id);
      this.notice = `Removed ${source.location}.`;
      await this.load();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The source could not be removed.';
    }
  }

  private async search(event: SubmitEvent) {
    event.preventDefault();
    const question = field(new FormData(event.target as HTMLFormElement), 'q').trim();
    if (!question) return;
    try {
      this.hits = await this.api.searchDocs(this.project.id, question);
      this.searched = question;
      this.error = '';
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The search failed.';
    }
  }

  private renderSource(source: ConsoleDocSource) {
    const run = source.last_run;
    const id = `source-${source.id}`;
    return html`<li><section class="card stack source" aria-labelledby=${id}>
      <h2 id=${id}>${source.location}</h2>
      <dl class="facts">
        <div><dt>Pages</dt><dd>${count(source.pages)}</dd></div>
        <div><dt>Sections</dt><dd>${count(source.sections)}</dd></div>
        <div><dt>Last crawl</dt><dd>${when(source.last_crawl_at, 'Not yet')}</dd></div>
        <div><dt>Next crawl</dt><dd>${when(source.next_crawl_at)}</dd></div>
        ${run ? html`<div><dt>Last run</dt><dd>${count(run.pages_new)} new, ${count(run.pages_changed)} changed, ${count(run.pages_unchanged)} unchanged, ${count(run.pages_removed)} removed${run.complete ? '' : ' (incomplete: pages kept)'}${run.truncated ? ' (stopped at the page cap)' : ''}</dd></div>` : nothing}
      </dl>
      ${
        run?.failure_count
          ? html`<details><summary>${count(run.failure_count)} ${run.failure_count === 1 ? 'failure' : 'failures'}</summary>
        <ul class="failures">${run.failures.map((f) => html`<li><code>${f.url}</code>: <span class="reason">${f.reason}</span></li>`)}</ul></details>`
          : nothing
      }
      <div class="row"><button @click=${() => this.recrawl(source)} aria-describedby=${id}>Re-crawl now</button>
        <button class="danger" @click=${() => this.removeSource(source)} aria-describedby=${id}>Remove</button></div>
    </section></li>`;
  }

  render() {
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">Sources</h1><p class="muted">The documentation ${this.project.name}'s answers are taken from, and nothing else: websites crawled daily and folders on the service's disk.</p></div></div>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <p class="visually-hidden" role="status">${this.notice}</p>
      ${
        this.enabled
          ? html`<form class="card row add" @submit=${this.add}>
          <label>Website or folder <input name="location" required placeholder="https://docs.example.com/" autocomplete="off"></label>
          <button class="primary" type="submit" ?disabled=${this.busy}>Add source</button>
        </form>`
          : html`<p class="notice">This service answers without a documentation library.</p>`
      }
      ${
        this.sources === null
          ? html`<p class="muted" role="status">Loading…</p>`
          : this.sources.length
            ? html`<ul class="list stack" aria-label=${`Sources of ${this.project.name}`}>${this.sources.map((s) => this.renderSource(s))}</ul>`
            : html`<p class="muted">No sources yet: add the address of your documentation.</p>`
      }
      <section class="card stack" aria-labelledby="search-title">
        <h2 id="search-title">What a question retrieves</h2>
        <form class="row search-form" role="search" @submit=${this.search}>
          <label>Question <input name="q" type="search" required maxlength="2000"></label>
          <button type="submit">Search</button>
        </form>
        ${
          this.hits === null
            ? nothing
            : this.hits.length
              ? html`<ol class="hits" aria-label=${`Sections for “${this.searched}”`}>${this.hits.map(
                  (
                    hit,
                  ) => html`<li><div class="row">${/^https?:\/\//i.test(hit.url) ? html`<a href=${hit.url} target="_blank" rel="noopener noreferrer">${[hit.title, ...hit.headings].join(' › ')}</a>` : html`<strong>${[hit.title, ...hit.headings].join(' › ')}</strong>`}
                  <span class="score">score ${hit.score.toFixed(4)} · match ${hit.match.toFixed(2)}</span></div>
                  <div class="where">${hit.url}</div><p class="excerpt">${hit.excerpt.replace(/\n{2,}/g, '\n')}</p></li>`,
                )}</ol>`
              : html`<p class="muted">No section matches “${this.searched}”.</p>`
        }
      </section>
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sources-page': SourcesPage;
  }
}
