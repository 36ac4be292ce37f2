import { MAX_LOCALE_CHARS } from '../../contract/limits.js';
import { en, type UiStringKey, type UiStrings } from './en.js';
import { loaders } from './locale-loaders.js';

export { en };
export type { UiStringKey, UiStrings };

export const SUPPORTED_LOCALES: readonly string[] = ['en', ...Object.keys(loaders)].sort();
const RIGHT_TO_LEFT = new Set(['ar', 'he']);

/**
 * The bundled locale for a BCP 47 tag: its language subtag (`de-AT` → `de`, `pt-BR` → `pt`,
 * `zh-Hant-TW` → `zh`), else English. `iw`, the withdrawn code for Hebrew, still means Hebrew.
 */
export function matchLocale(tag: string | null | undefined): string {
  const language = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  const canonical = language === 'iw' ? 'he' : language;
  return canonical in loaders ? canonical : 'en';
}

/** `tag` as a canonical BCP 47 tag the service accepts (§4: at most 35 characters), else undefined. */
export function localeTag(tag: string | null | undefined): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales((tag ?? '').trim().replaceAll('_', '-') || []);
    return canonical && canonical.length <= MAX_LOCALE_CHARS ? canonical : undefined;
  } catch {
    return undefined;
  }
}

export function directionOf(locale: string): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(matchLocale(locale)) ? 'rtl' : 'ltr';
}

const loaded = new Map<string, Promise<UiStrings>>([['en', Promise.resolve(en)]]);

/**
 * The texts of a bundled locale; English when the tag matches none or its module fails to load
 * (a flaky network must not leave the widget without words). Each locale loads once per page.
 */
export function loadLocale(tag: string | null | undefined): Promise<UiStrings> {
  const locale = matchLocale(tag);
  let strings = loaded.get(locale);
  if (!strings) {
    strings = loaders[locale]!().then(
      (module) => module.default,
      () => {
        loaded.delete(locale);
        return en;
      },
    );
    loaded.set(locale, strings);
  }
  return strings;
}

/** Fills `{name}` placeholders; an unknown name stays as written, so a bad override shows, not throws. */
export function format(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * One function to ask for a text: the site's overrides (the `strings` property) win over the
 * locale, and the locale over English, key by key, so a partial override or locale still reads whole.
 */
export type Translate = (key: UiStringKey, values?: Record<string, string | number>) => string;

export function translator(strings: UiStrings, overrides: Partial<Record<string, string>> = {}): Translate {
  return (key, values) => {
    const override = overrides[key];
    return format(typeof override === 'string' ? override : (strings[key] ?? en[key]), values);
  };
}

/**
 * The group a conversation list files a date under: Today, Yesterday, Previous 7 days (calendar
 * days in the visitor's time zone), then its month ("March", or "March 2025" in another year).
 */
export function dateGroup(iso: string, locale: string, t: Translate, now = Date.now()): string {
  const then = new Date(iso.replace(/(\.\d{3})\d+Z$/, '$1Z'));
  if (Number.isNaN(then.getTime())) return '';
  const day = new Date(now);
  day.setHours(0, 0, 0, 0);
  if (then >= day) return t('today');
  day.setDate(day.getDate() - 1);
  if (then >= day) return t('yesterday');
  day.setDate(day.getDate() - 6);
  if (then >= day) return t('previous7Days');
  const year = then.getFullYear() === new Date(now).getFullYear() ? undefined : 'numeric';
  return new Intl.DateTimeFormat(locale, { month: 'long', year }).format(then);
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 31_536_000_000],
  ['month', 2_592_000_000],
  ['week', 604_800_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/**
 * "Just now", "5 minutes ago", "Yesterday" in the widget's language. Capitalised because it
 * stands alone on a line; Intl gives the lower-case form used inside a sentence.
 */
export function relativeTime(iso: string, locale: string, t: Translate, now = Date.now()): string {
  // Up to six fraction digits come from the service; Date.parse reliably takes three.
  const then = Date.parse(iso.replace(/(\.\d{3})\d+Z$/, '$1Z'));
  if (Number.isNaN(then)) return '';
  const diff = then - now;
  if (Math.abs(diff) < 60_000) return t('justNow');
  const formatter = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms) {
      const text = formatter.format(Math.round(diff / ms), unit);
      return text.charAt(0).toLocaleUpperCase(locale) + text.slice(1);
    }
  }
  return t('justNow');
}
