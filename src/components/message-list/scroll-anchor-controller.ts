import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** How close to the bottom (px) still counts as "reading the latest". */
export const PINNED_THRESHOLD = 48;

/**
 * Keeps a scroll container pinned to the bottom while the reader is there, and only then:
 * someone who scrolled up to reread is never yanked down. `pinned` drives "Jump to latest".
 */
export class ScrollAnchorController implements ReactiveController {
  pinned = true;
  private wasPinned = true;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly scroller: () => HTMLElement | null,
  ) {
    host.addController(this);
  }

  hostUpdate(): void {
    this.wasPinned = this.pinned;
  }

  hostUpdated(): void {
    if (this.wasPinned) this.scrollToBottom();
  }

  /** Called from the container's scroll listener. */
  handleScroll(): void {
    const el = this.scroller();
    if (!el) return;
    const pinned = el.scrollHeight - el.scrollTop - el.clientHeight <= PINNED_THRESHOLD;
    if (pinned !== this.pinned) {
      this.pinned = pinned;
      this.host.requestUpdate();
    }
  }

  scrollToBottom(): void {
    const el = this.scroller();
    if (el) el.scrollTop = el.scrollHeight;
    if (!this.pinned) {
      this.pinned = true;
      this.host.requestUpdate();
    }
  }
}
