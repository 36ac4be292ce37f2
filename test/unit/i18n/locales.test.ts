import { describe, expect, it } from 'vitest';
import {
  SUPPORTED_LOCALES,
  dateGroup,
  directionOf,
  en,
  format,
  loadLocale,
  localeTag,
  matchLocale,
  relativeTime,
  translator,
  type UiStringKey,
} from '../../../src/i18n/index.js';
import { LAUNCHER_NAMES, launcherName } from '../../../src/i18n/launcher-name.js';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
const keys = Object.keys(en).sort();
const others = SUPPORTED_LOCALES.filter((locale) => locale !== 'en');

describe('bundled locales', () => {
  it("the launcher's first-paint names are the locales' own openChat, one per bundled language", async () => {
    expect(Object.keys(LAUNCHER_NAMES).sort()).toEqual([...SUPPORTED_LOCALES].sort());
    for (const locale of SUPPORTED_LOCALES)
      expect(LAUNCHER_NAMES[locale], locale).toBe((await loadLocale(locale)).openChat);
    expect(launcherName('de-AT')).toBe('Chat öffnen');
    expect(launcherName('iw')).toBe(LAUNCHER_NAMES.he);
    expect(launcherName('fi')).toBe('Open chat');
  });

  it('ships at least 12 languages besides English, one of them right-to-left', () => {
    expect(others.length).toBeGreaterThanOrEqual(12);
    expect(others.some((locale) => directionOf(locale) === 'rtl')).toBe(true);
  });

  it.each(others)(
    '%s has every key, no extra ones, each translated with the same placeholders',
    async (locale) => {
      const strings = await loadLocale(locale);
      expect(strings).not.toBe(en);
      expect(Object.keys(strings).sort()).toEqual(keys);
      for (const key of keys as UiStringKey[]) {
        expect(strings[key].trim(), `${locale}.${key}`).not.toBe('');
        expect(placeholders(strings[key]), `${locale}.${key}`).toEqual(placeholders(en[key]));
      }
    },
  );

  it.each(others)('%s is really translated, not English with a few words changed', async (locale) => {
    const strings = await loadLocale(locale);
    const same = (keys as UiStringKey[]).filter((key) => strings[key] === en[key]);
    // Words like "Chat", "Code" or "Assistant" are the same in several languages; sentences are not.
    expect(same.length, `${locale}: ${same.join(', ')}`).toBeLessThanOrEqual(8);
  });
});

describe('matchLocale', () => {
  it.each([
    ['de', 'de'],
    ['de-AT', 'de'],
    ['pt-BR', 'pt'],
    ['zh-Hant-TW', 'zh'],
    ['AR', 'ar'],
    ['he-IL', 'he'],
    ['iw', 'he'],
    ['en-GB', 'en'],
    ['xx', 'en'],
    ['', 'en'],
    [null, 'en'],
    [' fr_CA ', 'fr'],
  ])('%s → %s', (tag, locale) => {
    expect(matchLocale(tag)).toBe(locale);
  });

  it('lays out Arabic and Hebrew right to left, everything else left to right', () => {
    expect(directionOf('ar-EG')).toBe('rtl');
    expect(directionOf('he')).toBe('rtl');
    expect(directionOf('de')).toBe('ltr');
    expect(directionOf('xx')).toBe('ltr');
  });

  it('loads each locale once', async () => {
    expect(loadLocale('de-CH')).toBe(loadLocale('de'));
    expect(await loadLocale('xx')).toBe(en);
  });
});

