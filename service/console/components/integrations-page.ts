import { css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApiError } from '../api.js';
import type { ConsoleInstall, ConsoleIntegration } from '../../../contract/console.js';
import { ProjectsChangedEvent } from '../events.js';
import { when } from '../format.js';
import {
  expressSnippet,
  fetchSnippet,
  pinnedCsp,
  publicScriptTag,
  scriptTag,
  type SnippetInput,
} from '../snippets.js';
import { cspSnippet, latestSnippet, oneTagSnippet, type SnippetView } from './install-snippets.js';
import { ConsolePage, inPlace, readOnlyNote } from './page.js';
import { field } from '../form.js';
import {
  publicAccessFields,
  publicAccessPatch,
  publicAccessStyles,
  startOriginsNote,
} from './public-access.js';

/** The project's settings, its integrations (allowed origins), and what to paste to install one. */
export class IntegrationsPage extends ConsolePage {
  static styles = [
    ...ConsolePage.styles,
    css`
    .layout { display: grid; grid-template-columns: minmax(200px, 260px) 1fr; gap: 16px; align-items: start; }
    @media (max-width: 900px) { .layout { grid-template-columns: 1fr; } }
    .list { padding: 8px; }
    .list ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 2px; }
    .list a { display: grid; padding: 8px 10px; border-radius: 8px; text-decoration: none; color: var(--c-text); }
    .list a:hover { background: var(--c-raised); }
    .list a[aria-current='true'] { background: color-mix(in srgb, var(--c-accent) 14%, transparent); }
    .list a small { color: var(--c-muted); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
    .list form { margin-top: 8px; padding: 8px 4px 4px; border-top: 1px solid var(--c-border); display: grid; gap: 8px; }
    /* No integration yet: the form is the card's first thing, without the rule that parts it from the list. */
    .list ul:empty + form { margin-top: 0; padding-top: 4px; border-top: 0; }
    textarea { min-height: 120px; width: 100%; }
    .grow { flex: 1; min-width: 180px; }
    .snippet { display: grid; gap: 6px; }
    .snippet .row { justify-content: space-between; }
    .project-form { align-items: end; }
  `,
    publicAccessStyles,
  ];

  /**
   * What the last change did, said where it was made: a Save far down a phone's page said it at
   * the page's top, out of view (the project's rename and the integration's Save each say it by
   * their own button; what empties the page, at its top).
   */
  @state() private message: { tone: 'ok' | 'error'; text: string; at: Place } | null = null;
  /** What the service serves to paste; undefined while it is asked, null when it could not be. */
  @state() private install: ConsoleInstall | null | undefined;
  /** The snippet last copied, and whether it reached the clipboard or could only be selected. */
  @state() private copied: { name: string; done: boolean } | null = null;
  @state() private confirming: 'project' | 'integration' | null = null;

  connectedCallback() {
    super.connectedCallback();
    this.api.install().then(
      (info) => {
        this.install = info;
      },
      () => {
        this.install = null;
      },
    );
  }

  updated(changed: Map<string, unknown>) {
    if (
      changed.has('project') &&
      (changed.get('project') as { id?: string } | undefined)?.id !== this.project.id
    )
      this.message = null;
  }

  private get selected(): ConsoleIntegration | undefined {
    const wanted = this.params.get('integration');
    return this.project.integrations.find((i) => i.id === wanted) ?? this.project.integrations[0];
  }

