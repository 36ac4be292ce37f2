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
    // Valid JSON writes a NUL only as the escape `\u0000`: a body without one is parsed without
    // a reviver called at every value.
    return text.includes('\\u0000') ? JSON.parse(text, withoutNul) : JSON.parse(text);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw badRequest('The body is not valid JSON.');
  }
}

/** Why text with a NUL character is refused (decision 759). */
export const NUL_TEXT = 'The request has a NUL character (\\u0000 or %00), which no text here may hold.';

/**
 * PostgreSQL's text and jsonb hold no NUL: a visitor's message or a console form with one failed
 * the statement that stored it, a 500 (decision 759).
 */
function withoutNul(key: string, value: unknown): unknown {
  if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) throw badRequest(NUL_TEXT);
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON object whose `names` are strings, or 400 "Send a and b." (what the console's forms send:
 * a sign-in, a new admin, a new password, a role). The object whole, for its other fields.
 */
export async function readStringFields<K extends string>(
  request: Request,
  ...names: K[]
): Promise<Record<K, string> & Record<string, unknown>> {
  const body = await readJsonBody(request);
  if (!isRecord(body) || names.some((name) => typeof body[name] !== 'string'))
    throw badRequest(`Send ${names.join(' and ')}.`);
  return body as Record<K, string> & Record<string, unknown>;
}
