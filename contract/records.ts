/** The chat stream's framing (docs/protocol.md §4): JSON records, each ended by U+241E. */

/** Record separator of the chat stream: U+241E SYMBOL FOR RECORD SEPARATOR. */
export const RECORD_SEPARATOR = '\u241E';

export type RecordType =
  | 'stream_start'
  | 'relevant_sources'
  | 'partial_answer'
  | 'identifiers'
  | 'error'
  | 'agent_activity_update'
  | 'metadata'
  | 'tool_calls'
  /** Says nothing: a stream that was silent a while sends it so proxies keep it open (decision 586). */
  | 'keepalive';

/**
 * Frames one record. JSON.stringify leaves U+241E as is inside strings; escaping it keeps the
 * raw separator meaning only "end of record" (docs/decisions.md #1). Any type may be framed:
 * clients ignore types they do not know, and tests send such records on purpose.
 */
export function encodeRecord(type: RecordType | (string & {}), content: object, streamEnd = false): string {
  return (
    JSON.stringify({ chunk: { type, content, stream_end: streamEnd } }).replaceAll(
      RECORD_SEPARATOR,
      '\\u241e',
    ) + RECORD_SEPARATOR
  );
}
