import type { UiStrings } from './en.js';

/**
 * The classic-script build's locales: ES modules next to the script
 * (`agent-chat.locale.de.js`, built with the ES files), imported by URL when first needed, so
 * the script itself carries English only.
 */
const here = (document.currentScript as HTMLScriptElement | null)?.src ?? location.href;
const load = (locale: string) => () =>
  import(/* @vite-ignore */ new URL(`agent-chat.locale.${locale}.js`, here).href) as Promise<{
    default: UiStrings;
  }>;

export const loaders: Record<string, () => Promise<{ default: UiStrings }>> = Object.fromEntries(
  ['ar', 'de', 'es', 'fr', 'he', 'it', 'ja', 'ko', 'nl', 'pl', 'pt', 'sv', 'tr', 'zh'].map((locale) => [
    locale,
    load(locale),
  ]),
);
