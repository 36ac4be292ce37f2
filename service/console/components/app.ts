import { LitElement, css, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ConsoleApi, ConsoleApiError, attempt } from '../api.js';
import type { ConsoleProject } from '../../../contract/console.js';
import type { NavigateEvent, ProjectsChangedEvent } from '../events.js';
import { ADMIN_PAGES, PAGES, type Route, parseRoute, routeHref } from '../router.js';
import { base, tokens } from '../styles.js';
import { type ConsolePage, inPlace } from './page.js';
import { field } from '../form.js';

/**
 * The console: signs in, keeps the project list and the route (`/console/<page>?project=…`),
 * and shows one page. Pages talk back with events (navigate, projects changed).
 */
export class ConsoleApp extends LitElement {
  static styles = [
    tokens,
    base,
    css`
    :host { display: block; min-height: 100dvh; background: var(--c-bg); }
    .shell { display: grid; grid-template-columns: 232px minmax(0, 1fr); min-height: 100dvh; }
    header, nav { min-width: 0; }
    /* The header is as tall as the page, so its background and edge reach the bottom of a long
       one; what it holds stays in view (sticky, a screen tall). */
    header { border-inline-end: 1px solid var(--c-border); background: var(--c-surface); }
    .rail { display: flex; flex-direction: column; gap: 16px; padding: 16px 12px; position: sticky; top: 0; height: 100dvh; }
    .brand { display: flex; gap: 10px; align-items: center; padding: 0 6px; font-weight: 650; }
    .logo { width: 28px; height: 28px; border-radius: 8px; background: var(--c-accent); color: var(--c-on-accent); display: grid; place-items: center; font-size: 12px; font-weight: 700; flex: none; }
    .project { display: grid; gap: 4px; }
    .project label { font-size: 12px; color: var(--c-muted); font-weight: 600; padding: 0 6px; }
    .grow { flex: 1; }
    .project select { width: 100%; }
    .project .row { flex-wrap: nowrap; }
    nav ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 2px; }
    nav a { display: flex; align-items: center; gap: 10px; padding: 8px 10px; border-radius: 8px; color: var(--c-text); text-decoration: none; font-weight: 520; }
    nav a:hover { background: var(--c-raised); }
    nav a[aria-current='page'] { background: color-mix(in srgb, var(--c-accent) 14%, transparent); color: var(--c-accent); font-weight: 620; }
    nav svg, button.icon svg { width: 18px; height: 18px; flex: none; }
    button.icon { padding: 0 8px; }
    /* Under the brand, where it comes in the Tab order (decision 809): moved to the rail's foot by
       CSS order, Sign out was the first stop of the keyboard, at the bottom of the screen. */
    .user { display: flex; gap: 8px; align-items: center; justify-content: space-between; padding: 0 6px 12px; border-bottom: 1px solid var(--c-border); font-size: 13px; }
    /* A long name wraps, whole, rather than being cut to an ellipsis. */
    .user span { min-width: 0; overflow-wrap: anywhere; }
    main { padding: 28px clamp(16px, 4vw, 40px) 48px; min-width: 0; max-width: 1240px; }
    .empty { max-width: 480px; margin: 10vh auto; }
    @media (max-width: 760px) {
      /* The header is as tall as what it holds; the page below takes the rest of the screen. */
      .shell { grid-template-columns: minmax(0, 1fr); grid-template-rows: auto minmax(0, 1fr); }
      header { border-inline-end: 0; border-bottom: 1px solid var(--c-border); }
      .rail { position: static; height: auto; padding: 10px 12px 0; gap: 8px; }
      /* The signed-in name and Sign out take a row of their own when the brand leaves no room. */
      .top { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; justify-content: space-between; min-width: 0; }
      .brand { padding: 0; min-width: 0; }
      .user { margin-inline-start: auto; border: 0; padding: 0; min-width: 0; }
      .project { grid-template-columns: auto minmax(0, 1fr); align-items: center; gap: 8px; }
      .project label { padding: 0; }
      /* Every tab in view, on as many rows as they take (decision 709): a row that scrolled
         sideways hid half the pages behind a fade an operator did not read as "more". */
      nav ul { display: flex; flex-wrap: wrap; gap: 2px 4px; padding: 2px 0 8px; }
      nav a { white-space: nowrap; padding: 6px 7px; font-size: 13px; }
      nav svg { display: none; }
      main { padding: 20px 14px 40px; }
    }
    @media (min-width: 761px) { .top { display: contents; } }
  `,
  ];

  @state() private status: 'loading' | 'signed-out' | 'ready' | 'error' = 'loading';
  @state() private username = '';
  @state() private projects: ConsoleProject[] = [];
  @state() private route: Route = parseRoute(location.href);
  @state() private loadError = '';
  /** Why the New project dialog's project was not created, said in the dialog, which stays open. */
  @state() private createError = '';
  private readonly api = new ConsoleApi();

