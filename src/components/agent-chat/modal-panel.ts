import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { lockPageScroll } from './viewport-controller.js';

/**
 * Where the floating panel fills the screen: a phone, upright or on its side (decision 608);
 * agent-chat.styles.ts uses the same query.
 */
const PHONE = '(max-width: 480px), (max-height: 480px)';

export interface ModalPanelOptions {
  /** The panel floats (launcher mode) and is open. */
  open: () => boolean;
  panel: () => HTMLElement | null;
  /** Its first and last controls, where Tab wraps. */
  first: () => HTMLElement | null;
  last: () => HTMLElement | null;
  /** A layer over the conversation (the thread list), else null: then the header and it are all Tab reaches. */
  over: () => (HTMLElement & { readonly lastControl: HTMLElement | null }) | null;
}

/**
 * A floating panel that fills a phone-sized screen covers the page, so it behaves as a modal
 * dialog: `modal` is true (the root renders `aria-modal`), the page behind does not scroll, and
 * Tab stays inside (past the last control to the first, and back). A resize across the phone
 * width re-renders, so the state follows a rotated screen. While a layer covers the
 * conversation (the thread list), Tab stays inside any floating panel, and wraps from the
 * layer's last stop (decision 501).
 */
export class ModalPanel implements ReactiveController {
  readonly #query = globalThis.matchMedia?.(PHONE);

  readonly #host: ReactiveControllerHost;
  readonly #options: ModalPanelOptions;

  constructor(host: ReactiveControllerHost, options: ModalPanelOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  get modal(): boolean {
    return this.#options.open() && Boolean(this.#query?.matches);
  }

  hostConnected(): void {
    this.#query?.addEventListener('change', this.#changed);
  }

  hostUpdated(): void {
    lockPageScroll(this.modal);
  }

  hostDisconnected(): void {
    this.#query?.removeEventListener('change', this.#changed);
    lockPageScroll(false);
  }

  readonly #changed = () => this.#host.requestUpdate();

  /** The panel's Tab key: true when it wrapped focus (the event is then handled). */
  wrapTab(event: KeyboardEvent): boolean {
    if (event.key !== 'Tab') return false;
    const { first, panel, open } = this.#options;
    const layer = open() ? this.#options.over() : null;
    if (!layer && !this.modal) return false;
    const path = event.composedPath();
    const from = path[0];
    // Over a layer with no control (only words, where focus goes as it opens), the header's last control ends the panel.
    const end = layer?.lastControl;
    const last = layer
      ? (end ?? [...(panel()?.querySelectorAll<HTMLElement>('header button') ?? [])].at(-1))
      : this.#options.last();
    const to = event.shiftKey
      ? from === first() || from === panel()
        ? last
        : null
      : from === last || (layer && !end && path.includes(layer))
        ? first()
        : null;
    if (!to) return false;
    event.preventDefault();
    to.focus();
    return true;
  }
}
