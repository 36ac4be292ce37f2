import type { ReactiveController, ReactiveElement } from 'lit';

type Host = ReactiveElement & { mode: string };

/** The page's chats, in the order they were connected. */
const connected = new Set<SoleLauncher>();
let warned = false;

/**
 * One launcher per page (decision 459). A snippet pasted twice (a CMS's site-wide header box and
 * a page's code block) drew two launchers in one corner, the second over the first, and gave a
 * keyboard or a screen reader two "Open chat" buttons, and two panels once the device restored
 * them open. The first floating chat connected draws its launcher; a later one draws nothing
 * (the page's console says why, once) until the first leaves the page, or the page opens it
 * with open() from a button of its own. Inline chats are never counted: a page may hold several.
 */
export class SoleLauncher implements ReactiveController {
  readonly #host: Host;

  constructor(host: Host) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    connected.add(this);
  }

  hostDisconnected(): void {
    connected.delete(this);
    for (const other of connected) other.#host.requestUpdate();
  }

  /** Whether this chat may draw a launcher: it is inline, or the page's first floating chat. */
  get drawn(): boolean {
    if (this.#host.mode === 'inline') return true;
    const first = [...connected].find((chat) => chat.#host.mode !== 'inline');
    if (!first || first === this) return true;
    if (!warned) {
      warned = true;
      console.warn(
        '[agent-chat] This page has more than one floating <agent-chat>: only the first is shown. Paste the snippet once.',
      );
    }
    return false;
  }
}
