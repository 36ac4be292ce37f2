import { VERSION } from '../version.js';

const VERSION_KEY = Symbol.for('agent-chat.version');
type Versioned = CustomElementConstructor & { [VERSION_KEY]?: string };

/**
 * Registers a tag unless it is taken. A page that loads the script twice keeps working;
 * a page that loads two *different* versions gets one clear error instead of a broken widget.
 */
export function defineOnce(tag: string, element: CustomElementConstructor): void {
  const existing = customElements.get(tag) as Versioned | undefined;
  if (!existing) {
    (element as Versioned)[VERSION_KEY] = VERSION;
    customElements.define(tag, element);
    return;
  }
  const version = existing[VERSION_KEY];
  if (version !== VERSION) {
    console.error(
      `[agent-chat] <${tag}> is already defined by ${version ? `version ${version}` : 'another script'}; version ${VERSION} was not registered. Load agent-chat once per page.`,
    );
  }
}
