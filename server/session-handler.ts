import { ownerKey } from '../contract/owner-key.js';
import { agentBase, agentPaths, OWNER_KEY_HEADER } from '../contract/paths.js';
import {
  addressKey,
  checkTrustProxy,
  clientAddress,
  type RequestInfo,
  type TrustProxy,
} from './client-address.js';
import {
  type Body,
  BodyTooLargeError,
  isRedirect,
  isTimeout,
  NO_REDIRECT,
  NULL_BODY_STATUS,
  readLimited,
  serviceBase,
} from './upstream.js';

export type { RequestInfo, TrustProxy };

/** A Fetch handler; `info` carries what only the host knows (`toNodeHandler` passes the socket's address). */
export type FetchHandler = (request: Request, info?: RequestInfo) => Promise<Response>;

/** A fixed window: at most `requests` in each `windowMs`. */
export interface SessionRateLimit {
  requests: number;
  windowMs: number;
}

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
   * Sessions each client address may mint (IPv6 counted per /64). The service caps mints per
   * project for the whole site, so without this one visitor minting in a loop would spend that
   * budget for everyone; with it, a limited visitor gets 429 and nobody else notices. Default
   * 20 a minute, which covers reloads, tabs and a shared office address. A function decides
   * itself (return the seconds to wait to refuse, nothing to go ahead); `false` turns it off.
   */
  rateLimit?:
    | SessionRateLimit
    | false
    | ((
        request: Request,
        info: { clientAddress?: string },
      ) => number | null | undefined | void | Promise<number | null | undefined | void>);
  /**
   * Which forwarding headers tell the client's address: `0` (default) the socket's; N the N-th
   * hop back in `X-Forwarded-For` behind N proxies you run; `'cloudflare'` `CF-Connecting-IP`
   * (the default inside Cloudflare Workers).
   */
  trustProxy?: TrustProxy;
  /** How long to wait for the service's whole answer before answering 502. Default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A session answer is a token and a date; anything near this size is not one. */
const MAX_BODY_BYTES = 64 * 1024;
const BASE_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

/** Distinct addresses remembered at once; past it the oldest window goes (memory stays bounded). */
const MAX_ADDRESSES = 10_000;

function errorJson(
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ detail, code }, { status, headers: { ...BASE_HEADERS, ...headers } });
}

/** Fixed windows per address, in this process; the seconds to wait when one is spent. */
function addressLimiter({ requests, windowMs }: SessionRateLimit) {
  if (!(requests > 0) || !(windowMs > 0))
    throw new TypeError('[agent-chat] rateLimit needs requests and windowMs above 0.');
  const windows = new Map<string, { start: number; count: number }>();
  return (key: string): number | undefined => {
    const now = Date.now();
    let window = windows.get(key);
    if (!window || now - window.start >= windowMs) {
      windows.delete(key);
      // Map order is insertion order: the first entry is the oldest window.
      if (windows.size >= MAX_ADDRESSES) windows.delete(windows.keys().next().value!);
      window = { start: now, count: 0 };
      windows.set(key, window);
    }
    window.count += 1;
    return window.count > requests ? (window.start + windowMs - now) / 1000 : undefined;
  };
}

let warnedNoAddress = false;

/** A service answer the widget can read: JSON of its own, whatever the status. */
function isJson(type: string | null, body: Uint8Array): boolean {
  if (!type || !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type.trim())) return false;
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    return true;
  } catch {
    return false;
  }
}

/** The limit per client (`rateLimit`): a 429 to answer, or nothing to go ahead. */
function clientLimit(rateLimit: SessionHandlerOptions['rateLimit']) {
  const limit = rateLimit ?? { requests: 20, windowMs: 60_000 };
  const perAddress = typeof limit === 'object' ? addressLimiter(limit) : undefined;
  return async (request: Request, address: string | undefined): Promise<Response | undefined> => {
    let wait: number | null | undefined | void;
    if (typeof limit === 'function') wait = await limit(request, { clientAddress: address });
    else if (perAddress && address) wait = perAddress(addressKey(address));
    else if (perAddress && !warnedNoAddress) {
      warnedNoAddress = true;
      console.warn(
        '[agent-chat] createSessionHandler: no client address for this request, so sessions are not limited per visitor. Mount it with toNodeHandler (agent-chat/server/node), pass { clientAddress } as the second argument, or set trustProxy.',
      );
    }
    if (typeof wait !== 'number') return undefined;
    const seconds = Math.max(1, Math.ceil(wait));
    return errorJson(429, 'rate_limited', 'Too many sessions requested; try again later.', {
      'Retry-After': String(seconds),
    });
  };
}

/**
 * The JSON 502 for a service that gave no usable answer, and the same line in the site's log
 * with the URL called and `why` (the transport's own words): the visitor reads "couldn't start"
 * and the browser a status, so the log is where the site's owner learns what to fix (decision 677).
 */
function failed(url: string, detail: string, headers: Record<string, string> = {}, why = ''): Response {
  console.warn(`[agent-chat] POST ${url} failed: ${detail}${why}`);
  return errorJson(502, 'service_unavailable', detail, headers);
}

