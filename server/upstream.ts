/**
 * What every call from the site owner's server to the agent service shares. The API key rides
 * on these calls, so they never follow a redirect, never go out in clear text to another
 * machine, and never read an unbounded answer into memory.
 */

/** Checks `baseUrl` once, when a helper is created: a mistake here should fail at deploy, not per visitor. */
export function serviceBase(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`[agent-chat] baseUrl "${baseUrl}" is not an absolute URL.`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new TypeError(
      `[agent-chat] baseUrl must use https (the API key travels on it); plain http is allowed only for localhost. Got ${url.origin}.`,
    );
  }
  return baseUrl.replace(/\/+$/, '');
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    hostname === '[::1]'
  );
}

/** Thrown when the service's answer is larger than the helper will hold. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/**
 * Reads a body up to `limit` bytes. `signal` is the same deadline as the request, so a service
 * that sends its headers and then stalls still ends in time.
 */
export async function readLimited(
  response: Response,
  limit: number,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const declared = Number(response.headers.get('Content-Length'));
  if (declared > limit) {
    await response.body.cancel().catch(() => {});
    throw new BodyTooLargeError(`The answer declares ${declared} bytes; the limit is ${limit}.`);
  }
  const reader = response.body.getReader();
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw new BodyTooLargeError(`The answer is over the ${limit}-byte limit.`);
      }
      chunks.push(value);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * Redirects are handled by hand: `redirect: 'manual'` hands back the 3xx itself (an opaque one
 * in a browser), which `isRedirect` refuses. `'error'` would say the same, but workerd (Cloudflare
 * Workers) rejects that option outright, so every call failed there.
 */
export const NO_REDIRECT = 'manual' satisfies RequestInit['redirect'];

export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

/** A body a Request or Response takes, named without the DOM's globals (Node has no `BodyInit`). */
export type Body = NonNullable<RequestInit['body']>;

/** Statuses a Response may not be built with a body for. */
export const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

export function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'TimeoutError';
}
