/** How the console writes times and numbers: the reader's locale, UTC days for activity. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const number = new Intl.NumberFormat();
const compactNumber = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

export const when = (iso: string | null, never = 'Never') => (iso ? dateTime.format(new Date(iso)) : never);
export const count = (value: number) => number.format(value);
/** `12K` for an axis tick, where the full figure would not fit. */
export const compact = (value: number) => compactNumber.format(value);

/** A past time as "3 min ago" / "2 days ago" (the absolute time belongs in a title). */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return 'Never';
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ] as const) {
    if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  }
  return rtf.format(seconds, 'second');
}

/** `YYYY-MM-DD` of a UTC day `offset` days from today. */
export const utcDay = (offset = 0, now = Date.now()) =>
  new Date(now + offset * 86_400_000).toISOString().slice(0, 10);
