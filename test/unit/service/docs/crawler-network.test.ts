/**
 * Where a docs crawl may connect (decision 650), attacked as a console admin or a hostile docs
 * site would: the service's own addresses named outright or in another spelling, names that
 * resolve to them, a redirect that leads there. The hostile hosts are a local site on 127.0.0.1
 * and a scripted resolver.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFolder, type StaticSite } from '../../../../scripts/static-site.mjs';
import { DocsInputError, DocsLibrary } from '../../../../service/docs/library.js';
import type { SiteNetwork } from '../../../../service/docs/site-network.js';
import type { ResolvedAddress } from '../../../../service/kernel/addresses.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import { memoryStores } from '../../../../service/storage/memory/index.js';

const SITE = join(import.meta.dirname, '../../../fixtures/docs-site');
const open: StaticSite[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((site) => site.close()));
});

const P = 'proj_a';
const SETTING =
  'docs are crawled on the service’s own network only when its operator gives the site with --docs, or starts the service with --allow-private-docs (AGENT_CHAT_ALLOW_PRIVATE_DOCS=1).';

/** A resolver that answers each name from `names`, recording what it was asked. */
function resolver(names: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    asked.push(host);
    const addresses = names[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

/** The fixture site, and `routes` of the test's own (a redirect). */
async function serve(routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {}) {
  const site = await serveFolder(SITE, { routes });
  open.push(site);
  return site;
}

/** Crawls `location` once as a source a console admin added; its run and what it indexed. */
async function crawl(location: string, network?: SiteNetwork) {
  const storage = memoryStores();
  const docs = new DocsLibrary({
    store: storage.docs,
    clock: new ManualClock(),
    crawl: { retryDelayMs: 1, timeoutMs: 2_000 },
    ...(network && { network }),
  });
  await docs.addSource(P, location);
  await docs.tick();
  const [source] = await docs.sources(P);
  return source;
}

/** Adds `location` as a source a console admin adds it: the words of its refusal, or null. */
async function refusal(location: string, network?: SiteNetwork) {
  const docs = new DocsLibrary({
    store: memoryStores().docs,
    clock: new ManualClock(),
    ...(network && { network }),
  });
  return docs.addSource(P, location).then(
    () => null,
    (error: unknown) =>
      error instanceof DocsInputError ? error.message : `not refused in words: ${String(error)}`,
  );
}

describe('a docs crawl reaches public addresses only, unless its operator allows more', () => {
  it('refuses the service’s own addresses by default, in any spelling, before any request', async () => {
    const site = await serve();
    const port = new URL(site.url).port;
    for (const [host, address, kind] of [
      ['127.0.0.1', '127.0.0.1', 'loopback'],
      // The URL parser writes these as 127.0.0.1 and [::ffff:7f00:1]: checked as written.
      ['2130706433', '127.0.0.1', 'loopback'],
      ['0x7f.1', '127.0.0.1', 'loopback'],
      ['[::ffff:127.0.0.1]', '::ffff:7f00:1', 'loopback: 127.0.0.1 inside IPv6'],
      ['[::1]', '::1', 'loopback'],
      ['169.254.169.254', '169.254.169.254', 'link-local, where cloud metadata answers'],
    ]) {
      // Refused when the admin adds it, in the words its crawl would give (decision 658).
      expect(await refusal(`http://${host}:${port}/docs/`), host).toBe(
        `${address} is not a public address (${kind}): ${SETTING}`,
      );
    }
    expect(site.requests).toEqual([]);
  });

  it('refuses a name that resolves to a private address, or to one among public ones', async () => {
    const site = await serve();
    const port = new URL(site.url).port;
    const dns = resolver({
      'metadata.evil.test': ['169.254.169.254'],
      'mixed.evil.test': ['93.184.215.14', '10.0.0.7'],
      'mapped.evil.test': ['::ffff:127.0.0.1'],
    });
    for (const [host, answer] of [
      [
        'metadata.evil.test',
        '169.254.169.254, not a public address (link-local, where cloud metadata answers)',
      ],
      ['mixed.evil.test', '10.0.0.7, not a public address (private)'],
      ['mapped.evil.test', '::ffff:127.0.0.1, not a public address (loopback: 127.0.0.1 inside IPv6)'],
    ]) {
      expect(
        await refusal(`http://${host}:${port}/docs/`, { allowPrivate: false, resolve: dns.resolve }),
      ).toBe(`${host} resolves to ${answer}: ${SETTING}`);
    }
    // A name that does not resolve yet is the crawl's to report: the source is kept.
    expect(
      await refusal(`http://unknown.evil.test:${port}/docs/`, { allowPrivate: false, resolve: dns.resolve }),
    ).toBe(null);
    expect(site.requests).toEqual([]);
  });

  it('resolves each request afresh and connects to exactly the addresses it checked', async () => {
    // The operator's setting lets the crawl reach 127.0.0.1; the system resolver does not know
    // docs.local.test, so every page read went to the address the scripted resolver gave.
    const site = await serve();
    const dns = resolver({ 'docs.local.test': ['127.0.0.1'] });
    const url = `http://docs.local.test:${new URL(site.url).port}/docs/`;
    const source = await crawl(url, { allowPrivate: true, resolve: dns.resolve });
    expect(source.lastRun?.complete).toBe(true);
    expect(source.pages).toBe(6);
    // One answer per request: a name that turned private between two requests is refused at the
    // second, as the tests above refuse it at the first.
    // (At least: a response whose body the crawl cancels may not be logged by the site.)
    expect(dns.asked.length).toBeGreaterThanOrEqual(site.requests.length);
    expect(site.requests.length).toBeGreaterThan(6);
    expect(site.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('crawls a site the operator named wherever it is, but not where it redirects off it', async () => {
    const site = await serve({
      // The start address sends the crawl to a host of its site that resolves to cloud metadata.
      '/docs/': (_req, res) =>
        res.writeHead(301, { Location: `http://metadata.docs.test:${new URL(site.url).port}/docs/` }).end(),
    });
    const port = new URL(site.url).port;
    const dns = resolver({ 'docs.test': ['127.0.0.1'], 'metadata.docs.test': ['169.254.169.254'] });
    const start = `http://docs.test:${port}/docs/`;
    const source = await crawl(start, { allowPrivate: false, operatorSites: [start], resolve: dns.resolve });
    expect(source.lastRun?.failures).toEqual([
      {
        url: expect.any(String),
        reason: `metadata.docs.test resolves to 169.254.169.254, not a public address (link-local, where cloud metadata answers): ${SETTING}`,
      },
    ]);
    // The operator's site was read up to its redirect; nothing was asked of the other host.
    // (A response whose body the crawl cancels may not be logged by the site: a subset, then.)
    expect(['/robots.txt', '/docs/sitemap.xml', '/docs/']).toEqual(
      expect.arrayContaining(site.requests.map((r) => r.path)),
    );
    expect(source.pages).toBe(0);
    expect(dns.asked.filter((host) => host === 'metadata.docs.test')).toEqual(['metadata.docs.test']);
  });
});
