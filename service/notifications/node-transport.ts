/**
 * What a webhook's attempt needs of Node (decision 626): a POST whose connection goes to the
 * addresses already checked (`../kernel/node-network.ts`). Loaded when first used,
 * so the service's core stays free of Node's modules.
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ResolvedAddress } from '../kernel/addresses.js';
import { checkedLookup } from '../kernel/node-network.js';

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
