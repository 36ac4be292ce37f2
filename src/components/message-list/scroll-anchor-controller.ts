import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** How close to the bottom (px) still counts as "reading the latest". */
export const PINNED_THRESHOLD = 48;

/**
 * Keeps a scroll container pinned to the bottom while the reader is there, and only then:
 * someone who scrolled up to reread is never yanked down. `pinned` drives "Jump to latest".
 *
 * A question the visitor sends is held at the top of the view instead (`holdAtTop`), so its
 * answer is read from its start: the `room` element below the log gets the height the answer
 * has not filled yet, and the view stays put while it fills it. When the answer runs past the
 * bottom, "Jump to latest" appears; taking it, or scrolling down to the end, follows again.
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
  /** The question held at the top of the view, until the reader follows the latest again. */
  #question?: () => HTMLElement | null;
  readonly #resizes = new ResizeObserver(() => {
    if (this.#question) this.#holdQuestion();
    else if (this.pinned) this.#stickToBottom();
  });

  readonly #host: ReactiveControllerHost;
  readonly #scroller: () => HTMLElement | null;
  readonly #content: () => Element | null;
  readonly #room: () => HTMLElement | null;

  constructor(
    host: ReactiveControllerHost,
    scroller: () => HTMLElement | null,
    content: () => Element | null,
    room: () => HTMLElement | null,
  ) {
    this.#host = host;
    this.#scroller = scroller;
    this.#content = content;
    this.#room = room;
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
    if (this.#question) this.#holdQuestion();
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
    // Above the held view: a layout clamped it (held again) or the reader scrolled up (left).
    if (this.#question && el.scrollTop < this.#ownScrollTop) return this.#holdQuestion();
    if (this.pinned && size !== this.#size)
      return this.#question ? this.#holdQuestion() : this.#stickToBottom();
    this.#size = size;
    const pinned = this.#setPinned(el);
    // The reader scrolled down to the end of an answer longer than the view: follow it again.
    if (pinned && this.#question && !this.#room()?.offsetHeight && el.scrollTop > this.#ownScrollTop)
      this.#question = undefined;
  }

  /** Holds the question `find` returns at the top of the view from the next layout on. */
  holdAtTop(find: () => HTMLElement | null): void {
    this.#question = find;
    this.#ownScrollTop = this.#scroller()?.scrollTop ?? -1;
  }

  /** Another conversation (or none): no room below, and its end in view. */
  reset(): void {
    this.#question = undefined;
    const room = this.#room();
    if (room) room.style.height = '0px';
    this.pinned = true;
  }

  scrollToBottom(): void {
    this.#question = undefined;
    this.#stickToBottom();
    if (!this.pinned) {
      this.pinned = true;
      this.#host.requestUpdate();
    }
  }

  #setPinned(el: HTMLElement): boolean {
    const pinned = el.scrollHeight - el.scrollTop - el.clientHeight <= PINNED_THRESHOLD;
    if (pinned !== this.pinned) {
      this.pinned = pinned;
      this.#host.requestUpdate();
    }
    return pinned;
  }

  /**
   * The question's top at the view's top, or (a question taller than half the view, as on a
   * landscape phone) its end at the middle, so the answer always has half the view. The room
   * below makes that scroll possible; the view only moves while the reader has not scrolled.
   */
  #holdQuestion(): void {
    const el = this.#scroller();
    const question = this.#question?.();
    const room = this.#room();
    if (!el || !room || !question?.isConnected) return;
    // Offsets, not client rects: the question slides in, and the view should not follow that.
    let top = 0;
    for (let node: Element | null = question; node && node !== el; node = (node as HTMLElement).offsetParent)
      top += (node as HTMLElement).offsetTop;
    const padding = parseFloat(getComputedStyle(el).paddingTop);
    const target = Math.max(top - padding, top + question.offsetHeight - el.clientHeight / 2);
    // The content got shorter under the held view and a layout clamped scrollTop: not the reader.
    const clamped =
      el.scrollTop < this.#ownScrollTop && el.scrollTop >= el.scrollHeight - el.clientHeight - 1;
    const rest = el.scrollHeight - room.offsetHeight;
    room.style.height = `${Math.max(0, Math.ceil(target + el.clientHeight - rest))}px`;
    if (el.scrollTop === this.#ownScrollTop || clamped) {
      el.scrollTop = target;
      this.#ownScrollTop = el.scrollTop;
    }
    this.#size = `${el.clientWidth}x${el.clientHeight}`;
    this.#setPinned(el);
  }

  #stickToBottom(): void {
    const el = this.#scroller();
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    this.#ownScrollTop = el.scrollTop;
    this.#size = `${el.clientWidth}x${el.clientHeight}`;
  }
}
