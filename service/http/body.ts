import { MAX_BODY_BYTES } from '../../contract/limits.js';
import { HttpError, badRequest } from './errors.js';

const decoder = new TextDecoder();
const tooLarge = () =>
  new HttpError(413, 'payload_too_large', 'The body is larger than 64 KiB.', { Connection: 'close' });

/**
 * Reads a JSON body within the 64 KiB limit, counting bytes as they arrive, so a chunked body
 * of any size is refused once it passes the limit and never held whole. `undefined`: no body.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  // Chunks as they come (a JSON body is usually one): no 64 KiB buffer per request.
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.byteLength > MAX_BODY_BYTES) {
      void reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
    length += value.byteLength;
  }
  const text = decoder.decode(chunks.length === 1 ? chunks[0] : concat(chunks, length));
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('The body is not valid JSON.');
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
