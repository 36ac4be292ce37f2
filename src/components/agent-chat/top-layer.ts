import type { ReactiveController, ReactiveElement } from 'lit';

/**
 * The floating launcher and panel sit in the browser's top layer (decision 561). Placed with
 * `position: fixed` alone, they are fixed to the viewport only while no ancestor makes a box for
 * fixed descendants: a page builder's block with `transform`, `filter`, `will-change` or
 * `contain: paint` (an entrance animation, a footer block) held them in its own box, the panel
 * opening above the top of the page; an ancestor's stacking context put them under the page's
 * header. A manual popover is drawn over the viewport whatever its ancestors do, and still
 * inherits from them (a hidden ancestor hides it). The elements carry `popover="manual"` in the
 * template; this shows each once it is in the document, and again after the chat moves. Where
 * the browser has no popovers, the attribute means nothing and `--agent-chat-z-index` stacks them.
 */
export class TopLayer implements ReactiveController {
  readonly #host: ReactiveElement;

  constructor(host: ReactiveElement) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    // Moved on the page: the popovers were hidden when the chat left the document.
    if (this.#host.hasUpdated) void this.#host.updateComplete.then(() => this.hostUpdated());
  }

  hostUpdated(): void {
    for (const element of this.#host.renderRoot.querySelectorAll<HTMLElement>('[popover]'))
      if (element.isConnected && 'showPopover' in element && !element.matches(':popover-open'))
        element.showPopover();
  }
}