  connectedCallback() {
    super.connectedCallback();
    this.api.onSignedOut = () => {
      this.status = 'signed-out';
    };
    addEventListener('popstate', this.onPopState);
    this.addEventListener('console-navigate', this.onNavigate);
    this.addEventListener('console-projects-changed', this.onProjectsChanged);
    void this.start();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    removeEventListener('popstate', this.onPopState);
  }

  private async start() {
    try {
      const session = await this.api.session();
      if (!session) {
        this.status = 'signed-out';
        return;
      }
      this.username = session.username;
      await this.loadProjects();
      this.status = 'ready';
    } catch (error) {
      this.loadError = error instanceof ConsoleApiError ? error.message : 'The console could not start.';
      this.status = 'error';
    }
  }

  private async loadProjects(select?: string | null) {
    this.projects = await this.api.projects();
    const wanted = select !== undefined ? select : this.route.project;
    const project = this.projects.find((p) => p.id === wanted) ?? this.projects[0];
    if ((project?.id ?? null) !== this.route.project)
      this.go(
        routeHref(
          this.route.page,
          project?.id ?? null,
          project?.id === this.route.project ? this.route.params : {},
        ),
        true,
      );
  }

  private readonly onPopState = () => {
    this.route = parseRoute(location.href);
  };

  private readonly onNavigate = (event: NavigateEvent) => this.go(event.href, event.replace);

  private readonly onProjectsChanged = (event: ProjectsChangedEvent) => {
    void this.loadProjects(event.select);
  };

  private go(href: string, replace = false) {
    const url = new URL(href, new URL('.', location.href));
    if (url.href !== location.href) history[replace ? 'replaceState' : 'pushState'](null, '', url);
    this.route = parseRoute(location.href);
  }

  private link(event: MouseEvent) {
    if (!inPlace(event)) return;
    event.preventDefault();
    this.go((event.currentTarget as HTMLAnchorElement).href);
    this.focusPage();
  }

  /** The page's heading takes focus, so a screen reader hears where it landed. */
  private focusPage() {
    void this.updateComplete.then(() =>
      requestAnimationFrame(() =>
        this.renderRoot.querySelector('main')?.querySelector<ConsolePage>('[data-page]')?.focusHeading(),
      ),
    );
  }

  render() {
    if (this.status === 'loading')
      return html`<p class="visually-hidden" role="status">Loading the console…</p>`;
    if (this.status === 'error')
      return html`<div class="empty card" role="alert"><h1>The console could not start</h1><p>${this.loadError}</p><button @click=${() => location.reload()}>Reload</button></div>`;
    if (this.status === 'signed-out')
      return html`<console-sign-in .api=${this.api} @signed-in=${this.signedIn}></console-sign-in>`;
    const project = this.projects.find((p) => p.id === this.route.project) ?? null;
    const viewer = this.api.role === 'viewer';
    return html`<div class="shell">
      <header><div class="rail">
        <div class="top">
          <div class="brand"><span class="logo" aria-hidden="true">ac</span><span>agent-chat console</span></div>
          <div class="user"><span><span class="visually-hidden">Signed in as </span>${this.username}${viewer ? html` <span class="pill">viewer</span>` : nothing}</span><button class="small" @click=${this.signOut}>Sign out</button></div>
        </div>
        <div class="project">
          <label for="project">Project</label>
          <div class="row">
            <select id="project" @change=${(e: Event) => this.go(routeHref(this.route.page, (e.target as HTMLSelectElement).value))}>
              ${this.projects.map((p) => html`<option value=${p.id} ?selected=${p.id === project?.id}>${p.name}</option>`)}
            </select>
            ${viewer ? nothing : html`<button class="small icon" title="New project" aria-label="New project" @click=${this.newProject}>${icon('M12 5v14M5 12h14')}</button>`}
          </div>
        </div>
        <nav aria-label="Console">
          <ul>${PAGES.filter((p) => !viewer || !ADMIN_PAGES.has(p.id)).map((p) => html`<li><a href=${routeHref(p.id, project?.id ?? null)} aria-current=${p.id === this.route.page ? 'page' : nothing} @click=${this.link}>${ICONS[p.id]}${p.label}</a></li>`)}</ul>
        </nav>
      </div></header>
      <main>${this.page(project)}</main>
    </div>
    <dialog id="new-project" aria-labelledby="new-project-title" @close=${() => this.requestUpdate()}>
      <form class="stack" @submit=${this.createProject}>
        <h2 id="new-project-title">New project</h2>
        <label>Project name <input name="name" required maxlength="80"></label>
        ${this.createError ? html`<p class="notice error" role="alert">${this.createError}</p>` : nothing}
        <div class="row"><span class="spacer"></span><button type="button" @click=${() => this.dialog()?.close()}>Cancel</button><button class="primary" type="submit">Create project</button></div>
      </form>
    </dialog>`;
  }

