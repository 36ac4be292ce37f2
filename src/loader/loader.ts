import { STREAM_IDLE_TIMEOUT_MS } from '../api/idle-timeout.js';
import { launcherName, nearestLang } from '../i18n/launcher-name.js';
import { showOverPage } from '../internal/top-layer.js';
import { runPreloadQueue } from './queue.js';
import { METHODS, PARTS, PROPERTIES } from './surface.js';

/**
 * The small first script. It registers <agent-chat> at once, draws the launcher (or the inline
 * panel's frame), keeps every attribute, property and method call, and fetches the element
 * itself on the first interaction or when the page is idle. The element stays a black box: an
 * <agent-chat-app> in this element's shadow root, fed what the page set, its events bubbling
 * out (they are composed), its parts exported. No Lit here.
 */

type Impl = HTMLElement & Record<string, unknown> & { updateComplete: Promise<unknown> };
type ImplModule = { tokenSheet?: CSSStyleSheet };
type Call = {
  method: string;
  args: unknown[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

const ICON = 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z';
// Literal fallbacks keep the loader free of the token table (bytes on every page);
// test/unit/styles/token-table.test.ts checks they equal its defaults.
const STAND_IN_CSS = `
:host { display: contents; }
:host([hidden]) { display: none; }
:host([mode='inline']) { display: block; }
agent-chat-app { display: block; }
.launcher { position: fixed; inset: auto; margin: 0; right: 20px; bottom: 20px; z-index: var(--agent-chat-z-index, 2147483000); width: 56px; height: 56px;
  border: 0; border-radius: 50%; display: grid; place-items: center; cursor: pointer;
  background: var(--agent-chat-color-accent, #1d4ed8); color: var(--agent-chat-color-on-accent, #fff);
  box-shadow: var(--agent-chat-shadow, 0 12px 40px rgb(0 0 0 / 0.18)); }
.launcher svg { width: 26px; height: 26px; }
@media (forced-colors: active) { .launcher { border: 2px solid; } }
.panel { box-sizing: border-box; height: var(--agent-chat-panel-height, 640px); border: 1px solid var(--agent-chat-color-border, #d0d7de);
  border-radius: var(--agent-chat-radius, 12px); background: var(--agent-chat-color-surface, #fff); }
`;

let sheet: CSSStyleSheet | undefined;
function standInSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STAND_IN_CSS);
  }
  return sheet;
}

/** The element's own token defaults move to this host, and the element inherits them from here. */
function inheritSheet(tokens: CSSStyleSheet): CSSStyleSheet {
  const names = new Set<string>();
  for (const rule of Array.from(tokens.cssRules))
    for (const [name] of rule.cssText.matchAll(/--agent-chat-[\w-]+/g)) names.add(name);
  const inherit = new CSSStyleSheet();
  inherit.replaceSync(`agent-chat-app { ${[...names].map((name) => `${name}: inherit;`).join(' ')} }`);
  return inherit;
}

/** Attributes both ways: the page's changes go in, the element's reflections (open, theme) come out. */
function copyAttributes(from: Element, to: Element, names: Iterable<string>): void {
  for (const name of names) {
    if (name === 'class' || name === 'style' || name === 'exportparts') continue;
    const value = from.getAttribute(name);
    if (value === to.getAttribute(name)) continue;
    if (value === null) to.removeAttribute(name);
    else to.setAttribute(name, value);
  }
}

const Base = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

/**
 * A property read before the element has loaded and before anything set it: what the element
 * will say, its attribute or its default, so `el.projectId` is a string from the first moment
 * (a framework reads it right after mounting).
 */
function initialValue(el: Element, name: (typeof PROPERTIES)[number]): unknown {
  if (name === 'tools') return [];
  if (name === 'getSessionToken' || name === 'sessionRequestHeaders' || name === 'strings') return undefined;
  const attribute = name === 'opened' ? 'open' : name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  if (name === 'opened' || name === 'consentRequired') return el.hasAttribute(attribute);
  const value = el.getAttribute(attribute);
  if (name === 'streamIdleTimeout') return value === null ? STREAM_IDLE_TIMEOUT_MS : Number(value);
  return value ?? (name === 'mode' ? 'launcher' : name === 'theme' ? 'light' : '');
}

/** Fetches the element, once for every <agent-chat> (set by defineLoader). */
let load: () => Promise<ImplModule>;

/**
 * Registers <agent-chat> (once) as the loader, which fetches the element with `importImpl`. A
 * failed fetch (a dropped connection, a blocked script) is not kept: the next use tries again,
 * so a blip while the page idles does not leave a launcher that never opens. Each try follows a
 * visitor's action or a method call, never a timer; the page's console says what failed once.
 */
export function defineLoader(importImpl: () => Promise<ImplModule>): void {
  if (typeof customElements === 'undefined' || customElements.get('agent-chat')) return;
  let loading: Promise<ImplModule> | undefined;
  let told = false;
  load = () =>
    (loading ??= importImpl().then(
      async (module) => {
        await customElements.whenDefined('agent-chat-app');
        return module;
      },
      (error: unknown) => {
        loading = undefined;
        if (!told)
          console.error(
            "[agent-chat] The element did not load; opening the chat tries again. Check the network, the script's URL and the page's CSP (script-src; trusted-types lit-html).",
            error,
          );
        told = true;
        throw error;
      },
    ));
  customElements.define('agent-chat', AgentChatLoader);
  runPreloadQueue();
}

