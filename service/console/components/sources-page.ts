import { css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { repeat } from 'lit/directives/repeat.js';
import { ConsoleApiError } from '../api.js';
import { CrawlFollower } from '../crawl-follower.js';
import type { ConsoleCrawlFailure, ConsoleDocSource, ConsoleDocStale } from '../../../contract/console.js';
import type { DocsSearch } from './docs-search.js';
import { field } from '../form.js';
import { count, crawlProgress, crawlRun, when } from '../format.js';
import { ConsolePage, pageLink, readOnlyNote } from './page.js';
import { routeHref } from '../router.js';

/** How many conversations cite a page changed or gone since their answer, with the way to them. */
const staleNote = (stale: ConsoleDocStale | null, projectId: string) =>
  stale?.conversations
    ? html`<p class="notice stale-note">${count(stale.conversations)}${stale.at_least ? ' or more' : ''} ${stale.conversations === 1 ? 'conversation has an answer' : 'conversations have answers'} citing a page changed or removed since.
      ${pageLink(routeHref('conversations', projectId, { stale_sources: '1' }), 'Review these conversations')}</p>`
    : nothing;

/**
 * Sources: the documentation a project's agent answers from (decisions 296, 298). Add a website
 * or a folder with the paths kept out of it (decision 416), see what each holds, its failures
 * and its crawls, change its exclusions, re-crawl it now or remove it; search the project's index
 * as a chat would, with the scores; and give the words its visitors use that the docs do not
 * (synonyms, decision 422), seeing the search again with them.
 */
export class SourcesPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    .add { gap: 10px; }
    .exclude textarea { min-height: 72px; width: 100%; }
    .hint { margin: 4px 0 0; color: var(--c-muted); font-size: 13px; }
    .patterns { display: inline-flex; flex-wrap: wrap; gap: 4px 8px; margin: 0; padding: 0; list-style: none; }
    .patterns code { overflow-wrap: anywhere; }
    .edit { border-top: 1px solid var(--c-border); padding-top: 12px; }
    .suggest { display: grid; gap: 6px; padding: 10px 12px; border-radius: 8px; background: color-mix(in srgb, var(--c-accent) 8%, transparent); font-size: 14px; }
    .suggest p { margin: 0; }
    .suggest li { justify-content: space-between; align-items: center; gap: 4px 12px; }
    .suggest code { overflow-wrap: anywhere; }
    .source h2 { margin: 0; font-size: 16px; overflow-wrap: anywhere; }
    dialog h2 { overflow-wrap: anywhere; }
    .facts { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 0; color: var(--c-muted); font-size: 14px; }
    .facts dt { display: inline; font-weight: 600; color: var(--c-text); }
    .facts dd { display: inline; margin: 0 0 0 4px; }
    .failures { margin: 0; padding-inline-start: 20px; font-size: 14px; }
    .failures li { overflow-wrap: anywhere; }
    .failures .reason { color: var(--c-danger); }
    .failures .from { color: var(--c-muted); }
    .list { list-style: none; margin: 0; padding: 0; }
    .synonyms textarea { min-height: 96px; width: 100%; }
  `,
  ];

  @state() private sources: ConsoleDocSource[] | null = null;
  /** The conversations whose answers cite a page changed or gone since (decision 739). */
  @state() private stale: ConsoleDocStale | null = null;
  @state() private enabled = true;
  @state() private error = '';
  @state() private notice = '';
  @state() private busy = false;
  /** The project's synonym groups as the service keeps them. */
  @state() private synonyms: string[][] = [];
  /** The source whose exclusions are being edited. */
  @state() private editing: string | null = null;
  /** The source the confirmation dialog asks about removing. */
  @state() private removing: ConsoleDocSource | null = null;
  private readonly crawls = new CrawlFollower(() => this.load());

  disconnectedCallback() {
    super.disconnectedCallback();
    this.crawls.stop();
  }

  updated(changed: Map<string, unknown>) {
    if (changed.has('project')) {
      this.sources = null;
      this.notice = '';
      this.editing = null;
      this.crawls.stop();
      this.stale = null;
      void this.load();
      void this.loadStale();
    }
    // An editor opened takes the focus; closed, it gives it back to its button.
    if (changed.has('editing')) {
      const before = changed.get('editing') as string | null | undefined;
      if (this.editing)
        this.renderRoot.querySelector<HTMLTextAreaElement>(`#exclude-${this.editing}`)?.focus();
      else if (before) this.renderRoot.querySelector<HTMLButtonElement>(`[data-edit="${before}"]`)?.focus();
    }
  }

  private async load() {
    try {
      const { enabled, sources, synonyms } = await this.api.sources(this.project.id);
      const crawled = this.crawls.settle(sources);
      if (crawled.length) {
        this.notice = crawled.map((s) => `Crawled ${s.location}: ${count(s.pages)} pages.`).join(' ');
        // A crawl that changed pages may have made answers stale: counted again once it ends.
        void this.loadStale();
      }
      this.enabled = enabled;
      this.sources = sources;
      this.synonyms = synonyms;
      this.error = '';
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The sources could not be loaded.';
    }
  }

  /** Counted once with the page and after a crawl, not at each follow of one: it walks the conversations. */
  private async loadStale() {
    try {
      this.stale = await this.api.staleConversations(this.project.id);
    } catch {
      // The count is a pointer to the Conversations page, which shows the flags itself.
      this.stale = null;
    }
  }

  private async add(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const location = field(data, 'location').trim();
    if (!location) return;
    this.busy = true;
    try {
      const source = await this.api.addSource(this.project.id, location, patterns(field(data, 'exclude')));
      form.reset();
      this.crawls.follow(source.id, null);
      this.notice = `Added ${source.location}: crawling now.`;
      this.error = '';
      await this.load();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The source could not be added.';
    }
    this.busy = false;
  }

  private saveExclusions(event: SubmitEvent, source: ConsoleDocSource) {
    event.preventDefault();
    return this.setExclusions(
      source,
      patterns(field(new FormData(event.target as HTMLFormElement), 'exclude')),
    );
  }

  private async setExclusions(source: ConsoleDocSource, exclude: string[]) {
    this.busy = true;
    try {
      await this.api.setExclusions(this.project.id, source.id, exclude);
      this.crawls.follow(source.id, source.last_run?.started_at ?? null);
      this.notice = `Saved what ${source.location} excludes: re-crawling now.`;
      this.error = '';
      this.editing = null;
      await this.load();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The exclusions could not be saved.';
    }
    this.busy = false;
  }

  private async recrawl(source: ConsoleDocSource) {
    try {
      await this.api.recrawlSource(this.project.id, source.id);
      this.crawls.follow(source.id, source.last_run?.started_at ?? null);
      this.notice = `Re-crawling ${source.location}.`;
      await this.load();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The crawl could not be started.';
    }
  }

  /**
   * Asked in the console's own dialog, as every other page asks (decision 808): the browser's
   * `confirm()` is titled with the service's address, and a browser that stops a page's dialogs
   * answers it no without a word, so Remove did nothing.
   */
  private askRemove(source: ConsoleDocSource) {
    this.removing = source;
    this.showDialog();
  }

  private async removeSource() {
    const source = this.removing!;
    try {
      await this.api.removeSource(this.project.id, source.id);
      this.notice = `Removed ${source.location}.`;
      await this.load();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The source could not be removed.';
    }
  }

  /** Saves the synonyms box; the last search runs again, so the owner sees what they changed. */
  private async saveSynonyms(event: SubmitEvent) {
    event.preventDefault();
    const groups = synonymGroups(field(new FormData(event.target as HTMLFormElement), 'synonyms'));
    this.busy = true;
    try {
      this.synonyms = await this.api.setSynonyms(this.project.id, groups);
      this.notice = `Saved ${count(this.synonyms.length)} synonym ${this.synonyms.length === 1 ? 'group' : 'groups'}.`;
      this.error = '';
      await this.renderRoot.querySelector<DocsSearch>('docs-search')?.rerun();
    } catch (error) {
      this.error = error instanceof ConsoleApiError ? error.message : 'The synonyms could not be saved.';
    }
    this.busy = false;
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
        ${
          // While it runs, the next crawl is the one that began (a time now past): said once it ends.
          source.crawl ? nothing : html`<div><dt>Next crawl</dt><dd>${when(source.next_crawl_at)}</dd></div>`
        }
        ${
          source.crawl
            ? html`<div><dt>Crawling</dt><dd>${crawlProgress(source.crawl)}</dd></div>`
            : this.crawls.crawling(source.id)
              ? html`<div><dt>Crawl</dt><dd>Waiting to start…</dd></div>`
              : nothing
        }
        ${run ? html`<div><dt>Last run</dt><dd>${crawlRun(run)}</dd></div>` : nothing}
        <div><dt>Excludes</dt><dd>${
          source.exclude.length
            ? html`<ul class="patterns" aria-label=${`Paths ${source.location} excludes`}>${source.exclude.map((p) => html`<li><code>${p}</code></li>`)}</ul>`
            : 'Nothing'
        }</dd></div>
      </dl>
      ${this.viewer ? nothing : suggestions(source, this.busy, (pattern) => this.setExclusions(source, [...source.exclude, pattern]))}
      ${
        run?.failure_count
          ? html`<details><summary>${count(run.failure_count)} ${run.failure_count === 1 ? 'failure' : 'failures'}</summary>
        <ul class="failures">${run.failures.map(failureItem)}</ul></details>`
          : nothing
      }
      ${this.editing === source.id ? this.renderEditor(source) : nothing}
      ${this.viewer ? nothing : this.actions(source, id)}
    </section></li>`;
  }

  private actions(source: ConsoleDocSource, id: string) {
    return html`<div class="row"><button @click=${() => this.recrawl(source)} aria-describedby=${id}>Re-crawl now</button>
        ${
          this.editing === source.id
            ? nothing
            : html`<button data-edit=${source.id} @click=${() => (this.editing = source.id)} aria-describedby=${id}>Edit exclusions</button>`
        }
        <button class="danger" @click=${() => this.askRemove(source)} aria-describedby=${id}>Remove</button></div>`;
  }

  /** The exclusions of one source, as lines to change; Escape or Cancel leaves them as they were. */
  private renderEditor(source: ConsoleDocSource) {
    const id = `exclude-${source.id}`;
    return html`<form class="stack edit exclude" aria-label=${`Exclusions of ${source.location}`}
        @submit=${(e: SubmitEvent) => this.saveExclusions(e, source)}
        @keydown=${(e: KeyboardEvent) => e.key === 'Escape' && (this.editing = null)}>
      <div><label>Exclude paths <textarea id=${id} name="exclude" spellcheck="false" aria-describedby=${`${id}-hint`} .value=${source.exclude.join('\n')}></textarea></label>
        ${hint(`${id}-hint`)}</div>
      <div class="row"><button class="primary" type="submit" ?disabled=${this.busy}>Save exclusions</button>
        <button type="button" @click=${() => (this.editing = null)}>Cancel</button></div>
    </form>`;
  }

  render() {
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">Sources</h1><p class="muted">The documentation ${this.project.name}'s answers are taken from, and nothing else: websites crawled daily and folders on the service's disk.</p></div></div>
      ${this.error ? html`<p class="notice error" role="alert">${this.error}</p>` : nothing}
      <p class="visually-hidden" role="status">${this.notice}</p>
      ${
        this.enabled
          ? this.renderLibrary()
          : html`<p class="notice">This service answers without a documentation library: start it with <code>--docs</code> and a website or folder, or give <code>createAgentService</code> a <code>DocsLibrary</code>.</p>`
      }
    </div>`;
  }

  /** The sources, the search and the synonyms: only where the service has a library to hold them. */
  private renderLibrary() {
    return html`${
      this.viewer
        ? readOnlyNote(
            'the sources and search them',
            'add, re-crawl, change or remove one, or change the synonyms',
          )
        : html`<form class="card stack add" @submit=${this.add} aria-label="Add a source">
        <label>Website or folder <input name="location" required placeholder="https://docs.example.com/" autocomplete="off"></label>
        <div class="exclude"><label>Exclude paths <textarea name="exclude" rows="2" spellcheck="false" aria-describedby="add-exclude-hint" placeholder="/blog/"></textarea></label>
          ${hint('add-exclude-hint')}</div>
        <div class="row"><button class="primary" type="submit" ?disabled=${this.busy}>Add source</button></div>
      </form>`
    }
      ${staleNote(this.stale, this.project.id)}
      ${
        this.sources === null
          ? html`<p class="muted" role="status">Loading…</p>`
          : this.sources.length
            ? html`<ul class="list stack" aria-label=${`Sources of ${this.project.name}`}>${repeat(
                this.sources,
                (s) => s.id,
                (s) => this.renderSource(s),
              )}</ul>`
            : html`<p class="muted">No sources yet: add the address of your documentation.</p>`
      }
      <docs-search .api=${this.api} project=${this.project.id} question=${this.params.get('q') ?? ''}
        earlier=${this.params.get('earlier') ?? ''} ?empty=${this.sources?.length === 0}></docs-search>
      ${synonymsCard(this.synonyms, this.busy, this.saveSynonyms, this.viewer)}
      ${removeDialog(
        this.removing,
        () => void this.removeSource(),
        () => (this.removing = null),
        this.closeDialog,
      )}`;
  }
}

