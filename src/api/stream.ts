import { RECORD_SEPARATOR } from '../../contract/records.js';
import type { StreamEvent } from './types.js';
import { STREAM_IDLE_TIMEOUT_MS } from './idle-timeout.js';
import { isObject, toActivity, toSources, toToolCalls } from './validate.js';

export { RECORD_SEPARATOR, STREAM_IDLE_TIMEOUT_MS };

/** Longest record accepted, in characters: far above any real record (a resumed answer's whole text). */
export const MAX_RECORD_LENGTH = 4 * 1024 * 1024;

/**
 * Splits decoded text into complete records, keeping the unfinished tail for the next chunk.
 * Works on text, not bytes, so the decoder (in streaming mode) has already joined any
 * multi-byte character that a network chunk split. Each chunk is scanned once and the tail is
 * kept as pieces, so a record that arrives in many chunks costs linear time, never quadratic.
 */
export class RecordSplitter {
  #pieces: string[] = [];
  #length = 0;

  constructor(private readonly maxLength = MAX_RECORD_LENGTH) {}

  /** Complete records in `text`; throws RangeError when an unfinished record outgrows the limit. */
  push(text: string): string[] {
    const parts = text.split(RECORD_SEPARATOR);
    const tail = parts.pop() ?? '';
    const records: string[] = [];
    if (parts.length) {
      records.push(this.#take(parts[0]), ...parts.slice(1));
      if (records.some((r) => r.length > this.maxLength))
        throw new RangeError('a stream record exceeded the size limit');
    }
    this.#pieces.push(tail);
    this.#length += tail.length;
    if (this.#length > this.maxLength) throw new RangeError('a stream record exceeded the size limit');
    return records;
  }

  /** Whatever is left when the stream ends (a record that never got its separator); empties the splitter. */
  get remainder(): string {
    return this.#take('');
  }

  #take(last: string): string {
    const record = this.#pieces.join('') + last;
    this.#pieces = [];
    this.#length = 0;
    return record;
  }
}

type Parsed = { event?: StreamEvent; end: boolean } | { invalid: string };

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * Parses one record (wire contract §4). Unknown types parse to no event; so do malformed
 * optional records (activity, metadata), which only decorate an answer. A malformed record the
 * answer depends on (start, text) is invalid: the answer ends as interrupted.
 */
export function parseRecord(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: 'a stream record was not valid JSON' };
  }
  const chunk = isObject(value) ? value.chunk : undefined;
  if (!isObject(chunk) || typeof chunk.type !== 'string')
    return { invalid: 'a stream record had no chunk.type' };
  const content = isObject(chunk.content) ? chunk.content : {};
  const end = chunk.stream_end === true;
  switch (chunk.type) {
    case 'stream_start': {
      const threadId = str(content.thread_id);
      if (!threadId) return { invalid: 'stream_start had no thread_id' };
      const questionAnswerId = str(content.question_answer_id);
      return { event: { type: 'start', threadId, ...(questionAnswerId ? { questionAnswerId } : {}) }, end };
    }
    case 'relevant_sources':
      return { event: { type: 'sources', sources: toSources(content.relevant_sources) }, end };
    case 'partial_answer': {
      const delta = str(content.text);
      if (delta === null) return { invalid: 'partial_answer had no text' };
      return { event: { type: 'delta', text: delta }, end };
    }
    case 'identifiers':
      return {
        event: {
          type: 'end',
          threadId: str(content.thread_id),
          questionAnswerId: str(content.question_answer_id),
        },
        end,
      };
    case 'error':
      return { event: { type: 'error', reason: str(content.reason) ?? 'The agent could not answer.' }, end };
    case 'agent_activity_update': {
      const activity = toActivity(content);
      return activity ? { event: { type: 'activity', activity }, end } : { end };
    }
    case 'metadata':
      return typeof content.is_uncertain === 'boolean'
        ? { event: { type: 'metadata', uncertain: content.is_uncertain }, end }
        : { end };
    case 'tool_calls':
      return { event: { type: 'tool_calls', calls: toToolCalls(content.tool_calls) }, end };
    default:
      return { end };
  }
}

export interface ReadChatStreamOptions {
  /** Milliseconds without a byte before the answer counts as interrupted. */
  idleTimeoutMs?: number;
  /** Longest record in characters; a longer one interrupts the answer. */
  maxRecordLength?: number;
}

const SILENT = Symbol('silent');

/**
 * Settles SILENT once nothing has arrived for `ms`. One timer for the whole stream that sleeps
 * for the time left, not a timer set and cleared on each of an answer's hundreds of reads.
 */
class Silence {
  readonly settled: Promise<typeof SILENT>;
  #last = Date.now();
  #timer?: ReturnType<typeof setTimeout>;

  constructor(ms: number) {
    this.settled = new Promise((resolve) => {
      const check = () => {
        const left = this.#last + ms - Date.now();
        if (left <= 0) resolve(SILENT);
        else this.#timer = setTimeout(check, left);
      };
      this.#timer = setTimeout(check, ms);
    });
  }

  /** Something arrived. */
  heard(): void {
    this.#last = Date.now();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

/**
 * The next read of the body, or the `interrupted` event that ends the answer: the connection
 * broke, or it sent nothing for the idle timeout. Aborting throws AbortError.
 */
async function nextRead(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  silence: Silence,
  ms: number,
  signal?: AbortSignal,
): Promise<ReadableStreamReadResult<Uint8Array> | StreamEvent> {
  let result: ReadableStreamReadResult<Uint8Array> | typeof SILENT;
  try {
    result = await Promise.race([reader.read(), silence.settled]);
  } catch (error) {
    signal?.throwIfAborted();
    return { type: 'interrupted', reason: `the connection broke (${String(error)})` };
  }
  signal?.throwIfAborted();
  if (result === SILENT)
    return { type: 'interrupted', reason: `the stream sent nothing for ${Math.round(ms / 1000)} s` };
  silence.heard();
  return result;
}

/**
 * Reads a chat response body into typed events. A broken stream does not throw: it yields a
 * final `interrupted` event so the caller keeps the text it has (bad JSON, no end record, a
 * record over the size limit, or silence longer than the idle timeout). Aborting throws AbortError.
 */
export async function* readChatStream(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options: ReadChatStreamOptions = {},
): AsyncGenerator<StreamEvent> {
  const { idleTimeoutMs = STREAM_IDLE_TIMEOUT_MS } = options;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const splitter = new RecordSplitter(options.maxRecordLength);
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  const silence = new Silence(idleTimeoutMs);
  let ended = false;
  try {
    while (!ended) {
      const result = await nextRead(reader, silence, idleTimeoutMs, signal);
      if ('type' in result) {
        yield result;
        return;
      }
      const text = result.done ? decoder.decode() : decoder.decode(result.value, { stream: true });
      let records: string[];
      try {
        records = splitter.push(text);
      } catch (error) {
        yield { type: 'interrupted', reason: (error as Error).message };
        return;
      }
      const rest = result.done ? splitter.remainder : '';
      if (rest.trim()) records.push(rest);
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
    silence.stop();
    signal?.removeEventListener('abort', onAbort);
    // Stops the download if the consumer leaves early (or the stream ended with extra bytes).
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
