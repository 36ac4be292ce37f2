import { html, nothing, type ReactiveController, type ReactiveControllerHost } from 'lit';
import { icon, type IconName } from '../icons.js';

export interface MenuItem {
  label: string;
  icon: IconName;
  run: () => void;
}

type Host = ReactiveControllerHost & HTMLElement;

/**
 * The header's "More": secondary actions (the transcript download) in one place instead of a row
 * of links above the composer. A disclosure, not an ARIA menu: the items stay buttons (the UI
 * contract names "Download conversation" a button) in the tab order. Opening it focuses the first
 * item; Escape closes it and returns to "More"; focus or a press leaving it closes it. Without
 * items there is no "More" at all.
 */
export class MoreMenu implements ReactiveController {
  open = false;

  readonly #host: Host;

  constructor(host: Host) {
    this.#host = host;
    host.addController(this);
  }

  hostDisconnected(): void {
    this.#listen(false);
  }

  #listen(on: boolean): void {
    if (on) document.addEventListener('pointerdown', this.#outside, true);
    else document.removeEventListener('pointerdown', this.#outside, true);
  }

  async #setOpen(open: boolean, focus: 'first' | 'toggle' | 'none'): Promise<void> {
    this.open = open;
    this.#listen(open);
    this.#host.requestUpdate();
    await this.#host.updateComplete;
    const root = this.#host.shadowRoot;
    if (focus === 'first') root?.querySelector<HTMLElement>('.menu button')?.focus();
    else if (focus === 'toggle') root?.querySelector<HTMLElement>('.more-toggle')?.focus();
  }

  /** Inside "More" or its list: the path of an event, or where focus went. */
  static #inside(nodes: readonly EventTarget[]): boolean {
    return nodes.some((node) => node instanceof HTMLElement && node.classList.contains('more'));
  }

  readonly #outside = (event: Event) => {
    if (!MoreMenu.#inside(event.composedPath())) void this.#setOpen(false, 'none');
  };

  /** Tab (or anything) taking focus elsewhere closes it; focus going nowhere (a press) is the press's business. */
  readonly #focusout = (event: FocusEvent) => {
    const next = event.relatedTarget;
    if (this.open && next instanceof Node && !(event.currentTarget as HTMLElement).contains(next))
      void this.#setOpen(false, 'none');
  };

  readonly #keydown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !this.open) return;
    // The list is the innermost layer: Escape closes it, not the panel.
    event.preventDefault();
    event.stopPropagation();
    void this.#setOpen(false, 'toggle');
  };

  render(label: string, items: readonly MenuItem[]) {
    if (!items.length) {
      // Nothing left to offer (an answer started streaming): closed, not re-rendered.
      this.open = false;
      this.#listen(false);
      return nothing;
    }
    return html`<div class="more" @keydown=${this.#keydown} @focusout=${this.#focusout}>
      <button class="icon-button more-toggle" type="button" aria-label=${label} title=${label}
        aria-expanded=${this.open ? 'true' : 'false'} aria-controls="more-menu" @click=${() => void this.#setOpen(!this.open, this.open ? 'none' : 'first')}>${icon('more')}</button>
      ${
        this.open
          ? html`<div id="more-menu" class="menu" part="menu">
            ${items.map(
              (item) =>
                html`<button type="button" @click=${() => {
                  void this.#setOpen(false, 'toggle');
                  item.run();
                }}>${icon(item.icon)}<span>${item.label}</span></button>`,
            )}
          </div>`
          : nothing
      }
    </div>`;
  }
}
