/** Reading what the model server sends: its JSON shapes, a bounded body, server-sent events. */
import { readBounded as readBody } from '../kernel/bounded-body.js';

/** A hostile or broken upstream must not grow memory: no SSE line, and no event, is longer than this. */
const MAX_LINE = 1 << 20;
/** Tool calls of one model answer: a delta's `index` is a whole number below this. */
const MAX_CALLS = 32;
/** A tool call's arguments (JSON text) as they pile up. */
const MAX_CALL_ARGS = 1 << 20;

export interface ChunkDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

export interface Chunk {
  choices?: { delta?: ChunkDelta; message?: ChunkDelta; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: unknown;
}

/** A tool call as its pieces arrive: the arguments are JSON text, whole only at the end. */
export interface CallParts {
  id: string;
  name: string;
  args: string;
}

export class MalformedStream extends Error {
  override name = 'MalformedStream';
}

/** The tool calls of one try by their `index`: a Map, so no index the server sends can reach a prototype. */
export type Calls = Map<number, CallParts>;

/**
 * One piece of a tool call. An index of 2×10⁸ once made a sparse array that took 11-13 s to
 * walk, and `"__proto__"` wrote to `Array.prototype`: an index must be a whole number below
 * MAX_CALLS, and a call's name and arguments stay bounded.
 */
export function collectCall(
  calls: Calls,
  part: NonNullable<ChunkDelta['tool_calls']>[number] & {
    function?: { name?: string; arguments?: string | object };
  },
): void {
  const index = part.index ?? 0;
  if (!Number.isInteger(index) || index < 0 || index >= MAX_CALLS)
    throw new MalformedStream(`the model server sent a tool call index that is not 0 to ${MAX_CALLS - 1}`);
  let call = calls.get(index);
  if (!call) calls.set(index, (call = { id: '', name: '', args: '' }));
  if (typeof part.id === 'string' && part.id) call.id = part.id;
  if (typeof part.function?.name === 'string') call.name += part.function.name;
  const args = part.function?.arguments;
  if (args) call.args += typeof args === 'string' ? args : JSON.stringify(args);
  if (call.name.length > 64 || call.args.length > MAX_CALL_ARGS)
    throw new MalformedStream('the model server sent a tool call over 1 MiB');
}

/** The calls in the order of their index. */
export const callsInOrder = (calls: Calls): CallParts[] =>
  [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);

export function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export async function readBounded(response: Response, limit: number): Promise<Uint8Array> {
  const bytes = await readBody(response, limit);
  if (bytes === null) throw new MalformedStream(`the answer is over ${limit} bytes`);
  return bytes;
}

/** The events of a server-sent event stream: `event:` name (default `message`) and `data:` lines joined. */
export async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  // Lines of one event pile up until a blank line: 128 MiB of them once took 267 MiB of heap.
  let size = 0;
  let event = 'message';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      if (buffer.length > MAX_LINE && !buffer.includes('\n'))
        throw new MalformedStream('the model server sent a line over 1 MiB');
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        if (line === '') {
          if (data.length) yield { event, data: data.join('\n') };
          data = [];
          size = 0;
          event = 'message';
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''));
          if ((size += line.length) > MAX_LINE)
            throw new MalformedStream('the model server sent an event over 1 MiB');
        } else if (line.startsWith('event:')) event = line.slice(6).trim();
      }
    }
    if (data.length) yield { event, data: data.join('\n') };
  } finally {
    void reader.cancel().catch(() => {});
  }
}
