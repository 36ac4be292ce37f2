import { html, LitElement, nothing } from 'lit';
import { property } from 'lit/decorators.js';
import type { ConsoleApi } from '../api.js';
import type { ConsoleProject } from '../../../contract/console.js';
import { NavigateEvent } from '../events.js';
import { type PageId, routeHref } from '../router.js';
import { base, tokens } from '../styles.js';
import { FocusKeeper } from '../focus-keeper.js';

/** What every page of the console has: the API, the selected project, its query; a heading to land on. */
export class ConsolePage extends LitElement {
  static styles = [tokens, base];

  @property({ attribute: false }) api!: ConsoleApi;
  @property({ attribute: false }) project!: ConsoleProject;
  @property({ attribute: false }) params = new URLSearchParams();

  /**
   * Signed in with the viewer role (decision 718): the page shows what it reads and leaves out
   * what only an admin may change, saying so once (`readOnlyNote`).
   */
  protected get viewer(): boolean {
    return this.api.role === 'viewer';
  }

  constructor() {
    super();
    new FocusKeeper(this, () => this.renderRoot.querySelector<HTMLElement>('h1'));
  }

  /** After a navigation the page's heading takes focus, so a screen reader says where it landed. */
  focusHeading(): void {
    this.renderRoot.querySelector<HTMLElement>('h1')?.focus();
  }

  /** Opens the page's confirmation dialog once the render that fills it in has landed. */
  protected showDialog(): void {
    void this.updateComplete.then(() => this.renderRoot.querySelector('dialog')?.showModal());
  }

  /** Cancel: closes the dialog, whose close event forgets what it asked about. */
  protected closeDialog = (): void => this.renderRoot.querySelector('dialog')?.close();

  protected navigate(page: PageId, params: Record<string, string | undefined>, replace = false): void {
    this.dispatchEvent(new NavigateEvent(routeHref(page, this.project?.id ?? null, params), replace));
  }
}

/**
 * A click on a console link that the console follows in place: a plain left click. One with a
 * modifier (a new tab or window, a download) or already handled is the browser's.
 */
export const inPlace = (event: MouseEvent): boolean =>
  !event.defaultPrevented &&
  event.button === 0 &&
  !(event.metaKey || event.ctrlKey || event.shiftKey || event.altKey);

/**
 * A link to another console page (`href` from `routeHref`): a plain click goes there in place, as
 * the navigation's links do; a modified click is the browser's (a new tab). `name`, when the
 * label says less out of its place, begins with the label.
 */
export const pageLink = (href: string, label: string, className = '', name?: string) =>
  html`<a class=${className} href=${href} aria-label=${name ?? nothing} @click=${(event: MouseEvent) => {
    if (!inPlace(event)) return;
    event.preventDefault();
    (event.currentTarget as HTMLElement).dispatchEvent(new NavigateEvent(href));
  }}>${label}</a>`;

/** What a viewer's page says in place of its changes: why they are not there, and who makes them. */
export const readOnlyNote = (reads: string, changes: string) =>
  html`<p class="notice read-only">You are signed in as a viewer, so you can read ${reads} but not ${changes}: ask an admin.</p>`;
