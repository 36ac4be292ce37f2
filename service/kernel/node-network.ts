/**
 * What a request to checked addresses needs of Node (decision 626): the system's resolver, every
 * answer of it, and a connection that goes to the addresses already checked, never to a second
 * answer for the name (DNS rebinding). Loaded when first used, so the core stays free of Node's
 * modules.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
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
export function checkedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const fitting = addresses.filter((a) => !options.family || a.family === options.family);
    if (!fitting.length)
      return callback(Object.assign(new Error('No such address.'), { code: 'ENOTFOUND' }), '', 4);
    if (options.all) return (callback as (e: null, all: LookupAddress[]) => void)(null, fitting);
    callback(null, fitting[0].address, fitting[0].family);
  };
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

/**
 * A GET to the checked addresses on a fresh connection (a pooled socket could be elsewhere), no
 * redirect followed, as a web `Response` whose body streams, decoded as fetch decodes it;
 * `signal` ends the request and its body.
 */
export function pinnedGet(
  url: URL,
  headers: Record<string, string>,
  addresses: ResolvedAddress[],
  signal?: AbortSignal,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: 'GET',
        headers: { 'Accept-Encoding': 'gzip, deflate, br', ...headers },
        lookup: checkedLookup(addresses),
        signal,
        agent: false,
      },
      (message) => {
        // The body ends with the signal's reason, as fetch's does: a timeout reads as one.
        if (signal?.aborted) message.destroy(signal.reason as Error);
        else signal?.addEventListener('abort', () => message.destroy(signal.reason as Error), { once: true });
        const status = message.statusCode ?? 0;
        try {
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
            body = Readable.toWeb(stream) as ReadableStream<Uint8Array>;
          }
          resolve(new Response(body, { status, headers: answer }));
        } catch (error) {
          // A status no Response may have (under 200, over 599) or a header it cannot hold.
          message.destroy();
          reject(error);
        }
      },
    );
    // Aborted before any header: the signal's reason, as fetch rejects (a timeout reads as one,
    // not as Node's AbortError, which the crawler would call an unreachable server).
    request.on('error', (error) => reject(signal?.aborted ? signal.reason : error));
    request.end();
  });
}
