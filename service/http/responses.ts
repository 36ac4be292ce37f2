/** Response helpers shared by every route of the service. */
import { IDEMPOTENCY_KEY_HEADER, OWNER_KEY_HEADER } from '../../contract/paths.js';

/**
 * Browsers may call the agent API from any origin, with a bearer token and no cookies. A page on
 * another origin reads a public session's owner key (`-`, §2b) as sent (decision 540).
 */
export const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': `Retry-After, Date, ${OWNER_KEY_HEADER}`,
};

export function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      // X-API-Key is deliberately absent: a browser must never be able to send it here. The
      // chat call's key (decision 453) is what a widget sends beside the token.
      'Access-Control-Allow-Headers': `Authorization, Content-Type, ${IDEMPOTENCY_KEY_HEADER}`,
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

export const noContent = () =>
  new Response(null, { status: 204, headers: { ...CORS_HEADERS, 'Cache-Control': 'no-store' } });

/** The chat stream's headers (§4); nginx, which buffers a response by default, passes each record on at once. */
export const STREAM_HEADERS = {
  'Content-Type': 'text/plain; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
  ...CORS_HEADERS,
};
