/** Reading what the model server sends: its JSON shapes, a bounded body, server-sent events. */
import { readBounded as readBody } from '../kernel/bounded-body.js';

/** A hostile or broken upstream must not grow memory: no SSE line is longer than this. */
const MAX_LINE = 1 << 20;

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

export function collectCall(
  calls: CallParts[],
  part: NonNullable<ChunkDelta['tool_calls']>[number] & {
    function?: { name?: string; arguments?: string | object };
  },
) {
  const call = (calls[part.index ?? 0] ??= { id: '', name: '', args: '' });
  if (part.id) call.id = part.id;
  if (part.function?.name) call.name += part.function.name;
  const args = part.function?.arguments;
  if (args) call.args += typeof args === 'string' ? args : JSON.stringify(args);
}

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
          event = 'message';
        } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        else if (line.startsWith('event:')) event = line.slice(6).trim();
      }
    }
    if (data.length) yield { event, data: data.join('\n') };
  } finally {
    void reader.cancel().catch(() => {});
  }
}