class AgentChatLoader extends Base {
  #impl?: Impl;
  #values = new Map<string, unknown>();
  #calls: Call[] = [];

  constructor() {
    super();
    // Properties a framework set before this class was defined are own properties now.
    for (const name of PROPERTIES) {
      if (Object.prototype.hasOwnProperty.call(this, name)) {
        const value = (this as unknown as Record<string, unknown>)[name];
        delete (this as unknown as Record<string, unknown>)[name];
        this.#values.set(name, value);
      }
    }
  }

  // Moving the element (disconnect, connect) keeps the element inside and its state; the
  // attribute observers live as long as the two elements do.
  connectedCallback(): void {
    if (this.#impl) return;
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    if (!root.firstChild) this.#drawStandIn(root);
    // Moved before the element came: leaving the page took the stand-in out of the top layer.
    else showOverPage(root.firstChild);
    const start = () => void this.#start().catch(() => {});
    if (this.getAttribute('mode') === 'inline') queueMicrotask(start);
    else if ('requestIdleCallback' in window) requestIdleCallback(start, { timeout: 5_000 });
    else setTimeout(start, 1_000);
  }

  get updateComplete(): Promise<unknown> {
    return this.#start().then(() => this.#impl?.updateComplete);
  }

  #drawStandIn(root: ShadowRoot): void {
    root.adoptedStyleSheets = [standInSheet()];
    if (this.getAttribute('mode') === 'inline') {
      const panel = document.createElement('div');
      panel.className = 'panel';
      panel.setAttribute('part', 'panel');
      panel.setAttribute('aria-busy', 'true');
      root.replaceChildren(panel);
      return;
    }
    // One launcher per page (decision 459): a snippet pasted twice draws the first one's only;
    // once loaded, the element decides as it does without the loader. (One in another element's
    // shadow root is not in the document's query: it draws, unless the document has one.)
    const first = document.querySelector('agent-chat:not([mode=inline])');
    if (first && first !== this) return;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'launcher';
    button.setAttribute('part', 'launcher');
    button.setAttribute('aria-label', launcherName(nearestLang(this)));
    button.setAttribute('aria-expanded', 'false');
    // Over the viewport whatever the page's blocks do, as the element's own (decision 561).
    button.setAttribute('popover', 'manual');
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    svg.setAttribute('fill', 'currentColor');
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', ICON);
    svg.append(path);
    button.append(svg);
    // A failed load was told once on the page's console; the next click tries again.
    button.addEventListener('click', () => void this.#invoke('open', []).catch(() => {}));
    // Fetch early on intent, so the click finds the element ready.
    for (const type of ['pointerenter', 'focus', 'touchstart'])
      button.addEventListener(type, () => void load().catch(() => {}), { once: true, passive: true });
    root.replaceChildren(button);
    showOverPage(button);
  }

  async #start(): Promise<void> {
    const module = await load();
    if (this.#impl || !this.isConnected) return;
    const impl = document.createElement('agent-chat-app') as Impl;
    impl.setAttribute('exportparts', PARTS.join(', '));
    // The id goes in too: it names the widget's device scope (two widgets of one integration
    // remember apart by id), and an id inside this shadow root cannot clash with the page's.
    for (const { name, value } of Array.from(this.attributes))
      if (name !== 'class' && name !== 'style') impl.setAttribute(name, value);
    for (const [name, value] of this.#values) impl[name] = value;
    this.#values.clear();
    this.#impl = impl;
    for (const [from, to] of [
      [this, impl],
      [impl, this],
    ])
      new MutationObserver((records) =>
        copyAttributes(
          from,
          to,
          records.map((r) => r.attributeName!),
        ),
      ).observe(from, { attributes: true });
    const root = this.shadowRoot!;
    root.adoptedStyleSheets = module.tokenSheet
      ? [module.tokenSheet, inheritSheet(module.tokenSheet), standInSheet()]
      : [standInSheet()];
    root.replaceChildren(impl);
    await impl.updateComplete;
    copyAttributes(
      impl,
      this,
      Array.from(impl.attributes, (a) => a.name),
    );
    for (const call of this.#calls.splice(0)) {
      try {
        call.resolve(await (impl[call.method] as (...args: unknown[]) => unknown)(...call.args));
      } catch (error) {
        call.reject(error);
      }
    }
  }

  #invoke(method: string, args: unknown[]): Promise<unknown> {
    const impl = this.#impl;
    if (impl) return Promise.resolve((impl[method] as (...a: unknown[]) => unknown)(...args));
    return new Promise((resolve, reject) => {
      this.#calls.push({ method, args, resolve, reject });
      // A failed load settles the calls waiting for it: a page's `await el.open()` learns why.
      this.#start().catch((error: unknown) => {
        for (const call of this.#calls.splice(0)) call.reject(error);
      });
    });
  }

  static {
    for (const name of PROPERTIES) {
      Object.defineProperty(this.prototype, name, {
        configurable: true,
        enumerable: true,
        get(this: AgentChatLoader) {
          if (this.#impl) return this.#impl[name];
          return this.#values.has(name) ? this.#values.get(name) : initialValue(this, name);
        },
        set(this: AgentChatLoader, value: unknown) {
          if (this.#impl) this.#impl[name] = value;
          else this.#values.set(name, value);
        },
      });
    }
    for (const name of METHODS) {
      Object.defineProperty(this.prototype, name, {
        configurable: true,
        writable: true,
        value(this: AgentChatLoader, ...args: unknown[]) {
          return this.#invoke(name, args);
        },
      });
    }
  }
}
