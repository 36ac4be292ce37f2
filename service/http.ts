/** Response helpers shared by every route of the reference service. */

export const MAX_BODY_BYTES = 64 * 1024;

/** Browsers may call the agent API from any origin, with a bearer token and no cookies. */
export const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After, Date',
};

export function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      // X-API-Key is deliberately absent: a browser must never be able to send it here.
      'Access-Control-Allow-Headers': 'Authorization, Content-Type',
      'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE, OPTIONS',
      'Access-Control-Max-Age': '600',
    },
  });
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    // Every answer is for one caller (a session, a key): no shared cache may keep it.
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...CORS_HEADERS, ...headers },
  });
}

/** A non-2xx answer in the contract's `{detail, code}` shape. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toResponse(): Response {
    return json({ detail: this.detail, code: this.code }, this.status, this.headers);
  }
}

export const badRequest = (detail: string) => new HttpError(400, 'invalid_request', detail);
export const notFound = (detail = 'Not found.') => new HttpError(404, 'not_found', detail);

const tooLarge = () => new HttpError(413, 'payload_too_large', 'The body is larger than 64 KiB.', { Connection: 'close' });

/**
 * Reads a JSON body within the 64 KiB limit, counting bytes as they arrive, so a chunked body
 * of any size is refused once it passes the limit and never held whole. `undefined`: no body.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  const bytes = new Uint8Array(MAX_BODY_BYTES);
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.byteLength > MAX_BODY_BYTES) {
      void reader.cancel().catch(() => {});
      throw tooLarge();
    }
    bytes.set(value, length);
    length += value.byteLength;
  }
  const text = new TextDecoder().decode(bytes.subarray(0, length));
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

/** Unguessable ids: 128 random bits, prefixed by kind. */
export function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `${prefix}_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export const THREAD_ID = /^th_[0-9a-f]{32}$/;
export const ANSWER_ID = /^msg_[0-9a-f]{32}$/;

export const noContent = () => new Response(null, { status: 204, headers: { ...CORS_HEADERS, 'Cache-Control': 'no-store' } });
