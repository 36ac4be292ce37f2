import { css, html, nothing, type ReactiveController, type ReactiveControllerHost } from 'lit';
import { icon, type IconName } from '../icons.js';

export interface MenuItem {
  label: string;
  icon: IconName;
  run: () => void;
}

type Host = ReactiveControllerHost & HTMLElement;

/**
 * The header's "More" menu: secondary actions (the transcript download) in one place instead
 * of a row of links above the composer. A menu button (WAI-ARIA menu pattern): Enter, Space or
 * a click opens it with the first item focused; arrows, Home and End move; Escape closes it and
 * returns to the button; Tab or a click elsewhere closes it. Without items there is no button.
 */
export class MoreMenu implements ReactiveController {
  open = false;

  constructor(private readonly host: Host) {
    host.addController(this);
  }

  hostDisconnected(): void {
    document.removeEventListener('pointerdown', this.outside, true);
  }

  private root(): ShadowRoot | null {
    return this.host.shadowRoot;
  }

  private items(): HTMLElement[] {
    return Array.from(this.root()?.querySelectorAll<HTMLElement>('.menu [role="menuitem"]') ?? []);
  }

  private async setOpen(open: boolean, focus: 'first' | 'toggle' | 'none'): Promise<void> {
    this.open = open;
    if (open) document.addEventListener('pointerdown', this.outside, true);
    else document.removeEventListener('pointerdown', this.outside, true);
    this.host.requestUpdate();
    await this.host.updateComplete;
    if (focus === 'first') this.items()[0]?.focus();
    else if (focus === 'toggle') this.root()?.querySelector<HTMLElement>('.more-toggle')?.focus();
  }

  /** A press outside the menu and its button closes it (focus stays where the press put it). */
  private readonly outside = (event: Event) => {
    const inside = event.composedPath().some((node) => node instanceof HTMLElement && node.classList.contains('more'));
    if (!inside) void this.setOpen(false, 'none');
  };

  private readonly keydown = (event: KeyboardEvent) => {
    const items = this.items();
    const index = items.indexOf(event.composedPath()[0] as HTMLElement);
    const next = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1 }[event.key];
    if (next !== undefined) {
      event.preventDefault();
      items[(next + items.length) % items.length]?.focus();
    } else if (event.key === 'Escape') {
      // The menu is the innermost layer: Escape closes it, not the panel.
      event.preventDefault();
      event.stopPropagation();
      void this.setOpen(false, 'toggle');
    } else if (event.key === 'Tab') {
      void this.setOpen(false, 'none');
    }
  };

  render(label: string, items: readonly MenuItem[]) {
    if (!items.length) {
      // Nothing left to offer (an answer started streaming): the menu is closed, not re-rendered.
      this.open = false;
      document.removeEventListener('pointerdown', this.outside, true);
      return nothing;
    }
    return html`<div class="more">
      <button class="icon-button more-toggle" type="button" aria-label=${label} title=${label} aria-haspopup="menu"
        aria-expanded=${this.open ? 'true' : 'false'} aria-controls="more-menu" @click=${() => void this.setOpen(!this.open, this.open ? 'none' : 'first')}>${icon('more')}</button>
      ${this.open
        ? html`<div id="more-menu" class="menu" part="menu" role="menu" aria-label=${label} @keydown=${this.keydown}>
            ${items.map((item) => html`<button type="button" role="menuitem" tabindex="-1" @click=${() => {
              void this.setOpen(false, 'toggle');
              item.run();
            }}>${icon(item.icon)}<span>${item.label}</span></button>`)}
          </div>`
        : nothing}
    </div>`;
  }
}

export const moreMenuStyles = css`
  .more { position: relative; flex: none; }
  .menu {
    position: absolute; inset-inline-end: 0; top: calc(100% + 4px); z-index: 3; min-width: 220px;
    display: grid; padding: 4px; border-radius: 12px;
    border: 1px solid var(--agent-chat-color-border); background: var(--agent-chat-color-surface);
    box-shadow: var(--agent-chat-shadow);
  }
  .menu button {
    display: flex; align-items: center; gap: 10px; min-height: 36px; padding: 6px 10px;
    border: 0; border-radius: 8px; background: none; cursor: pointer; text-align: start; white-space: nowrap;
  }
  .menu button:hover, .menu button:focus-visible { background: var(--agent-chat-color-surface-raised); }
  .menu svg { flex: none; width: 18px; height: 18px; color: var(--agent-chat-color-text-muted); }
  @media (pointer: coarse) {
    .menu button { min-height: 44px; }
  }
`;
