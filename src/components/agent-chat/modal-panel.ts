import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { lockPageScroll } from './viewport-controller.js';

/** Where the floating panel fills the screen; agent-chat.styles.ts uses the same width. */
const PHONE = '(max-width: 480px)';

export interface ModalPanelOptions {
  /** The panel floats (launcher mode) and is open. */
  open: () => boolean;
  panel: () => HTMLElement | null;
  /** Its first and last controls, where Tab wraps. */
  first: () => HTMLElement | null;
  last: () => HTMLElement | null;
}

/**
 * A floating panel that fills a phone-sized screen covers the page, so it behaves as a modal
 * dialog: `modal` is true (the root renders `aria-modal`), the page behind does not scroll, and
 * Tab stays inside (past the last control to the first, and back). A resize across the phone
 * width re-renders, so the state follows a rotated screen.
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
    if (event.key !== 'Tab' || !this.modal) return false;
    const { first, last, panel } = this.#options;
    const from = event.composedPath()[0];
    const to = event.shiftKey
      ? from === first() || from === panel()
        ? last()
        : null
      : from === last()
        ? first()
        : null;
    if (!to) return false;
    event.preventDefault();
    to.focus();
    return true;
  }
}
