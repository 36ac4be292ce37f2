/** How long after a click the focus is looked after: a thread's deletion waits for the service. */
const WATCH_MS = 2000;

export interface FocusKeeperOptions {
  /** The thread list: a control of its own that goes hands the focus to the list. */
  list: () => HTMLElement | null;
  /** Where the focus goes from the conversation: the message box, or the panel on a touch screen. */
  main: () => HTMLElement | null;
}

/** The focused element, through shadow roots. */
function focusedElement(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/**
 * Keeps the keyboard's place in the panel when the control it was on goes with its own click:
 * a suggested question, Retry, Regenerate and a thread's Delete remove their button, and the
 * browser drops the focus to the page's `<body>`, where a keyboard or screen-reader user is out
 * of the chat (decision 448). For a moment after a click, focus that falls to `<body>` from an
 * element that left the page goes back into the panel; focus the visitor moved is left alone.
 */
export class FocusKeeper {
  readonly #options: FocusKeeperOptions;
  /** The watch under way: a later click ends it (it knows better where the focus belongs). */
  #watch = 0;

  constructor(options: FocusKeeperOptions) {
    this.#options = options;
  }

  /** The panel's click listener. */
  readonly clicked = (event: Event): void => {
    const path = event.composedPath();
    let last = path[0];
    if (!(last instanceof Element)) return;
    const list = this.#options.list();
    const target = list && path.includes(list) ? () => list : this.#options.main;
    const until = performance.now() + WATCH_MS;
    const watch = ++this.#watch;
    const check = () => {
      if (watch !== this.#watch) return;
      const focused = focusedElement();
      if (focused && focused !== document.body) last = focused;
      else if (!(last as Element).isConnected) target()?.focus();
      if (performance.now() < until) requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  };
}
