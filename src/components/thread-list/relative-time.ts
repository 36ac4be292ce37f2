const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 31_536_000_000],
  ['month', 2_592_000_000],
  ['week', 604_800_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "5 minutes ago", "yesterday", in the page's language. */
export function relativeTime(iso: string, now = Date.now(), locale = globalThis.document?.documentElement.lang || undefined): string {
  const then = Date.parse(iso.replace(/(\.\d{3})\d+Z$/, '$1Z'));
  if (Number.isNaN(then)) return '';
  const diff = then - now;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms) return format.format(Math.round(diff / ms), unit);
  }
  return format.format(0, 'minute');
}
