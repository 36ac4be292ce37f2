/**
 * What a webhook's attempt needs of Node (decision 626): the system's resolver, every answer of
 * it, and a POST whose connection goes to the addresses already checked. Loaded when first used,
 * so the service's core stays free of Node's modules.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './address.js';

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

/**
 * One POST to the checked addresses on a fresh connection (a pooled socket could be elsewhere),
 * no redirect followed; resolves with the answer once its head arrived.
 */
export function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  addresses: ResolvedAddress[],
  signal: AbortSignal,
) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        lookup: checkedLookup(addresses),
        signal,
        agent: false,
      },
      resolve,
    );
    request.on('error', reject);
    request.end(body);
  });
}
