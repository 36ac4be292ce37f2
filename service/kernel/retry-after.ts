/** An HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`, or the obsolete forms): a day's name, a time and GMT. */
const HTTP_DATE = /^[A-Za-z]{3,9}, .*\d\d:\d\d:\d\d GMT$/;

/**
 * The seconds or date of `Retry-After`, or OpenAI's `retry-after-ms`; null when absent or
 * unreadable. Only what RFC 9110 allows is read: `-5` once parsed as a date in year -5 and was
 * retried at once. A model server's answer and a crawled site's both say it.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = HTTP_DATE.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
