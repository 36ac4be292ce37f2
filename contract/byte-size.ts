// How a file's size is said to a visitor, by the widget (its file chips and refusals) and by
// the service (an agent acknowledging a file, §11): one rule, so both read alike in every language.

/** A file's size in the visitor's language: "512 B", "340 kB", "2.5 MB" (decimal units, as the limits are set). */
export function formatBytes(bytes: number, locale: string): string {
  // English says "849 B" (Intl's short form is "849 byte"); other languages take Intl's word, so a
  // right-to-left line reads "849 بايت" and never a Latin "B" that the bidi order puts first.
  if (bytes < 1000 && /^en\b/i.test(locale)) return `${new Intl.NumberFormat(locale).format(bytes)} B`;
  const [value, unit] =
    bytes < 1000
      ? [bytes, 'byte']
      : bytes < 1_000_000
        ? [bytes / 1000, 'kilobyte']
        : [bytes / 1_000_000, 'megabyte'];
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit,
    unitDisplay: 'short',
    maximumFractionDigits: value < 10 ? 1 : 0,
  }).format(value);
}
