import { MAX_BODY_BYTES } from '../../contract/limits.js';
import { readBounded } from '../kernel/bounded-body.js';
import { HttpError, badRequest } from './errors.js';

const decoder = new TextDecoder();
const tooLarge = () =>
  new HttpError(413, 'payload_too_large', 'The body is larger than 64 KiB.', { Connection: 'close' });

/**
 * Reads a JSON body within the 64 KiB limit, counting bytes as they arrive, so a chunked body
 * of any size is refused once it passes the limit and never held whole. `undefined`: no body.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const bytes = await readBounded(request, MAX_BODY_BYTES);
  if (!bytes) throw tooLarge();
  const text = decoder.decode(bytes);
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('The body is not valid JSON.');
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
