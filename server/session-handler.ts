import { ownerKey } from '../contract/owner-key.js';
import { agentBase, agentPaths, OWNER_KEY_HEADER } from '../contract/paths.js';
import { BodyTooLargeError, isTimeout, NULL_BODY_STATUS, readLimited, serviceBase } from './upstream.js';

export type FetchHandler = (request: Request) => Promise<Response>;

export interface SessionHandlerOptions {
  /** The secret API key. It is used here, on your server, and never sent to a browser. */
  apiKey: string;
  projectId: string;
  /** The agent service base URL, e.g. `https://agent.example.com`. Plain http only for localhost. */
  baseUrl: string;
  /**
   * Who the visitor is, from *your* login state (cookie, session, JWT). Return nothing for an
   * anonymous visitor: they can chat but get no history. Never read this from the request body.
   */
  getOwnerId: (request: Request) => string | null | undefined | Promise<string | null | undefined>;
  /** Secret for the `Agent-Chat-Owner-Key` header (see `ownerKey`). Default: the API key. */
  ownerKeySecret?: string;
  /**
   * Called before a session is minted. Return the seconds the caller must wait to refuse
   * with 429 and `Retry-After`; return nothing to go ahead.
   */
  rateLimit?: (request: Request) => number | null | undefined | void | Promise<number | null | undefined | void>;
  /** How long to wait for the service's whole answer before answering 502. Default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A session answer is a token and a date; anything near this size is not one. */
const MAX_BODY_BYTES = 64 * 1024;
const BASE_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

function errorJson(status: number, code: string, detail: string, headers: Record<string, string> = {}): Response {
  return Response.json({ detail, code }, { status, headers: { ...BASE_HEADERS, ...headers } });
}

/**
 * The site owner's session endpoint (wire contract §2) as a Fetch handler: mints a session
 * with the API key and passes the service's answer through. Uses only the Fetch API, so it
 * runs in Node, Workers, Deno and Bun alike.
 */
export function createSessionHandler(options: SessionHandlerOptions): FetchHandler {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const url = `${serviceBase(options.baseUrl)}${agentBase(options.projectId)}${agentPaths.sessions}`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const secret = options.ownerKeySecret ?? options.apiKey;

  return async (request) => {
    if (request.method !== 'POST') return errorJson(405, 'method_not_allowed', 'Use POST.', { Allow: 'POST' });
    const wait = await options.rateLimit?.(request);
    if (typeof wait === 'number') {
      const seconds = Math.max(1, Math.ceil(wait));
      return errorJson(429, 'rate_limited', 'Too many sessions requested; try again later.', { 'Retry-After': String(seconds) });
    }
    // The browser's body is never read: whatever it says about an owner is ignored.
    const owner = await options.getOwnerId(request);
    // One deadline for the headers and the body: a service that stalls mid-answer still gets a 502.
    const deadline = AbortSignal.timeout(timeoutMs);
    let upstream: Response;
    let body: Uint8Array;
    try {
      upstream = await doFetch(url, {
        method: 'POST',
        headers: { 'X-API-Key': options.apiKey, ...(owner ? { 'Content-Type': 'application/json' } : {}) },
        body: owner ? JSON.stringify({ external_owner_id: owner }) : undefined,
        // Following a redirect would hand the API key to wherever it points.
        redirect: 'error',
        signal: deadline,
      });
      if (upstream.status >= 300 && upstream.status < 400 || upstream.type === 'opaqueredirect') {
        await upstream.body?.cancel().catch(() => {});
        return errorJson(502, 'service_unavailable', 'The agent service answered with a redirect, which is not followed.');
      }
      body = await readLimited(upstream, MAX_BODY_BYTES, deadline);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return errorJson(502, 'service_unavailable', 'The agent service answered with an oversized body.');
      const timedOut = isTimeout(error) || deadline.aborted;
      return errorJson(502, 'service_unavailable', timedOut ? `The agent service did not answer within ${timeoutMs} ms.` : 'The agent service could not be reached.');
    }
    const headers = new Headers(BASE_HEADERS);
    for (const name of ['Content-Type', 'Date', 'Retry-After']) {
      const value = upstream.headers.get(name);
      if (value) headers.set(name, value);
    }
    if (upstream.ok) headers.set(OWNER_KEY_HEADER, await ownerKey(owner, secret));
    return new Response(NULL_BODY_STATUS.has(upstream.status) ? null : (body as BodyInit), { status: upstream.status, headers });
  };
}