/** The confirmation of a source's removal; its close (Cancel, Escape, the removal) forgets the source. */
const removeDialog = (
  source: ConsoleDocSource | null,
  remove: () => void,
  forget: () => void,
  cancel: () => void,
) =>
  html`<dialog aria-labelledby="remove-title" @close=${forget}>${
    source
      ? html`<form class="stack" method="dialog" @submit=${remove}>
        <h2 id="remove-title">Remove ${source.location}?</h2>
        <p>Chats no longer answer from its ${count(source.pages)} ${source.pages === 1 ? 'page' : 'pages'}, and it is not crawled again. Past conversations stay.</p>
        <div class="row"><span class="spacer"></span><button type="button" @click=${cancel}>Cancel</button><button class="danger solid" type="submit">Remove source</button></div>
      </form>`
      : nothing
  }</dialog>`;

/** The project's synonym groups (decision 422), one per line, in a form that saves them. */
const synonymsCard = (
  synonyms: string[][],
  busy: boolean,
  save: (event: SubmitEvent) => void,
  viewer: boolean,
) =>
  html`<section class="card stack synonyms" aria-labelledby="synonyms-title">
    <h2 id="synonyms-title">Synonyms</h2>
    <form class="stack" @submit=${save} aria-labelledby="synonyms-title"><fieldset class="plain" ?disabled=${viewer}>
      <div><label>Words that mean the same on your site <textarea name="synonyms" spellcheck="false" aria-describedby="synonyms-hint"
        placeholder="auto increment, serial, identity column" .value=${synonyms.map((g) => g.join(', ')).join('\n')}></textarea></label>
        <p class="hint" id="synonyms-hint">One group per line, words or phrases separated by commas: a question with one of them also searches for the others, for the words your visitors use that your docs do not.</p></div>
      </fieldset>${viewer ? nothing : html`<div class="row"><button class="primary" type="submit" ?disabled=${busy}>Save synonyms</button></div>`}
    </form>
  </section>`;

