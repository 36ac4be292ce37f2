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
        return errorJson(
          502,
          'service_unavailable',
          'The agent service answered with a redirect, which is not followed.',
        );
      }
      return { upstream, body: await readLimited(upstream, MAX_BODY_BYTES, deadline) };
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        return errorJson(502, 'service_unavailable', 'The agent service answered with an oversized body.');
      const timedOut = isTimeout(error) || deadline.aborted;
      return errorJson(
        502,
        'service_unavailable',
        timedOut
          ? `The agent service did not answer within ${timeoutMs} ms.`
          : 'The agent service could not be reached.',
      );
    }
  };
}

/** The service's answer as the browser gets it: JSON only, a few of its headers, and the owner key once minted. */
async function passOn(
  upstream: Response,
  body: Uint8Array,
  ownerKeyHeader: () => Promise<string>,
): Promise<Response> {
  if (!NULL_BODY_STATUS.has(upstream.status) && !isJson(upstream.headers.get('Content-Type'), body)) {
    // An error page of a proxy or load balancer: the widget reads JSON, and the site must not serve that page as its own.
    const type = upstream.headers.get('Content-Type')?.split(';')[0].trim() || 'no content type';
    const retryAfter = upstream.headers.get('Retry-After');
    return errorJson(
      502,
      'service_unavailable',
      `The agent service answered ${upstream.status} with ${type} instead of JSON.`,
      retryAfter ? { 'Retry-After': retryAfter } : {},
    );
  }
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
    return passOn(minted.upstream, minted.body, () => ownerKey(owner, secret));
  };
}
