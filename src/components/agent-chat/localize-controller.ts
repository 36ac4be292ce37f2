import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ContextProvider } from '@lit/context';
import { englishLocale, localeContext } from '../../context/index.js';
import {
  directionOf,
  en,
  loadLocale,
  localeTag,
  matchLocale,
  translator,
  type Translate,
  type UiStrings,
} from '../../i18n/index.js';
import { launcherName, nearestLang } from '../../i18n/launcher-name.js';

type LocalizedHost = ReactiveControllerHost & HTMLElement;

/** Every connected widget, told when any `lang` on the page changes: one observer however many widgets. */
const connected = new Set<LocalizeController>();
let observer: MutationObserver | undefined;

function watch(controller: LocalizeController): void {
  connected.add(controller);
  if (observer) return;
  observer = new MutationObserver(() => connected.forEach((each) => each.langChanged()));
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
}

function unwatch(controller: LocalizeController): void {
  connected.delete(controller);
  if (connected.size === 0) {
    observer?.disconnect();
    observer = undefined;
  }
}

/**
 * The widget's language: its own `lang`, else the nearest on the page, else English. Loads the
 * locale's texts on demand and re-renders the host when they arrive; until then the previous
 * language stays (English at first), so nothing shows a key or a blank. `strings` (the site's
 * overrides) win over the locale. The children read the words through `localeContext`, which
 * this controller provides.
 */
export class LocalizeController implements ReactiveController {
  /** The bundled locale in use, e.g. `de`; what Intl formats with. */
  locale = 'en';
  dir: 'ltr' | 'rtl' = 'ltr';
  /**
   * The page's own tag for the language (`de-AT`, `fi`), canonical, or undefined without a valid
   * `lang`: what the agent is asked to write in, even where the widget has no texts of its own.
   */
  tag: string | undefined;
  t: Translate = translator(en);

  readonly #provider: ContextProvider<typeof localeContext>;
  #requested = '';
  #strings: UiStrings = en;
  #overrides?: Partial<Record<string, string>>;

  readonly #host: LocalizedHost;
  readonly #getOverrides: () => Partial<Record<string, string>> | undefined;

  constructor(host: LocalizedHost, getOverrides: () => Partial<Record<string, string>> | undefined) {
    this.#host = host;
    this.#getOverrides = getOverrides;
    host.addController(this);
    this.#provider = new ContextProvider(host, { context: localeContext, initialValue: englishLocale });
  }

  hostConnected(): void {
    watch(this);
    this.resolve();
  }

  hostDisconnected(): void {
    unwatch(this);
  }

  /** Also catches a `lang` the observer cannot see (set on the host inside another shadow root). */
  hostUpdate(): void {
    this.resolve();
    const overrides = this.#getOverrides();
    if (overrides !== this.#overrides) {
      this.#overrides = overrides;
      this.t = translator(this.#strings, overrides ?? {});
    }
    // Before the host renders, so its children render in the new words too.
    if (this.#provider.value.t !== this.t) this.#provider.setValue({ t: this.t, locale: this.locale });
  }

  /** A `lang` on the page changed: follow it, and show at once what is known of the new language. */
  langChanged(): void {
    const before = this.t;
    this.resolve();
    if (this.t !== before) this.#host.requestUpdate();
  }

  /** Follows a changed `lang`; a load that a later change overtook is dropped. */
  resolve(): void {
    const lang = nearestLang(this.#host);
    this.tag = localeTag(lang);
    const locale = matchLocale(lang);
    if (locale === this.#requested) return;
    this.#requested = locale;
    // Until its texts arrive, the launcher (on screen from the first paint) is named in it already.
    this.#strings = { ...this.#strings, openChat: launcherName(locale) };
    this.t = translator(this.#strings, this.#overrides ?? {});
    void loadLocale(locale).then((strings) => {
      if (this.#requested !== locale) return;
      this.locale = strings === en ? 'en' : locale;
      this.dir = directionOf(this.locale);
      this.#strings = strings;
      this.t = translator(strings, this.#overrides ?? {});
      this.#host.requestUpdate();
    });
  }
}
