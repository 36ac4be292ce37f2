import { html, nothing, type ReactiveController, type ReactiveControllerHost } from 'lit';
import type { AttachmentKit } from './kit.js';
import { importKit } from './kit-loader.js';

let loaded: AttachmentKit | null = null;
let loading: Promise<AttachmentKit | null> | undefined;
const waiting = new Set<ReactiveControllerHost>();

/** Loads the kit once for the page; a failed load (a site that did not host the chunk) may try again later. */
function load(): Promise<AttachmentKit | null> {
  loading ??= importKit().then(
    (module) => {
      loaded = module.createKit({ html, nothing });
      for (const host of waiting) host.requestUpdate();
      return loaded;
    },
    () => {
      loading = undefined;
      return null;
    },
  );
  return loading;
}

/**
 * The attachment kit for one element: null until it has loaded, and the element renders again
 * when it arrives. `need()` asks for it (a file picked, a thread with files shown); until then,
 * and if it cannot load, the element shows its files as plain names.
 */
export class AttachmentKitController implements ReactiveController {
  #adopted = false;

  constructor(private readonly host: ReactiveControllerHost & HTMLElement) {
    host.addController(this);
  }

  get kit(): AttachmentKit | null {
    if (loaded && !this.#adopted && this.host.shadowRoot) {
      // The kit's styles join the element's own (a constructed sheet: no inline style for the page's CSP).
      this.host.shadowRoot.adoptedStyleSheets = [...this.host.shadowRoot.adoptedStyleSheets, loaded.styles];
      this.#adopted = true;
    }
    return loaded;
  }

  need(): Promise<AttachmentKit | null> {
    return loaded ? Promise.resolve(loaded) : load();
  }

  hostConnected(): void {
    waiting.add(this.host);
  }

  hostDisconnected(): void {
    waiting.delete(this.host);
  }
}
