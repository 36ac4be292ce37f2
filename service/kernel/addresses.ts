/**
 * Which addresses are the public internet (IANA's special-purpose registries, decisions 626 and
 * 641), and how a name's every address is found: what a request the service makes for someone
 * who is not its operator (a webhook, a crawled docs site) may reach. Web APIs only: the system
 * resolver and the connection pinned to checked addresses are in `node-network.ts`, loaded when
 * first asked.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a name resolves to (the operating system's resolver, as a connection would). */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * The operating system's resolver, loaded when first asked: the service's core also runs where
 * Node's modules are not (under msw in the browser tests).
 */
export const systemResolve: Resolve = async (hostname) =>
  (await import('./node-network.js')).resolveAll(hostname);

const V4_TEXT = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** 4 or 6 for an IP address in its usual text (an IPv6 one without brackets), else 0. */
function isIP(text: string): 0 | 4 | 6 {
  if (V4_TEXT.test(text)) return 4;
  if (!text.includes(':')) return 0;
  try {
    new URL(`http://[${text}]/`);
    return 6;
  } catch {
    return 0;
  }
}

type Range = [prefix: bigint, bits: number, kind: string];

const v4 = (dotted: string) => dotted.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n);

/** IPv4 ranges that are not the public internet (IANA special-purpose registry, the parts that matter). */
const V4_RANGES: Range[] = [
  [v4('0.0.0.0'), 8, 'unspecified ("this network")'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'shared (carrier-grade NAT)'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link-local, where cloud metadata answers'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'reserved'],
  [v4('192.0.2.0'), 24, 'documentation'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'reserved (benchmarking)'],
  [v4('198.51.100.0'), 24, 'documentation'],
  [v4('203.0.113.0'), 24, 'documentation'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('240.0.0.0'), 4, 'reserved (and broadcast)'],
];

const v6 = (hex: string) => BigInt(`0x${hex.padEnd(32, '0')}`);

/**
 * IPv6 ranges that are not the public internet (IANA special-purpose registry), the most specific
 * first; those that carry an IPv4 address are checked by it (`carriedV4`), and everything outside
 * global unicast `2000::/3` is refused as reserved.
 */
const V6_RANGES: Range[] = [
  [0n, 128, 'unspecified'],
  [1n, 128, 'loopback'],
  [v6('000000000000000000000000'), 96, 'IPv4-compatible (deprecated)'],
  [v6('0064ff9b0001'), 48, 'local-use NAT64'],
  [v6('0100000000000000'), 64, 'reserved (discard)'],
  [v6('0100000000000001'), 64, 'reserved (dummy prefix)'],
  // Teredo's IPv4 parts (its server's, its client's inverted) name where the tunnel ends, which a
  // relay on the service's own network may reach: refused whole, as nothing answers a webhook there.
  [v6('20010000'), 32, 'Teredo tunnel'],
  [v6('200100020000'), 48, 'reserved (benchmarking)'],
  [v6('2001001'), 28, 'ORCHID identifier (deprecated)'],
  // Identifiers a host protocol resolves, not addresses the internet routes.
  [v6('2001002'), 28, 'ORCHIDv2 identifier, not routed'],
  [v6('2001003'), 28, 'DRIP entity tag, not routed'],
  [v6('2001'), 23, 'reserved (IETF protocol assignments)'],
  [v6('20010db8'), 32, 'documentation'],
  [v6('3fff'), 20, 'documentation'],
  [v6('5f00'), 16, 'segment-routing (SRv6) identifiers'],
  [v6('fc'), 7, 'unique-local'],
  [v6('fe8'), 10, 'link-local'],
  [v6('fec'), 10, 'site-local (deprecated)'],
  [v6('ff'), 8, 'multicast'],
];

/** The parts of the ranges above that IANA marks globally reachable (anycast services). */
const V6_REACHABLE: Range[] = [
  [v6('20010001') | 1n, 128, 'PCP anycast'],
  [v6('20010001') | 2n, 128, 'TURN anycast'],
  [v6('20010001') | 3n, 128, 'DNS-SD SRP anycast'],
  [v6('20010003'), 32, 'AMT'],
  [v6('200100040112'), 48, 'AS112'],
];

const within = (n: bigint, width: number, [prefix, bits]: Range) =>
  n >> BigInt(width - bits) === prefix >> BigInt(width - bits);

/** The IPv6 address (valid, by `isIP`) as 128 bits; a zone (`%eth0`) is left off. */
function v6Bits(text: string): bigint {
  let bare = text.split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (dotted) {
    const n = v4(dotted[1]);
    bare = `${bare.slice(0, dotted.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = bare.split('::');
  const first = head ? head.split(':') : [];
  const last = tail ? tail.split(':') : [];
  const groups = [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return groups.reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n);
}

/** The IPv4 address some IPv6 ranges carry: IPv4-mapped, NAT64 and 6to4. */
function carriedV4(n: bigint): bigint | undefined {
  if (n >> 32n === 0xffffn) return n & 0xffffffffn; // ::ffff:a.b.c.d
  if (n >> 32n === v6('0064ff9b') >> 32n) return n & 0xffffffffn; // 64:ff9b::a.b.c.d
  if (n >> 112n === 0x2002n) return (n >> 80n) & 0xffffffffn; // 2002:AABB:CCDD::
  return undefined;
}

/**
 * What kind of address this is when it is not a public one ("private", "loopback"…); undefined
 * for a public address. Takes an IP address as DNS gives it or as a URL's host (`[…]`).
 */
export function nonPublicKind(address: string): string | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const version = isIP(bare.split('%')[0]);
  if (version === 4) return V4_RANGES.find((r) => within(v4(bare), 32, r))?.[2];
  if (version !== 6) return 'not an IP address';
  const n = v6Bits(bare);
  const carried = carriedV4(n);
  if (carried !== undefined) {
    const kind = V4_RANGES.find((r) => within(carried, 32, r))?.[2];
    const dotted = [24n, 16n, 8n, 0n].map((shift) => (carried >> shift) & 255n).join('.');
    return kind && `${kind}: ${dotted} inside IPv6`;
  }
  if (V6_REACHABLE.some((r) => within(n, 128, r))) return undefined;
  const kind = V6_RANGES.find((r) => within(n, 128, r))?.[2];
  return kind ?? (n >> 125n === 1n ? undefined : 'reserved (outside global unicast 2000::/3)');
}

/** The promise, or its rejection once the signal aborts (a resolver may take longer than a timeout). */
export const bounded = <T>(promise: Promise<T>, signal: AbortSignal) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
    ),
  ]);

/** The addresses a URL's host stands for, and the first of them that is not public, in words. */
export interface HostAddresses {
  /** The host without brackets. */
  host: string;
  addresses: ResolvedAddress[];
  /** "127.0.0.1 is not a public address (loopback)", "x.test resolves to 10.0.0.7, not a public address (private)". */
  notPublic?: string;
  /** Whether one of them is public. */
  anyPublic: boolean;
}

/**
 * The addresses `url`'s host stands for: a literal IP as the URL parser wrote it
 * (`http://2130706433/` is 127.0.0.1), else every answer of `resolve`, each checked. Webhooks and
 * docs crawls say in their own words what allows more.
 */
export async function hostAddresses(
  url: URL,
  resolve: Resolve,
  signal?: AbortSignal,
): Promise<HostAddresses> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  const addresses = literal
    ? [{ address: host, family: literal }]
    : await (signal ? bounded(resolve(host), signal) : resolve(host));
  let notPublic: string | undefined;
  let anyPublic = false;
  for (const { address } of addresses) {
    const kind = nonPublicKind(address);
    anyPublic ||= kind === undefined;
    notPublic ??=
      kind &&
      `${literal ? `${address} is` : `${host} resolves to ${address},`} not a public address (${kind})`;
  }
  return { host, addresses, notPublic, anyPublic };
}
