import type { ReactiveController, ReactiveElement } from 'lit';
import { showOverPage } from '../../internal/top-layer.js';

const KEY_EVENTS = ['keydown', 'keyup', 'keypress'] as const;

/** Keys typed into one of the widget's text fields (the message, the search, a comment). */
function typedIntoField(event: Event): boolean {
  const origin = event.composedPath()[0];
  return (
    origin instanceof HTMLInputElement ||
    origin instanceof HTMLTextAreaElement ||
    (origin instanceof HTMLElement && origin.isContentEditable)
  );
}

/**
 * Where the widget meets the page it is pasted into; an iframe (Intercom's, ChatKit's) would
 * keep both of these from the page, a shadow root does not.
 *
 * The floating launcher and panel sit in the browser's top layer (decision 561). Placed with
 * `position: fixed` alone, they are fixed to the viewport only while no ancestor makes a box for
 * fixed descendants: a page builder's block with `transform`, `filter`, `will-change` or
 * `contain: paint` held them in its own box, the panel opening above the top of the page; an
 * ancestor's stacking context put them under the page's header. A manual popover is drawn over
 * the viewport whatever its ancestors do, and still inherits from them (a hidden ancestor hides
 * it). The elements carry `popover="manual"` in the template; this shows each once it is in the
 * document, and again after the chat moves. Where the browser has no popovers, the attribute
 * means nothing and `--agent-chat-z-index` stacks them.
 *
 * Keys typed into a text field stay in the widget (decision 563). A page's shortcuts skip text
 * fields by looking at the focused element, and a shadow root shows them its host instead:
 * Sphinx's "/" (on by default since Sphinx 5.2) took the focus to the page's search box in the
 * middle of a question. The widget's own handlers, all inside, still see every key; keys on its
 * buttons still reach the page.
 */
export class PageBoundary implements ReactiveController {
  readonly #host: ReactiveElement;

  constructor(host: ReactiveElement) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    for (const type of KEY_EVENTS) this.#host.addEventListener(type, this.#keepTyping);
    // Moved on the page: the popovers were hidden when the chat left the document.
    if (this.#host.hasUpdated) void this.#host.updateComplete.then(() => this.hostUpdated());
  }

  hostDisconnected(): void {
    for (const type of KEY_EVENTS) this.#host.removeEventListener(type, this.#keepTyping);
  }

  hostUpdated(): void {
    // The launcher and the panel are children of the shadow root: a few nodes per update, not a
    // query of the whole panel on every streamed frame.
    for (const element of this.#host.renderRoot.children) showOverPage(element);
  }

  readonly #keepTyping = (event: Event) => {
    if (typedIntoField(event)) event.stopPropagation();
  };
}