/**
 * The paths of a source that often outrank the page that answers (decision 427), each with a
 * button that adds it to the source's exclusions.
 */
const suggestions = (source: ConsoleDocSource, busy: boolean, exclude: (pattern: string) => void) =>
  source.suggested_exclusions.length
    ? html`<div class="suggest" role="group" aria-label=${`Suggested exclusions for ${source.location}`}>
        <p>These pages often outrank the page that answers a question. Keep them out?</p>
        <ul class="list">${source.suggested_exclusions.map(
          (s) => html`<li class="row"><span>${count(s.pages)} ${s.kind} under <code>${s.pattern}</code></span>
            <button ?disabled=${busy} @click=${() => exclude(s.pattern)}>Exclude ${s.pattern}</button></li>`,
        )}</ul></div>`
    : nothing;

/** The synonyms box's groups: a line each, words split at commas, blank ones left out. */
const synonymGroups = (text: string) =>
  text
    .split('\n')
    .map((line) =>
      line
        .split(',')
        .map((word) => word.trim())
        .filter(Boolean),
    )
    .filter((group) => group.length);

/** The lines of an exclusions box: trimmed, without blank ones (the service checks each). */
const patterns = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** The one line that says what a pattern is, with an example. */
const hint = (id: string) =>
  html`<p class="hint" id=${id}>One path per line, never crawled: like <code>/blog/</code> or <code>*/whatsnew/</code> (* is anything; a folder's patterns match its files' paths).</p>`;

declare global {
  interface HTMLElementTagNameMap {
    'sources-page': SourcesPage;
  }
}

/** How the crawl came to a page it failed (decision 707). */
const REFERRED = { link: 'linked from', sitemap: 'listed in the sitemap', redirect: 'redirected from' };

/**
 * A failed page, and the page whose link to it is what to fix (or the sitemap that lists it), as
 * an SEO crawler says it; opened beside the console, as a search hit is.
 */
const failureItem = ({ url, reason, from }: ConsoleCrawlFailure) =>
  html`<li><code>${url}</code>: <span class="reason">${reason}</span>${
    from
      ? html` <span class="from">(${REFERRED[from.by]} ${
          /^https?:\/\//i.test(from.url)
            ? html`<a href=${from.url} target="_blank" rel="noopener noreferrer">${from.url}</a>`
            : html`<code>${from.url}</code>`
        })</span>`
      : nothing
  }</li>`;
