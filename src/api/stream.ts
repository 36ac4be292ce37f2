import type { Source, StreamEvent } from './types.js';

/** Record separator of the chat stream: U+241E SYMBOL FOR RECORD SEPARATOR. */
export const RECORD_SEPARATOR = '\u241E';

/**
 * Splits decoded text into complete records, keeping the unfinished tail for the next chunk.
 * Works on text, not bytes, so the decoder (in streaming mode) has already joined any
 * multi-byte character that a network chunk split.
 */
export class RecordSplitter {
  private buffer = '';

  push(text: string): string[] {
    this.buffer += text;
    const parts = this.buffer.split(RECORD_SEPARATOR);
    this.buffer = parts.pop() ?? '';
    return parts;
  }

  /** Whatever is left when the stream ends: a record that never got its separator. */
  get remainder(): string {
    return this.buffer;
  }
}

type Parsed = { event?: StreamEvent; end: boolean } | { invalid: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function toSources(value: unknown): Source[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).flatMap((item) =>
    typeof item.source_url === 'string'
      ? [{ title: str(item.title) ?? item.source_url, subtitle: str(item.subtitle), source_url: item.source_url, source_type: str(item.source_type) ?? 'unknown' }]
      : [],
  );
}

/** Parses one record (wire contract §4). Unknown types parse to no event. */
export function parseRecord(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: 'a stream record was not valid JSON' };
  }
  const chunk = isRecord(value) ? value.chunk : undefined;
  if (!isRecord(chunk) || typeof chunk.type !== 'string') return { invalid: 'a stream record had no chunk.type' };
  const content = isRecord(chunk.content) ? chunk.content : {};
  const end = chunk.stream_end === true;
  switch (chunk.type) {
    case 'stream_start':
      return { event: { type: 'start', threadId: str(content.thread_id) ?? '' }, end };
    case 'relevant_sources':
      return { event: { type: 'sources', sources: toSources(content.relevant_sources) }, end };
    case 'partial_answer':
      return { event: { type: 'delta', text: str(content.text) ?? '' }, end };
    case 'identifiers':
      return { event: { type: 'end', threadId: str(content.thread_id), questionAnswerId: str(content.question_answer_id) }, end };
    case 'error':
      return { event: { type: 'error', reason: str(content.reason) ?? 'The agent could not answer.' }, end };
    default:
      return { end };
  }
}

/**
 * Reads a chat response body into typed events. A broken stream does not throw: it yields a
 * final `interrupted` event so the caller keeps the text it has. Aborting throws AbortError.
 */
export async function* readChatStream(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const splitter = new RecordSplitter();
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  let ended = false;
  try {
    while (!ended) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        signal?.throwIfAborted();
        yield { type: 'interrupted', reason: `the connection broke (${String(error)})` };
        return;
      }
      signal?.throwIfAborted();
      const text = result.done ? decoder.decode() : decoder.decode(result.value, { stream: true });
      const records = splitter.push(text);
      if (result.done && splitter.remainder.trim()) records.push(splitter.remainder);
      for (const record of records) {
        if (!record.trim()) continue;
        const parsed = parseRecord(record);
        if ('invalid' in parsed) {
          yield { type: 'interrupted', reason: parsed.invalid };
          return;
        }
        if (parsed.event) yield parsed.event;
        if (parsed.end) {
          // Consumers rely on exactly one terminal event, whatever type carried stream_end.
          const terminal = parsed.event?.type === 'end' || parsed.event?.type === 'error';
          if (!terminal) yield { type: 'end', threadId: null, questionAnswerId: null };
          ended = true;
          break;
        }
      }
      if (result.done && !ended) {
        yield { type: 'interrupted', reason: 'the stream ended before the answer was complete' };
        return;
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Stops the download if the consumer leaves early (or the stream ended with extra bytes).
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
