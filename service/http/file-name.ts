/**
 * A visitor's file name made safe to keep, show and send back: no path, no control or
 * direction-changing characters, a bounded length; and the `Content-Disposition` header that
 * serves it only as a download (RFC 6266), the name in UTF-8 through `filename*` (RFC 5987)
 * beside an ASCII stand-in for old clients.
 */
import { MAX_FILE_NAME_CHARS } from '../../contract/limits.js';

/** The name a file is kept and shown under ('file' when nothing usable is left). */
export function safeFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  const clean = base
    .normalize('NFC')
    // Controls (C0, C1), and format characters: bidi overrides and isolates, zero-width ones.
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  if (!clean) return 'file';
  if (clean.length <= MAX_FILE_NAME_CHARS) return clean;
  // Cut the stem (between characters as a reader sees them), keeping a short extension.
  const dot = clean.lastIndexOf('.');
  const extension = dot > 0 && clean.length - dot <= 12 ? clean.slice(dot) : '';
  let stem = '';
  for (const { segment } of new Intl.Segmenter().segment(clean)) {
    if (stem.length + segment.length + extension.length + 1 > MAX_FILE_NAME_CHARS) break;
    stem += segment;
  }
  return `${stem}…${extension}`;
}

/** RFC 5987's attr-char set: what `encodeURIComponent` leaves but `'`, `(`, `)` and `*`. */
const ext = (value: string) =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `attachment` with the name twice: an ASCII stand-in, and the UTF-8 name as `filename*`. */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${ext(name)}`;
}
