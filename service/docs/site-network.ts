/**
 * Where a docs crawl may connect (decision 650). A source is added by a console admin, who is not
 * necessarily the machine's operator: a crawl of `http://169.254.169.254/` or of an intranet
 * host would read the service's own network into an index the admin can search. So a crawl
 * reaches public addresses only, checked on the addresses it connects to (every answer for a
 * name, each request resolved afresh and connected to exactly those: a name that turns private
 * after the first check, DNS rebinding, is refused at that request), unless the operator allows
 * the service's own network, or named the site themselves (`--docs`).
 */
import { type Resolve, type ResolvedAddress, hostAddresses, systemResolve } from '../kernel/addresses.js';
import type { ConnectionPool, pinnedGet } from '../kernel/node-network.js';

/** The setting as an operator writes it, for the words that name it. */
const ALLOW_PRIVATE_DOCS_SETTING = '--allow-private-docs (AGENT_CHAT_ALLOW_PRIVATE_DOCS=1)';

export interface SiteNetwork {
  /** Every address may be crawled, the service's own network too: the operator's setting. */
  allowPrivate: boolean;
  /** Sites the operator named (`--docs`): their origins are crawled wherever they are. */
  operatorSites?: readonly string[];
  /** How names resolve (every address of one). Default: the system's resolver. */
  resolve?: Resolve;
}

/** A crawl refused an address: it stops there, and the words say why and what allows it. */
export class SiteAddressError extends Error {
  override name = 'SiteAddressError';
}

/** A crawl's `fetch` (`siteFetch`), with the connections it keeps open between requests. */
export type SiteFetch = typeof fetch & {
  /** Closes every connection it holds: the crawl ended, or was stopped. */
  close(): void;
};

/**
 * A `fetch` for the crawler (GET, its headers, its signal) that connects only to addresses
 * `network` allows, each request's own check deciding: it reuses a connection (keep-alive) only
 * to the addresses that check gave for that host. A refused address rejects with
 * `SiteAddressError`, before any byte is sent. `close` when the crawl ends.
 */
export function siteFetch(network: SiteNetwork): SiteFetch {
  // Node's transport, loaded at the first request (the core also runs where Node is not).
  let transport: Promise<{ get: typeof pinnedGet; pool: ConnectionPool }> | undefined;
  const get: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const signal = init?.signal ?? undefined;
    const addresses = await checkedAddresses(network, url, signal);
    transport ??= import('../kernel/node-network.js').then((node) => ({
      get: node.pinnedGet,
      pool: new node.ConnectionPool(),
    }));
    const { get, pool } = await transport;
    return get(url, Object.fromEntries(new Headers(init?.headers)), addresses, signal, pool);
  };
  return Object.assign(get, { close: () => void transport?.then(({ pool }) => pool.close()) });
}

/**
 * The addresses of `url`'s host, every one checked against `network`: a refused one throws
 * `SiteAddressError`, saying why and what allows it (a source added in the console is checked
 * so before it is kept, and each request of its crawl again).
 */
export async function checkedAddresses(
  network: SiteNetwork,
  url: URL,
  signal?: AbortSignal,
): Promise<ResolvedAddress[]> {
  const { host, addresses, notPublic } = await hostAddresses(url, network.resolve ?? systemResolve, signal);
  if (!addresses.length) throw new Error(`${host} resolves to no address`);
  if (notPublic && !network.allowPrivate && !isOperatorSite(network, url))
    throw new SiteAddressError(
      `${notPublic}: docs are crawled on the service’s own network only when its operator gives the site with --docs, or starts the service with ${ALLOW_PRIVATE_DOCS_SETTING}.`,
    );
  return addresses;
}

/** Whether the operator named this site (`--docs`): its origin is crawled wherever it is. */
const isOperatorSite = (network: SiteNetwork, url: URL) =>
  (network.operatorSites ?? []).some((site) => URL.canParse(site) && new URL(site).origin === url.origin);
