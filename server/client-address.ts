/**
 * Who is calling, as far as the host can vouch for it: the socket's address, or the address
 * the reverse proxies in front of the host say they saw. Limits key on it, so a visitor who
 * spends their own allowance never spends anyone else's.
 */

/** What the host knows about a request that the request itself cannot be trusted to say. */
export interface RequestInfo {
  /** The peer address of the socket (`toNodeHandler` and the service's `serve()` pass it). */
  clientAddress?: string;
}

/**
 * Which forwarding headers to believe. `0` (the default): none, the socket's address counts.
 * A number N: N reverse proxies you run sit in front of this server and each appends the address
 * it saw to `X-Forwarded-For`, so the client is N entries from its right end. `'cloudflare'`:
 * Cloudflare's `CF-Connecting-IP` (the default inside Cloudflare Workers, where Cloudflare sets it).
 * Trust only what your own proxies set: a client can write any forwarding header it likes.
 */
export type TrustProxy = number | 'cloudflare';

/** Inside Cloudflare Workers, whose `navigator.userAgent` says so; there is no socket to ask. */
function onCloudflareWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';
}

/** Checks a `trustProxy` setting once, when a helper or the service is created. */
export function checkTrustProxy(value: TrustProxy | undefined): TrustProxy {
  if (value === undefined) return onCloudflareWorkers() ? 'cloudflare' : 0;
  if (value === 'cloudflare' || (Number.isInteger(value) && value >= 0 && value <= 16)) return value;
  throw new TypeError(
    `[agent-chat] trustProxy must be a hop count from 0 to 16 or "cloudflare", not ${JSON.stringify(value)}.`,
  );
}

/** The client's address, or undefined when neither the socket nor a trusted header gives one. */
export function clientAddress(
  request: Request,
  info: RequestInfo | undefined,
  trustProxy: TrustProxy,
): string | undefined {
  const socket = normalize(info?.clientAddress);
  if (trustProxy === 'cloudflare') return normalize(request.headers.get('CF-Connecting-IP')) ?? socket;
  if (trustProxy === 0) return socket;
  // Hop 0 is the socket (the nearest proxy); each entry of X-Forwarded-For, from the right, is one hop further.
  const forwarded = (request.headers.get('X-Forwarded-For') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .reverse();
  const hops = socket ? [socket, ...forwarded] : forwarded;
  const hop = socket ? trustProxy : trustProxy - 1;
  // Fewer entries than proxies: the request did not pass them all; take the furthest one seen.
  const chosen = hops[Math.min(hop, hops.length - 1)];
  return normalize(chosen) ?? socket;
}

/**
 * Whether a request came through fewer proxies than `trustProxy` counts: it carries
 * `X-Forwarded-For` with fewer entries than hops (each proxy appends one). Behind a setting one
 * hop too high that is every visitor who sends none, while one who sends a forged entry picks
 * the address the limits count; a request without the header (a health check that bypasses the
 * proxies) says nothing.
 */
export function fewerHopsThanTrusted(request: Request, trustProxy: TrustProxy): number | undefined {
  const header = request.headers.get('X-Forwarded-For');
  if (trustProxy === 'cloudflare' || trustProxy === 0 || header === null) return undefined;
  const entries = header.split(',').filter((part) => part.trim()).length;
  return entries > 0 && entries < trustProxy ? entries : undefined;
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

/** An IP address without port, brackets or IPv4-mapped prefix, lower case; undefined if it is none. */
function normalize(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  let address = value.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  address = address.replace(/%.*$/, '');
  if (address.startsWith('::ffff:') && IPV4.test(address.slice(7))) address = address.slice(7);
  if (IPV4.test(address)) return address;
  return expandIpv6(address) ? address : undefined;
}

/** The eight groups of an IPv6 address, or undefined when it is not one. */
function expandIpv6(address: string): number[] | undefined {
  if (!/^[0-9a-f:.]+$/.test(address) || address.split('::').length > 2) return undefined;
  let tail: number[] = [];
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) is the last two groups.
  if (address.includes('.')) {
    const at = address.lastIndexOf(':');
    const v4 = address.slice(at + 1);
    if (at < 0 || !IPV4.test(v4)) return undefined;
    const [a, b, c, d] = v4.split('.').map(Number);
    tail = [(a << 8) | b, (c << 8) | d];
    address = address.slice(0, at + 1);
    if (!address.endsWith('::')) address = address.slice(0, -1);
  }
  const [left, right] = address.includes('::') ? address.split('::') : [address, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':') : []);
  const head = parse(left);
  const rest = parse(right);
  if ([...head, ...rest].some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const fill = 8 - tail.length - head.length - rest.length;
  if (right === undefined ? fill !== 0 : fill < 1) return undefined;
  return [
    ...head.map((g) => parseInt(g, 16)),
    ...Array<number>(right === undefined ? 0 : fill).fill(0),
    ...rest.map((g) => parseInt(g, 16)),
    ...tail,
  ];
}

/**
 * The key limits count an address under: an IPv4 address as it is, an IPv6 address by its /64
 * (one subscriber usually holds a whole /64, so counting single addresses would let one visitor
 * appear as billions).
 */
export function addressKey(address: string): string {
  const groups = expandIpv6(address);
  if (!groups || IPV4.test(address)) return address;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