  render() {
    const integration = this.selected;
    return html`<div class="stack">
      <div class="page-head"><div><h1 tabindex="-1">Integrations</h1><p class="muted">One integration per website or app that shows the chat. Its allowed origins say which pages may use it.</p></div></div>
      ${this.viewer ? readOnlyNote('the integrations and how to install them', 'add, change or delete one') : nothing}
      ${this.note('page')}
      <div class="layout">
        <nav class="card list" aria-label="Integrations of ${this.project.name}">
          <ul>${this.project.integrations.map(
            (
              i,
            ) => html`<li><a href="integrations?project=${encodeURIComponent(this.project.id)}&integration=${encodeURIComponent(i.id)}"
            aria-current=${i.id === integration?.id ? 'true' : 'false'} @click=${(e: MouseEvent) => this.select(e, i.id)}
            aria-label=${i.name} aria-describedby=${i.name === i.id ? nothing : `integration-${i.id}`}>${i.name}${
              // Named by its name alone, its id the description (and not shown twice when it is the name).
              i.name === i.id ? nothing : html`<small id="integration-${i.id}">${i.id}</small>`
            }</a></li>`,
          )}</ul>
          ${
            this.viewer
              ? nothing
              : html`<form @submit=${this.createIntegration}>
            <label>New integration <input name="name" required maxlength="80" placeholder="e.g. Docs site" autocomplete="off"></label>
            <button type="submit">Add integration</button>
          </form>`
          }
        </nav>
        <div class="stack">
          ${integration ? this.detail(integration) : html`<p class="card muted">No integrations yet: add one for each site that will show the chat.</p>`}
          ${this.projectSettings()}
        </div>
      </div>
      ${this.confirmDialog(integration)}
    </div>`;
  }

  private detail(integration: ConsoleIntegration) {
    const snippetInput = {
      projectId: this.project.id,
      integrationId: integration.id,
      serviceUrl: this.install?.service_url ?? location.origin,
      widget: this.install?.widget ?? null,
    };
    return html`
      <form class="card stack" @submit=${(e: SubmitEvent) => this.save(e, integration)} aria-labelledby="integration-title">
        <div class="row"><h2 id="integration-title">${integration.name}</h2><code class="muted">${integration.id}</code><span class="spacer"></span>
          ${this.viewer ? nothing : html`<button type="button" class="small danger" @click=${() => this.confirm('integration')}>Delete integration</button>`}</div>
        <fieldset class="plain" ?disabled=${this.viewer}>
        <label>Name <input name="name" .value=${integration.name} required maxlength="80"></label>
        <label>Allowed origins <span class="hint" id="origins-hint" aria-hidden="true">One per line, like https://docs.example.com. Pages elsewhere get 403.</span>
          <textarea name="origins" aria-describedby="origins-hint" spellcheck="false" .value=${integration.allowed_origins.join('\n')}></textarea></label>
        ${startOriginsNote(integration)}
        ${integration.allowed_origins.length === 0 ? html`<p class="notice warn">No allowed origins: pages on any website can use this integration with a session token. Add the origins of your site to restrict it.</p>` : nothing}
        ${publicAccessFields(integration)}
        </fieldset>
        ${this.note('integration')}
        <div class="row"><span class="muted">Created ${when(integration.created_at)}</span><span class="spacer"></span>${this.viewer ? nothing : html`<button class="primary" type="submit">Save</button>`}</div>
      </form>
      <file-settings .api=${this.api} project=${this.project.id} integration=${integration.id}></file-settings>
      ${installSection(this.install, integration, snippetInput, (name, code) => this.snippet(name, code))}`;
  }

  private snippet(name: string, code: string) {
    return html`<div class="snippet"><pre tabindex="0" aria-label=${name}><code>${code}</code></pre>
      <div class="row"><span></span><button class="small" @click=${() => this.copy(name, code)}>${this.copied?.name !== name ? `Copy ${name}` : this.copied.done ? 'Copied' : 'Selected: copy it with the keyboard'}</button></div></div>`;
  }

  private projectSettings() {
    return html`<section class="card stack" aria-labelledby="project-title">
      <h2 id="project-title">Project</h2>
      <p class="muted">Project ID <code>${this.project.id}</code> (the widget’s <code>project-id</code>).</p>
      ${this.note('project')}
      ${
        this.viewer
          ? nothing
          : html`<form class="row project-form" @submit=${this.rename}>
        <label class="grow">Project name <input name="name" .value=${this.project.name} required maxlength="80"></label>
        <button type="submit">Rename project</button>
        <button type="button" class="danger" @click=${() => this.confirm('project')}>Delete project</button>
      </form>`
      }
    </section>`;
  }

