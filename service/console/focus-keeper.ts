import type { ReactiveController, ReactiveElement } from 'lit';

/**
 * Keeps the keyboard on a console element when a press takes its own control away (decision
 * 710). A removed row, or Revoke that becomes End sessions, would leave the focus on <body>,
 * and the next Tab at the top of the document: the focus goes to the nearest focusable element
 * that held the control (a table's region), else to `fallback` (a page's heading). A button
 * disabled while the element works (Save synonyms, Load more) gets the focus back once it is enabled again.
 */
export class FocusKeeper implements ReactiveController {
  readonly #host: ReactiveElement;
  readonly #fallback: () => HTMLElement | null | undefined;
  /** The focused element and the host's elements around it, innermost first. */
  #path: HTMLElement[] = [];
  /** A button disabled while the host worked, which took the focus with it. */
  #disabled: HTMLButtonElement | null = null;
  #listening = false;

  constructor(host: ReactiveElement, fallback: () => HTMLElement | null | undefined) {
    this.#host = host;
    this.#fallback = fallback;
    host.addController(this);
  }

  hostConnected(): void {
    if (this.#listening) return;
    this.#listening = true;
    // On the shadow root: a move between two of the host's own controls never reaches the host.
    const root = this.#host.renderRoot;
    root.addEventListener('focusin', (event) => {
      const path = event.composedPath();
      this.#path = path.slice(0, path.indexOf(this.#host)).filter((n) => n instanceof HTMLElement);
    });
    // Chromium lets go of a control once it is disabled: no element gains the focus.
    root.addEventListener('focusout', (event) => {
      const { target, relatedTarget } = event as FocusEvent;
      const button = target as HTMLButtonElement;
      this.#disabled = !relatedTarget && button.disabled ? button : null;
    });
  }

  hostUpdated(): void {
    if (document.activeElement !== document.body) return;
    const again = this.#disabled;
    if (again?.isConnected && !again.disabled) {
      this.#disabled = null;
      again.focus();
      return;
    }
    const [focused] = this.#path;
    if (!focused || focused.isConnected) return;
    const holder = this.#path.find((el) => el.isConnected && el.tabIndex >= 0);
    (holder ?? this.#fallback())?.focus();
  }
}
