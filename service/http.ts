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
      'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
      'Access-Control-Max-Age': '600',
    },
  });
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...CORS_HEADERS, ...headers },
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

/** Reads a JSON body within the 64 KiB limit. `undefined` means no body at all. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get('Content-Length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw new HttpError(413, 'payload_too_large', 'The body is larger than 64 KiB.');
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength > MAX_BODY_BYTES) throw new HttpError(413, 'payload_too_large', 'The body is larger than 64 KiB.');
  const text = new TextDecoder().decode(bytes);
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