  private confirmDialog(integration: ConsoleIntegration | undefined) {
    const what = this.confirming;
    return html`<dialog aria-labelledby="delete-title" @close=${() => {
      this.confirming = null;
    }}>
      ${
        what === 'project'
          ? html`<form class="stack" method="dialog" @submit=${this.deleteProject}>
        <h2 id="delete-title">Delete ${this.project.name}?</h2>
        <p>This deletes its integrations, API keys, conversations and activity. It cannot be undone.</p>
        <label>Type the project ID <code>${this.project.id}</code> to confirm <input name="confirm" required autocomplete="off" spellcheck="false"></label>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.closeDialog}>Cancel</button><button class="danger solid" type="submit">Delete project</button></div>
      </form>`
          : what === 'integration' && integration
            ? html`<form class="stack" method="dialog" @submit=${() => this.deleteIntegration(integration)}>
        <h2 id="delete-title">Delete ${integration.name}?</h2>
        <p>Widgets using <code>${integration.id}</code> can no longer chat. Past conversations stay.</p>
        <div class="row"><span class="spacer"></span><button type="button" @click=${this.closeDialog}>Cancel</button><button class="danger solid" type="submit">Delete integration</button></div>
      </form>`
            : nothing
      }
    </dialog>`;
  }

  private select(event: MouseEvent, id: string) {
    if (!inPlace(event)) return;
    event.preventDefault();
    this.message = null;
    this.navigate('integrations', { integration: id });
  }

  private confirm(what: 'project' | 'integration') {
    this.confirming = what;
    this.showDialog();
  }

  /**
   * A change's result where it was made. What went well is read from the page's status line,
   * there before the words (a status inserted with its words may go unread), as the other pages
   * do; a refusal is an alert.
   */
  private note(at: Place) {
    const m = this.message;
    const shown =
      m?.at === at
        ? html`<p class="notice ${m.tone}" role=${m.tone === 'error' ? 'alert' : nothing} aria-hidden=${m.tone === 'ok' ? 'true' : nothing}>${m.text}</p>`
        : nothing;
    return at === 'page'
      ? html`<p class="visually-hidden" role="status">${m?.tone === 'ok' ? m.text : ''}</p>${shown}`
      : shown;
  }

  private async act(
    action: () => Promise<unknown>,
    done: string,
    select?: string | null,
    at: Place = 'page',
  ) {
    try {
      await action();
      this.message = { tone: 'ok', text: done, at };
      this.dispatchEvent(new ProjectsChangedEvent(select));
    } catch (error) {
      const text = error instanceof ConsoleApiError ? error.message : 'That did not work.';
      this.message = { tone: 'error', text, at };
    }
  }

  private async save(event: SubmitEvent, integration: ConsoleIntegration) {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const origins = field(data, 'origins')
      .split(/\r?\n/)
      .map((o) => o.trim())
      .filter(Boolean);
    const access = publicAccessPatch(data, origins);
    if ('error' in access) {
      this.message = { tone: 'error', text: access.error, at: 'integration' };
      return;
    }
    await this.act(
      () =>
        this.api.updateIntegration(this.project.id, integration.id, {
          name: field(data, 'name'),
          allowed_origins: origins,
          ...access.patch,
        }),
      `Saved ${integration.name}.`,
      undefined,
      'integration',
    );
  }

  private async createIntegration(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const name = field(new FormData(form), 'name').trim();
    if (!name) return;
    await this.act(async () => {
      const created = await this.api.createIntegration(this.project.id, name);
      form.reset();
      this.navigate('integrations', { integration: created.id });
    }, `Added ${name}.`);
  }

  private async deleteIntegration(integration: ConsoleIntegration) {
    await this.act(async () => {
      await this.api.deleteIntegration(this.project.id, integration.id);
      this.navigate('integrations', {}, true);
    }, `Deleted ${integration.name}.`);
  }

  private async rename(event: SubmitEvent) {
    event.preventDefault();
    const name = field(new FormData(event.target as HTMLFormElement), 'name').trim();
    await this.act(
      () => this.api.renameProject(this.project.id, name),
      `Renamed the project to ${name}.`,
      undefined,
      'project',
    );
  }

  private async deleteProject(event: SubmitEvent) {
    const typed = field(new FormData(event.target as HTMLFormElement), 'confirm').trim();
    if (typed !== this.project.id) {
      this.message = {
        tone: 'error',
        text: `Nothing was deleted: type ${this.project.id} to confirm.`,
        at: 'project',
      };
      return;
    }
    const name = this.project.name;
    await this.act(() => this.api.deleteProject(this.project.id), `Deleted ${name}.`, null);
  }

  /**
   * Without a clipboard (a console over plain HTTP has none) or its permission, the snippet is
   * selected and copied the older way, or left selected for the keyboard, and the button says
   * which: it said "Copied" when the copy was refused, and threw when there was no clipboard.
   */
  private async copy(name: string, code: string) {
    let copied = true;
    try {
      await navigator.clipboard.writeText(code);
    } catch {
      const pre = this.renderRoot.querySelector(`pre[aria-label="${name}"]`);
      if (pre) getSelection()?.selectAllChildren(pre);
      copied = document.execCommand?.('copy') ?? false;
    }
    this.copied = { name, done: copied };
  }
}

