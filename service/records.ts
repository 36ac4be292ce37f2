/** Frames one chat stream record (wire contract §4). */
const SEPARATOR = '\u241E';

/**
 * JSON.stringify leaves U+241E as is inside strings; escaping it keeps the raw separator
 * meaning only "end of record" (docs/decisions.md #1).
 */
export function encodeRecord(type: string, content: object, streamEnd = false): string {
  return JSON.stringify({ chunk: { type, content, stream_end: streamEnd } }).replaceAll(SEPARATOR, '\\u241e') + SEPARATOR;
}