/**
 * A refusal of the service (a wrong key or project, a budget spent), passed through as it is,
 * in the site's log with the service's own words, which name neither the key nor the owner.
 */
function logRefusal(url: string, status: number, body: Uint8Array): void {
  let detail = '';
  try {
    const answer: unknown = JSON.parse(new TextDecoder().decode(body));
    const said = (answer as { detail?: unknown } | null)?.detail;
    if (typeof said === 'string') detail = said.replace(/\s+/g, ' ').slice(0, 300);
  } catch {
    // Checked as JSON before: nothing to add.
  }
  // A base URL ending in /agent/v1 doubles the route, and the service knows no such URL (a path
  // of a proxy in front of the service is fine: the console is under it too).
  const hint =
    status === 404
      ? " Check the service URL: it is the console's address without /console/ (and without /agent/v1)."
      : '';
  console.warn(`[agent-chat] POST ${url} answered ${status}: ${detail}${hint}`);
}

/** The service's answer to a mint and its whole body, or the 502 to answer when there is none to pass on. */
type Minted = { upstream: Response; body: Uint8Array } | Response;

/** What mints a session for an owner with the API key: one deadline for the headers and the body. */
function minter(options: SessionHandlerOptions, url: string) {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (owner: string | null | undefined): Promise<Minted> => {
    // A service that stalls mid-answer still gets a 502.
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      const upstream = await doFetch(url, {
        method: 'POST',
        headers: { 'X-API-Key': options.apiKey, ...(owner ? { 'Content-Type': 'application/json' } : {}) },
        body: owner ? JSON.stringify({ external_owner_id: owner }) : undefined,
        // Following a redirect would hand the API key to wherever it points.
        redirect: NO_REDIRECT,
        signal: deadline,
      });
      if (isRedirect(upstream)) {
        await upstream.body?.cancel().catch(() => {});
        const location = upstream.headers.get('Location');
        return failed(
          url,
          'The agent service answered with a redirect, which is not followed.',
          {},
          location ? ` (to ${location})` : '',
        );
      }
      return { upstream, body: await readLimited(upstream, MAX_BODY_BYTES, deadline) };
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        return failed(url, 'The agent service answered with an oversized body.');
      if (isTimeout(error) || deadline.aborted)
        return failed(url, `The agent service did not answer within ${timeoutMs} ms.`);
      // fetch's own error says only "fetch failed"; its cause names the host and what went wrong.
      const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
      return failed(url, 'The agent service could not be reached.', {}, ` (${String(cause)})`);
    }
  };
}

/** The service's answer as the browser gets it: JSON only, a few of its headers, and the owner key once minted. */
async function passOn(
  url: string,
  upstream: Response,
  body: Uint8Array,
  ownerKeyHeader: () => Promise<string>,
): Promise<Response> {
  if (!NULL_BODY_STATUS.has(upstream.status) && !isJson(upstream.headers.get('Content-Type'), body)) {
    // An error page of a proxy or load balancer: the widget reads JSON, and the site must not serve that page as its own.
    const type = upstream.headers.get('Content-Type')?.split(';')[0].trim() || 'no content type';
    const retryAfter = upstream.headers.get('Retry-After');
    return failed(
      url,
      `The agent service answered ${upstream.status} with ${type} instead of JSON.`,
      retryAfter ? { 'Retry-After': retryAfter } : {},
    );
  }
  if (upstream.status >= 400) logRefusal(url, upstream.status, body);
  const headers = new Headers(BASE_HEADERS);
  for (const name of ['Content-Type', 'Date', 'Retry-After']) {
    const value = upstream.headers.get(name);
    if (value) headers.set(name, value);
  }
  if (upstream.ok) headers.set(OWNER_KEY_HEADER, await ownerKeyHeader());
  return new Response(NULL_BODY_STATUS.has(upstream.status) ? null : (body as Body), {
    status: upstream.status,
    headers,
  });
}

/**
 * The site owner's session endpoint (wire contract §2) as a Fetch handler: mints a session
 * with the API key and passes the service's answer through. Uses only the Fetch API, so it
 * runs in Node, Workers, Deno and Bun alike.
 */
export function createSessionHandler(options: SessionHandlerOptions): FetchHandler {
  const url = `${serviceBase(options.baseUrl)}${agentBase(options.projectId)}${agentPaths.sessions}`;
  const secret = options.ownerKeySecret ?? options.apiKey;
  const trustProxy = checkTrustProxy(options.trustProxy);
  const limited = clientLimit(options.rateLimit);
  const mint = minter(options, url);

  return async (request, info) => {
    if (request.method !== 'POST')
      return errorJson(405, 'method_not_allowed', 'Use POST.', { Allow: 'POST' });
    const refusal = await limited(request, clientAddress(request, info, trustProxy));
    if (refusal) return refusal;
    // The browser's body is never read: whatever it says about an owner is ignored.
    const owner = await options.getOwnerId(request);
    const minted = await mint(owner);
    if (minted instanceof Response) return minted;
    return passOn(url, minted.upstream, minted.body, () => ownerKey(owner, secret));
  };
}