describe('translator', () => {
  it('fills placeholders and keeps unknown ones visible', () => {
    expect(format('Delete {title}', { title: 'Refunds' })).toBe('Delete Refunds');
    expect(format('Try in {seconds} s ({oops})', { seconds: 5 })).toBe('Try in 5 s ({oops})');
  });

  it('prefers the site’s overrides, then the locale, then English, key by key', async () => {
    const de = await loadLocale('de');
    const t = translator(de, { send: 'Abschicken', deleteThread: 'Weg mit {title}' });
    expect(t('send')).toBe('Abschicken');
    expect(t('deleteThread', { title: 'Rückgabe' })).toBe('Weg mit Rückgabe');
    expect(t('stop')).toBe('Stoppen');
    const partial = translator({ ...de, retry: undefined as unknown as string });
    expect(partial('retry')).toBe('Retry');
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2026-11-21T12:00:00.000Z');
  const t = translator(en);

  it('says "Just now" under a minute, and reads the service’s six fraction digits', () => {
    expect(relativeTime('2026-11-21T11:59:30.123456Z', 'en', t, now)).toBe('Just now');
    expect(relativeTime('2026-11-21T12:00:10Z', 'en', t, now)).toBe('Just now');
  });

  it('uses Intl for the rest, capitalised to stand alone', async () => {
    expect(relativeTime('2026-11-21T11:55:00Z', 'en', t, now)).toBe('5 minutes ago');
    expect(relativeTime('2026-11-20T12:00:00Z', 'en', t, now)).toBe('Yesterday');
    const de = translator(await loadLocale('de'));
    expect(relativeTime('2026-11-20T12:00:00Z', 'de', de, now)).toBe('Gestern');
    expect(relativeTime('2026-11-21T11:59:59Z', 'de', de, now)).toBe('Gerade eben');
  });

  it('gives nothing for a date it cannot read', () => {
    expect(relativeTime('not a date', 'en', t, now)).toBe('');
  });
});

describe('localeTag', () => {
  it.each([
    ['de-AT', 'de-AT'],
    ['en_gb', 'en-GB'],
    [' zh-hant-tw ', 'zh-Hant-TW'],
    ['fi', 'fi'],
    ['iw', 'he'],
    ['', undefined],
    [null, undefined],
    ['not a language!', undefined],
    ['x'.repeat(40), undefined],
  ])('%s → %s', (tag, expected) => {
    expect(localeTag(tag)).toBe(expected);
  });

  it('never gives more than the wire allows (§4: 35 characters)', () => {
    const long = 'de-DE-u-co-phonebk-ca-gregory-nu-latn-tz-deber';
    expect(localeTag(long)).toBeUndefined();
  });
});

describe('dateGroup', () => {
  // Local calendar days: a conversation list groups by the visitor's own days.
  const now = new Date(2026, 10, 21, 9, 30).getTime();
  const t = translator(en);
  const local = (...args: [number, number, number, number?]) =>
    new Date(args[0], args[1], args[2], args[3] ?? 12).toISOString();

  it('files dates under Today, Yesterday, Previous 7 days, then months, with the year only for another year', () => {
    expect(dateGroup(local(2026, 10, 21, 0), 'en', t, now)).toBe('Today');
    expect(dateGroup(local(2026, 10, 20, 23), 'en', t, now)).toBe('Yesterday');
    expect(dateGroup(local(2026, 10, 14, 1), 'en', t, now)).toBe('Previous 7 days');
    expect(dateGroup(local(2026, 10, 13, 23), 'en', t, now)).toBe('November');
    expect(dateGroup(local(2026, 2, 3), 'en', t, now)).toBe('March');
    expect(dateGroup(local(2025, 11, 31), 'en', t, now)).toBe('December 2025');
    expect(dateGroup('not a date', 'en', t, now)).toBe('');
  });

  it("speaks the widget's language", async () => {
    const de = translator(await loadLocale('de'));
    expect(dateGroup(local(2026, 10, 20), 'de', de, now)).toBe('Gestern');
    expect(dateGroup(local(2026, 2, 3), 'de', de, now)).toBe('März');
  });
});

describe("the reference's strings table", () => {
  it('lists every key of en.ts with its English text, and no key it does not have', async () => {
    const { readFileSync } = await import('node:fs');
    const reference = readFileSync('docs/reference.md', 'utf8');
    const table = reference.slice(reference.indexOf('| Key | English |'), reference.indexOf('### Theming'));
    const rows = new Map(
      [...table.matchAll(/^\| `(\w+)` \| (.*) \|$/gm)].map(([, key, text]) => [key, text] as const),
    );
    expect([...rows.keys()].sort()).toEqual(keys);
    for (const key of keys) expect(rows.get(key), key).toBe(en[key as UiStringKey]);
  });
});