/**
 * The Install section: what to paste for an integration, once the service said which widget it
 * serves (`install`: undefined while asked, null when it could not say).
 */
const installSection = (
  install: ConsoleInstall | null | undefined,
  integration: ConsoleIntegration,
  input: SnippetInput,
  snippet: SnippetView,
) => {
  // Until the service says which widget it serves, a snippet would name none: nothing to copy yet.
  if (!install)
    return html`<section class="card stack" aria-labelledby="install-title">
      <h2 id="install-title">Install</h2>
      ${install === null ? html`<p class="notice warn">The service did not say which widget it serves: reload the page to see what to paste.</p>` : html`<p class="muted">Loading…</p>`}
    </section>`;
  const widget = install.widget;
  const from = widget
    ? html` The script is agent-chat ${widget.version}, served by this service and pinned with its integrity hash, and the import map before it pins each file it loads later: a browser runs them only if they are exactly those files.`
    : nothing;
  return html`<section class="card stack" aria-labelledby="install-title">
      <h2 id="install-title">Install</h2>
      ${widget ? nothing : html`<p class="notice warn">This build of the service serves no widget (build it from the repository root to include one). Copy agent-chat.iife.js from the package’s dist/ to your site instead.</p>`}
      ${
        integration.public
          ? html`${oneTagSnippet(snippet, input)}
      <p class="muted">${widget ? 'Or, where the page keeps HTML as pasted, paste this' : 'Paste this'} into any page on the allowed origins: no server code, no API key.${from}</p>
      ${snippet('public script tag', publicScriptTag(input))}
      ${cspSnippet(snippet, 'public', pinnedCsp(input, { sessionEndpoint: false }))}
      ${latestSnippet(snippet, input)}
      <p class="muted">A site with its own login can still use a session endpoint instead (below), to keep each visitor’s conversations.</p>`
          : nothing
      }
      <p class="muted">${integration.public ? 'With a session endpoint: add' : '1. Add'} the widget to your pages.${integration.public ? nothing : from}</p>
      ${snippet('script tag', scriptTag(input))}
      ${cspSnippet(snippet, '', pinnedCsp(input, { sessionEndpoint: true }))}
      <p class="muted">${integration.public ? 'Then add' : '2. Add'} the session endpoint to your server, with an API key of this project (API keys page). Express:</p>
      ${snippet('Express snippet', expressSnippet(input))}
      <p class="muted">Or a Fetch route:</p>
      ${snippet('Fetch snippet', fetchSnippet(input))}
      <p class="muted">PHP, Python or WordPress: no Node needed. The agent-chat package’s <code>examples/php/agent-session.php</code> and <code>examples/python/agent_session.py</code> are this endpoint in one file; its WordPress plugin is its own (Settings → Agent Chat: this service’s URL, the project and integration IDs, an API key).</p>
    </section>`;
};

/** Where a change's result is said: by the integration's Save, the project's rename, or at the page's top. */
type Place = 'page' | 'integration' | 'project';

declare global {
  interface HTMLElementTagNameMap {
    'integrations-page': IntegrationsPage;
  }
}
