import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * On phones the on-screen keyboard shrinks the *visual* viewport, not the layout one, so a
 * full-screen panel would hide its composer behind the keyboard. This tracks the visual
 * viewport's height in a private custom property the panel's height reads.
 */
export class ViewportController implements ReactiveController {
  readonly #viewport = globalThis.visualViewport;
  #applied = '';

  readonly #target: () => HTMLElement | null;

  constructor(host: ReactiveControllerHost, target: () => HTMLElement | null) {
    this.#target = target;
    host.addController(this);
  }

  hostConnected(): void {
    this.#viewport?.addEventListener('resize', this.#sync);
  }

  /** The panel element the height was last written to. */
  #synced: HTMLElement | null = null;

  hostUpdated(): void {
    // Once per panel element: reading the viewport after every render forced a layout of the
    // whole conversation per streamed frame (30 ms in a 1,000-message thread); resizes come
    // through the listener.
    const target = this.#target();
    if (target === this.#synced) return;
    this.#synced = target;
    this.#sync();
  }

  hostDisconnected(): void {
    this.#viewport?.removeEventListener('resize', this.#sync);
  }

  readonly #sync = () => {
    const target = this.#target();
    if (!target || !this.#viewport) return;
    const height = `${this.#viewport.height}px`;
    // Only on change: an inherited custom property invalidates style for the whole panel,
    // and this runs after every render of a streaming answer.
    if (height === this.#applied && target.style.getPropertyValue('--_agent-chat-viewport-height') === height)
      return;
    this.#applied = height;
    target.style.setProperty('--_agent-chat-viewport-height', height);
  };
}

let lockedOverflow: string | undefined;

/**
 * Locks the page behind a full-screen panel (phones): without it, a swipe that reaches the end of
 * the conversation scrolls the page underneath. Set through the CSSOM, which a strict CSP allows.
 */
export function lockPageScroll(lock: boolean): void {
  const root = document.documentElement;
  if (lock && lockedOverflow === undefined) {
    lockedOverflow = root.style.overflow;
    root.style.overflow = 'hidden';
  } else if (!lock && lockedOverflow !== undefined) {
    root.style.overflow = lockedOverflow;
    lockedOverflow = undefined;
  }
}
