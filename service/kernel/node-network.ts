/**
 * What a request to checked addresses (a docs crawl's GET, a webhook's POST) needs of Node
 * (decision 626): the system's resolver, every answer of it, and a connection that goes to the
 * addresses already checked, never to a second answer for the name (DNS rebinding). Loaded when
 * first used, so the core stays free of Node's modules.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import {
  type ClientRequest,
  Agent as HttpAgent,
  type IncomingMessage,
  type RequestOptions,
  request as httpRequest,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ResolvedAddress } from './addresses.js';

export async function resolveAll(hostname: string): Promise<ResolvedAddress[]> {
  return (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));
}

/** A lookup that answers with the addresses already checked: the name is not resolved a second time. */
function checkedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const fitting = addresses.filter((a) => !options.family || a.family === options.family);
    if (!fitting.length)
      return callback(Object.assign(new Error('No such address.'), { code: 'ENOTFOUND' }), '', 4);
    if (options.all) return (callback as (e: null, all: LookupAddress[]) => void)(null, fitting);
    callback(null, fitting[0].address, fitting[0].family);
  };
}

/** A request on `url`'s scheme whose connection goes to `addresses` (checked), whatever the name resolves to now. */
const pinnedRequest = (
  url: URL,
  addresses: ResolvedAddress[],
  options: RequestOptions,
  answer: (message: IncomingMessage) => void,
) =>
  (url.protocol === 'https:' ? httpsRequest : httpRequest)(
    url,
    { ...options, lookup: checkedLookup(addresses) },
    answer,
  );

/**
 * One POST to the checked addresses (a webhook's attempt) on a fresh connection (a pooled socket
 * could be elsewhere), no redirect followed; resolves with the answer once its head arrived.
 */
export function pinnedPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
  addresses: ResolvedAddress[],
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = pinnedRequest(
      url,
      addresses,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        signal,
        agent: false,
      },
      resolve,
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * What undoes a body's `Content-Encoding`, as fetch does: asked for, or sent anyway (a static
 * site's pre-compressed files). The caller counts the bytes that come out, so a small body that
 * inflates without end is stopped at the caller's limit, never held whole.
 */