  private page(project: ConsoleProject | null) {
    // An address a viewer was given (or kept from when they were an admin) says why it shows nothing.
    if (this.api.role === 'viewer' && ADMIN_PAGES.has(this.route.page)) {
      const label = PAGES.find((p) => p.id === this.route.page)!.label;
      return html`<div class="empty card stack">
        <h1 tabindex="-1">${label}</h1>
        <p>Only an admin can see the ${label === 'API keys' ? 'API keys' : 'audit log'}: you are signed in as a viewer, who reads conversations, sources, activity and notifications.</p>
      </div>`;
    }
    // Admins and the audit log are the console's, not a project's.
    if (!project && this.route.page !== 'audit' && this.route.page !== 'admins') {
      if (this.api.role === 'viewer')
        return html`<div class="empty card stack"><h1 tabindex="-1">No projects yet</h1><p>An admin creates the projects; you are signed in as a viewer.</p></div>`;
      return html`<div class="empty card stack">
        <h1 tabindex="-1">Create your first project</h1>
        <p class="muted">A project holds the integrations (one per website or app), the API keys your server uses to start chat sessions, and the conversations.</p>
        <form class="row" @submit=${this.createProject}><label class="grow">Project name <input name="name" required maxlength="80"></label><button class="primary" type="submit">Create project</button></form>
      </div>`;
    }
    const params = this.route.params;
    switch (this.route.page) {
      case 'activity':
        return html`<activity-page data-page .api=${this.api} .project=${project} .params=${params}></activity-page>`;
      case 'conversations':
        return html`<conversations-page data-page .api=${this.api} .project=${project} .params=${params}></conversations-page>`;
      case 'integrations':
        return html`<integrations-page data-page .api=${this.api} .project=${project} .params=${params}></integrations-page>`;
      case 'keys':
        return html`<keys-page data-page .api=${this.api} .project=${project}></keys-page>`;
      case 'audit':
        return html`<audit-page data-page .api=${this.api} .project=${project} .params=${params}></audit-page>`;
      case 'admins':
        return html`<admins-page data-page .api=${this.api}></admins-page>`;
      case 'sources':
        return html`<sources-page data-page .api=${this.api} .project=${project} .params=${params}></sources-page>`;
      case 'notifications':
        return html`<notifications-page data-page .api=${this.api} .project=${project}></notifications-page>`;
    }
  }

  private dialog = () => this.renderRoot.querySelector<HTMLDialogElement>('#new-project');

  private newProject() {
    this.createError = '';
    this.dialog()?.showModal();
  }

  /**
   * A refusal is said in the dialog, the name kept (it was an unhandled rejection: the dialog
   * stayed as it was, without a word); a new project's Integrations page takes the focus at its
   * heading, as a navigation does, not the New project button the dialog gave it back to.
   */
  private async createProject(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const name = field(new FormData(form), 'name').trim();
    if (!name) return;
    let created: ConsoleProject | undefined;
    await attempt(
      async () => (created = await this.api.createProject(name)),
      (error) => (this.createError = error),
      'The project could not be created.',
    );
    if (!created) return;
    form.reset();
    this.dialog()?.close();
    await this.loadProjects(created.id);
    this.go(routeHref('integrations', created.id));
    this.focusPage();
  }

  private async signedIn(event: CustomEvent<string>) {
    this.username = event.detail;
    this.status = 'loading';
    await this.loadProjects();
    this.status = 'ready';
    // The sign-in form went with the focus it held.
    this.focusPage();
  }

  private async signOut() {
    await this.api.signOut().catch(() => {});
    this.status = 'signed-out';
  }
}

const icon = (d: string) =>
  html`<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d=${d}></path></svg>`;
const ICONS = {
  activity: icon('M3 12h4l3 8 4-16 3 8h4'),
  conversations: icon('M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.4A8 8 0 1 1 21 12z'),
  integrations: icon('M9 7H6a4 4 0 0 0 0 8h3m6-8h3a4 4 0 0 1 0 8h-3M8 11h8'),
  keys: icon('M15 7a4 4 0 1 1-3.9 5H4v3h3v3h3v-3h1.1A4 4 0 0 1 15 7z'),
  sources: icon('M4 5a2 2 0 0 1 2-2h9l5 5v11a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2zm10-2v5h5M8 13h8m-8 4h6'),
  notifications: icon('M6 16V11a6 6 0 0 1 12 0v5l2 2H4zm4 4h4'),
  admins: icon(
    'M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-6 10v-1a6 6 0 0 1 12 0v1m1-10a3 3 0 1 0 0-6m2 16v-1a5 5 0 0 0-3-4.6',
  ),
  audit: icon('M9 4h6l1 2h3v15H5V6h3l1-2zm-1 8h8m-8 4h5'),
};

declare global {
  interface HTMLElementTagNameMap {
    'console-app': ConsoleApp;
  }
}
