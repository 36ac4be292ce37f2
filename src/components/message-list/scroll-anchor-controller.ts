import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** How close to the bottom (px) still counts as "reading the latest". */
export const PINNED_THRESHOLD = 48;

/**
 * Keeps a scroll container pinned to the bottom while the reader is there, and only then:
 * someone who scrolled up to reread is never yanked down. `pinned` drives "Jump to latest".
 *
 * The content grows after this host renders (each message renders itself a microtask later),
 * so growth is followed with a ResizeObserver on the content (and the scroller), which runs
 * after layout and before paint, rather than from the host's own update.
 */
export class ScrollAnchorController implements ReactiveController {
  pinned = true;
  #observed?: Element;
  /** The scrollTop this controller set last: the scroll event it causes needs no measuring. */
  #ownScrollTop = -1;
  /** The scroller's size when it was last measured: a scroll while it changed is the layout's. */
  #size = '';
  readonly #resizes = new ResizeObserver(() => {
    if (this.pinned) this.#stickToBottom();
  });

  readonly #host: ReactiveControllerHost;
  readonly #scroller: () => HTMLElement | null;
  readonly #content: () => Element | null;

  constructor(
    host: ReactiveControllerHost,
    scroller: () => HTMLElement | null,
    content: () => Element | null,
  ) {
    this.#host = host;
    this.#scroller = scroller;
    this.#content = content;
    host.addController(this);
  }

  hostUpdated(): void {
    const content = this.#content();
    if (content && content !== this.#observed) {
      this.#resizes.disconnect();
      this.#resizes.observe(content);
      // The scroller shrinks too (a phone's keyboard opening, a panel made shorter): its
      // scrollTop stays, so the latest would slide out of view under a reader pinned there.
      const scroller = this.#scroller();
      if (scroller) this.#resizes.observe(scroller);
      this.#observed = content;
    }
  }

  hostDisconnected(): void {
    this.#resizes.disconnect();
    this.#observed = undefined;
  }

  /** Called from the container's scroll listener. */
  handleScroll(): void {
    const el = this.#scroller();
    if (!el || el.scrollTop === this.#ownScrollTop) return;
    // A phone turned: the answer reflowed wider and shorter, a layout clamped scrollTop (this
    // event), and the panel then got shorter with the visual viewport. Measured now, the reader
    // at the latest looked scrolled up, and the resize that follows left them there.
    const size = `${el.clientWidth}x${el.clientHeight}`;
    if (this.pinned && size !== this.#size) return this.#stickToBottom();
    this.#size = size;
    const pinned = el.scrollHeight - el.scrollTop - el.clientHeight <= PINNED_THRESHOLD;
    if (pinned !== this.pinned) {
      this.pinned = pinned;
      this.#host.requestUpdate();
    }
  }

  scrollToBottom(): void {
    this.#stickToBottom();
    if (!this.pinned) {
      this.pinned = true;
      this.#host.requestUpdate();
    }
  }

  #stickToBottom(): void {
    const el = this.#scroller();
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    this.#ownScrollTop = el.scrollTop;
    this.#size = `${el.clientWidth}x${el.clientHeight}`;
  }
}