const DECODERS = new Map<string, () => Transform>([
  ['gzip', createGunzip],
  ['x-gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

/** Statuses whose answer has no body, which a `Response` refuses to be given one. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Idle kept-alive connections a pool holds at most for one host at its checked addresses. */
const MAX_IDLE_PER_KEY = 8;
/** Hosts-at-addresses a pool keeps connections for at once; an idle one goes for a new one. */
const MAX_KEYS = 4;
/**
 * How long an idle connection is kept: under the 5 s at which Node's and Apache's servers close
 * theirs, so a request rarely meets one the server is closing (and is retried once if it does).
 */
const IDLE_MS = 4_000;

/**
 * Connections a crawl keeps open between its requests (keep-alive): on the internet each new one
 * costs two round trips (TCP, TLS) before the request. A connection is kept for the host, port,
 * scheme and the exact addresses that host's check passed, and is only ever reused by a request
 * whose own check gave that host the same addresses: a name that resolves elsewhere later
 * (rebinding), or another host at the same address, gets connections of its own. Busy
 * connections are as many as the caller's requests at once; idle ones are bounded
 * (`MAX_IDLE_PER_KEY` × `MAX_KEYS`) and closed after `IDLE_MS`; `close` ends them all.
 */
export class ConnectionPool {
  private readonly agents = new Map<string, HttpAgent>();
  private closed = false;

  /** The agent for a request to `url` at `addresses` (checked); false once the pool is closed: a fresh connection. */
  agent(url: URL, addresses: ResolvedAddress[]): HttpAgent | false {
    if (this.closed) return false;
    const key = [url.protocol, url.hostname, url.port, ...addresses.map((a) => a.address).sort()].join(' ');
    let agent = this.agents.get(key);
    if (agent) this.agents.delete(key);
    else {
      if (this.agents.size >= MAX_KEYS) this.dropIdle();
      const Agent = url.protocol === 'https:' ? HttpsAgent : HttpAgent;
      agent = new Agent({ keepAlive: true, maxFreeSockets: MAX_IDLE_PER_KEY, timeout: IDLE_MS });
    }
    // Most recently used last: the first ones are those to drop.
    this.agents.set(key, agent);
    return agent;
  }

  /** Ends the agents with no request under way (their idle connections closed). */
  private dropIdle() {
    for (const [key, agent] of this.agents)
      if (!Object.keys(agent.sockets).length && !Object.keys(agent.requests).length) {
        agent.destroy();
        this.agents.delete(key);
      }
  }

  /** Closes every connection, busy or idle; later requests each get a fresh one. */
  close() {
    this.closed = true;
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/**
 * A kept-alive connection the server closed as the request went out, before any answer: a GET,
 * safe to send again, as Node's documentation advises for `reusedSocket`.
 */
const closedUnder = (request: ClientRequest, error: unknown) =>
  request.reusedSocket &&
  ['ECONNRESET', 'EPIPE'].includes(String((error as NodeJS.ErrnoException | null)?.code));

/**
 * A GET to the checked addresses, no redirect followed, as a web `Response` whose body streams,
 * decoded as fetch decodes it; `signal` ends the request and its body. With `pool`, on one of its
 * connections to those addresses for that host (a fresh one otherwise); a kept-alive connection
 * the server closed under the request is tried once again, on a fresh connection.
 */
export function pinnedGet(
  url: URL,
  headers: Record<string, string>,
  addresses: ResolvedAddress[],
  signal?: AbortSignal,
  pool?: ConnectionPool,
): Promise<Response> {
  const get = (agent: HttpAgent | false) =>
    new Promise<Response>((resolve, reject) => {
      const request = pinnedRequest(
        url,
        addresses,
        {
          method: 'GET',
          headers: { 'Accept-Encoding': 'gzip, deflate, br', ...headers },
          signal,
          agent,
        },
        (message) => {
          try {
            resolve(webResponse(message, signal));
          } catch (error) {
            // A status no Response may have (under 200, over 599) or a header it cannot hold.
            message.destroy();
            reject(error);
          }
        },
      );
      request.on('error', (error) => {
        if (agent && !signal?.aborted && closedUnder(request, error)) return resolve(get(false));
        // Aborted before any header: the signal's reason, as fetch rejects (a timeout reads as one,
        // not as Node's AbortError, which the crawler would call an unreachable server).
        reject(signal?.aborted ? signal.reason : error);
      });
      request.end();
    });
  return get(pool?.agent(url, addresses) ?? false);
}

/** The answer as a web `Response`, its body decoded; `signal` ends the body. */
function webResponse(message: IncomingMessage, signal?: AbortSignal): Response {
  // The body ends with the signal's reason, as fetch's does: a timeout reads as one.
  if (signal?.aborted) message.destroy(signal.reason as Error);
  else signal?.addEventListener('abort', () => message.destroy(signal.reason as Error), { once: true });
  const status = message.statusCode ?? 0;
  const answer = new Headers();
  for (const [name, value] of Object.entries(message.headers))
    for (const one of value === undefined ? [] : [value].flat()) answer.append(name, one);
  let body: ReadableStream<Uint8Array> | null = null;
  if (NULL_BODY.has(status)) message.resume();
  else {
    // Only a body is decoded: a decoder left without a reader would throw its error at the process.
    const decoder = DECODERS.get(String(message.headers['content-encoding']).trim().toLowerCase());
    const stream = decoder ? message.pipe(decoder()) : message;
    // A decoder's error (damaged data) or the request's end reaches the body's reader,
    // and a reader that stops early (a body past its limit) closes the connection.
    if (decoder) {
      message.on('error', (error) => stream.destroy(error));
      stream.on('close', () => message.destroy());
    }
    body = webBody(message, stream);
  }
  return new Response(body, { status, headers: answer });
}

/** The most of a body left unread that is still read to its end, to keep its connection. */
const DRAIN_BYTES = 64 * 1024;

/**
 * `stream` (the message, or its decoder) as a web stream. A reader that stops early closes the
 * connection, except from a short body that is not decoded (a redirect's, a 404's, which the
 * crawler drops unread): its `Content-Length` bounds what is left, so it is read to its end and
 * dropped, and its connection is kept for the next request. The request's signal still ends it.
 */
function webBody(message: IncomingMessage, stream: Readable): ReadableStream<Uint8Array> {
  const reader = (Readable.toWeb(stream) as ReadableStream<Uint8Array>).getReader();
  const length = Number(message.headers['content-length']);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        if (stream !== message || !(length <= DRAIN_BYTES)) return reader.cancel(reason);
        reader.releaseLock();
        message.resume();
      },
    },
    { highWaterMark: 0 },
  );
}
