import { NetworkError, SessionError, isAbortError } from '../api/errors.js';
import { parseSession } from './parse-session.js';
import type { SessionPayload, TokenSource } from './types.js';

/** Names the session's owner without revealing it (wire contract §2). */
export const OWNER_KEY_HEADER = 'Agent-Chat-Owner-Key';

/**
 * Headers a page adds to each session request (a CMS's CSRF token, WordPress's `X-WP-Nonce`):
 * an object, or a function called before every request, so a token that went stale is fetched anew.
 */
export type SessionRequestHeaders =
  | HeadersInit
  | ((signal: AbortSignal) => HeadersInit | Promise<HeadersInit>);

export interface EndpointSourceOptions {
  /** Defaults to `same-origin`: the site owner's login cookie decides the owner. */
  credentials?: RequestCredentials;
  /** Read before each request, so a page may set or change it at any time. */
  headers?: () => SessionRequestHeaders | undefined;
  fetch?: typeof fetch;
}

/**
 * The default token source: `POST` to the site owner's session endpoint (wire contract §2).
 * It reads the response's Date header so the token lifetime is measured on the server's clock,
 * and hands the manager a normalized token whose expiry is already on the local clock, with the
 * session's owner key from the `Agent-Chat-Owner-Key` header.
 */
export function endpointTokenSource(url: string, options: EndpointSourceOptions = {}): TokenSource {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let warned = false;
  return async (signal) => {
    let response: Response;
    try {
      const extra = options.headers?.();
      const headers = new Headers(typeof extra === 'function' ? await extra(signal) : extra);
      headers.set('Accept', 'application/json');
      response = await doFetch(url, {
        method: 'POST',
        headers,
        credentials: options.credentials ?? 'same-origin',
        signal,
      });
    } catch (error) {
      if (isAbortError(error)) throw error;
      throw new SessionError('session_failed', `Could not reach the session endpoint ${url}.`, {
        cause: new NetworkError(String(error), { cause: error }),
      });
    }
    if (!response.ok) {
      // The endpoints shipped say what the site must fix in a JSON `detail` (decision 677): the
      // site owner reads it once in the console, as a refused origin's.
      const detail: unknown = await response.json().then(
        (body) => body?.detail,
        () => {},
      );
      const said = typeof detail == 'string';
      const error = new SessionError(
        'session_failed',
        `The session endpoint ${url} answered HTTP ${response.status}${said ? `: ${detail}` : '.'}`,
        { status: response.status },
      );
      if (said && !warned) {
        warned = true;
        console.warn(error.message);
      }
      throw error;
    }
    return sessionFromResponse(response, `The session endpoint ${url}`);
  };
}

/**
 * A 2xx session answer as the token manager takes it: the token, its lifetime measured on the
 * server's clock (the Date header), the owner key of its header. `who` names the answer's source.
 */
export async function sessionFromResponse(response: Response, who: string): Promise<SessionPayload> {
  const receivedAt = Date.now();
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    throw new SessionError('session_failed', `${who} did not answer JSON.`, {
      status: response.status,
      cause: error,
    });
  }
  const dateHeader = response.headers.get('Date');
  const serverNow = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  try {
    const token = parseSession(body, receivedAt, Number.isNaN(serverNow) ? receivedAt : serverNow);
    const ownerKey = response.headers.get(OWNER_KEY_HEADER) ?? undefined;
    return { token: token.token, expiresAt: token.expiresAt, ...(ownerKey ? { ownerKey } : {}) };
  } catch (error) {
    throw new SessionError('session_failed', `${who} answered an unusable body.`, {
      status: response.status,
      cause: error,
    });
  }
}
