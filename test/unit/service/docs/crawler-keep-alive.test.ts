/**
 * A crawl's connections (decision 662): kept open between its requests, only ever reused for the
 * host whose check gave the addresses they go to, sent again once when the server closed one as
 * the request went out, and all closed when the crawl ends or is stopped. The sites are local
 * servers on 127.0.0.1 (and 127.0.0.2), counting the connections they accept.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFolder, type StaticSite } from '../../../../scripts/static-site.mjs';
import { DocsLibrary } from '../../../../service/docs/library.js';
import { type SiteNetwork, siteFetch } from '../../../../service/docs/site-network.js';
import type { ResolvedAddress } from '../../../../service/kernel/addresses.js';
import { ManualClock } from '../../../../service/kernel/clock.js';
import { ConnectionPool, pinnedGet } from '../../../../service/kernel/node-network.js';
import { memoryStores } from '../../../../service/storage/memory/index.js';

const SITE = join(import.meta.dirname, '../../../fixtures/docs-site');
const closers: (() => unknown)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const P = 'proj_a';
const LOCAL: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];

/** A resolver that answers each name with the next of its addresses (the last one from then on). */
function resolver(names: Record<string, string[]>) {
  const asked: Record<string, number> = {};
  return async (host: string): Promise<ResolvedAddress[]> => {
    const answers = names[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const address = answers[Math.min((asked[host] = (asked[host] ?? -1) + 1), answers.length - 1)];
    return [{ address, family: 4 }];
  };
}

/** The fixture site, with `routes` of the test's own. */
async function serve(routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {}) {
  const site = await serveFolder(SITE, { routes });
  closers.push(() => site.close());
  return site;
}

/** A library whose crawls reach `site` at docs.local.test (the operator allows its own network). */
function library(site: StaticSite, network: Partial<SiteNetwork> = {}) {
  const docs = new DocsLibrary({
    store: memoryStores().docs,
    clock: new ManualClock(),
    crawl: { retryDelayMs: 1, timeoutMs: 2_000 },
    network: { allowPrivate: true, resolve: resolver({ 'docs.local.test': ['127.0.0.1'] }), ...network },
  });
  closers.push(() => docs.close());
  return { docs, start: `http://docs.local.test:${new URL(site.url).port}/docs/` };
}

/** Until `done` holds, or `ms` has passed: a closed connection reaches the server a moment later. */
async function eventually(done: () => boolean, ms = 1_000) {
  for (const until = Date.now() + ms; !done() && Date.now() < until;)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * A server that answers each request "ok" and keeps the connection, except that `drop` decides,
 * from the connection's number (1, 2…) and its request's (1, 2…), to close it as the request
 * arrives, unanswered: what a server closing an idle connection does as the request is on its way.
 */
async function keptAliveServer(
  drop: (connection: number, request: number) => boolean,
  host = '127.0.0.1',
  port = 0,
) {
  let connections = 0;
  const requests: number[] = [];
  const server = createServer((req, res) => {
    const socket = req.socket as Socket & { number?: number; served?: number };
    socket.number ??= ++connections;
    socket.served = (socket.served ?? 0) + 1;
    requests.push(socket.number);
    if (drop(socket.number, socket.served)) return socket.destroy();
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  closers.push(() => (server.closeAllConnections(), new Promise((done) => server.close(done))));
  return { url: new URL(`http://${host}:${(server.address() as AddressInfo).port}/`), requests };
}

describe('a crawl keeps its connections open between requests', () => {
  it('reads a site on as many connections as it makes requests at once, and closes them at its end', async () => {
    const site = await serve();
    const { docs, start } = library(site);
    await docs.addSource(P, start);
    await docs.tick();
    const [source] = await docs.sources(P);
    expect(source.lastRun?.complete).toBe(true);
    expect(source.pages).toBe(6);
    expect(site.requests.length).toBeGreaterThan(6);
    // Four requests at once (the crawl's default): about four connections, however many pages
    // (one more now and then: a connection is free a moment after its answer was read).
    expect(site.connections.accepted).toBeLessThanOrEqual(6);
    expect(site.connections.accepted).toBeLessThan(site.requests.length / 2);
    // Nothing left open once the crawl is saved: the pool is closed, not left to its idle timeout.
    await eventually(() => site.connections.open === 0, 1_000);
    expect(site.connections.open).toBe(0);
  });

  it('closes every connection when the crawl is stopped, a request under way among them', async () => {
    let hung = 0;
    const site = await serve({
      // Answers nothing: the crawl is stopped while this request waits.
      '/docs/reference/config.html': () => void hung++,
    });
    const { docs, start } = library(site);
    await docs.addSource(P, start);
    const crawl = docs.tick();
    await eventually(() => hung > 0, 2_000);
    expect(hung).toBe(1);
    expect(site.connections.open).toBeGreaterThan(0);
    await docs.close();
    await crawl;
    await eventually(() => site.connections.open === 0, 1_000);
    expect(site.connections.open).toBe(0);
  });

  it('sends a request again, once and on a new connection, when the server closed the kept one under it', async () => {
    // The second request arrives on the first connection, which the server closes unanswered.
    const server = await keptAliveServer((connection, request) => connection === 1 && request === 2);
    const pool = new ConnectionPool();
    closers.push(() => pool.close());
    for (const _ of [1, 2, 3]) {
      const response = await pinnedGet(server.url, {}, LOCAL, undefined, pool);
      expect(await response.text()).toBe('ok');
    }
    // 1, then 1 closed and 2 for the retry (a connection not kept), and the third on a new one.
    expect(server.requests).toEqual([1, 1, 2, 3]);
  });

  it('sends it again only once: a server that closes every connection it reuses fails the request', async () => {
    // Only a connection's first request is answered, and only on the first connection.
    const server = await keptAliveServer((connection, request) => connection > 1 || request > 1);
    const pool = new ConnectionPool();
    closers.push(() => pool.close());
    expect(await (await pinnedGet(server.url, {}, LOCAL, undefined, pool)).text()).toBe('ok');
    await expect(pinnedGet(server.url, {}, LOCAL, undefined, pool)).rejects.toThrow(/socket hang up/);
    expect(server.requests).toEqual([1, 1, 2]);
  });

  it('keeps the connection of a short body left unread, and closes that of a long one', async () => {
    let connections = 0;
    const server = createServer((req, res) => {
      const size = req.url === '/long' ? 1024 * 1024 : 100;
      res.writeHead(404, { 'Content-Type': 'text/html', 'Content-Length': size }).end('x'.repeat(size));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => (server.closeAllConnections(), new Promise((done) => server.close(done))));
    const url = (path: string) => new URL(path, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const pool = new ConnectionPool();
    closers.push(() => pool.close());
    // As the crawler drops a 404's body: cancelled, unread.
    for (const path of ['/short', '/short', '/long', '/short'])
      await (await pinnedGet(url(path), {}, LOCAL, undefined, pool)).body?.cancel();
    // The short ones share one connection; the long one's (1 MiB, not read for nothing) is closed.
    expect(connections).toBe(2);
  });

  it('never reuses a connection for another host, nor for its host once it resolves elsewhere', async () => {
    // One port on two loopback addresses: which server answers says where a request went.
    const first = await keptAliveServer(() => false);
    const port = Number(first.url.port);
    const second = await keptAliveServer(() => false, '127.0.0.2', port);
    const resolve = resolver({
      'a.docs.test': ['127.0.0.1', '127.0.0.1', '127.0.0.2'],
      'b.docs.test': ['127.0.0.1'],
    });
    const fetch = siteFetch({ allowPrivate: true, resolve });
    closers.push(() => fetch.close());
    const read = async (host: string) => (await fetch(`http://${host}:${port}/`)).text();
    for (const host of ['a.docs.test', 'a.docs.test', 'a.docs.test', 'b.docs.test'])
      expect(await read(host)).toBe('ok');
    // a.docs.test twice on one connection; then it resolved elsewhere, and went there; b.docs.test
    // at a.docs.test's first address got a connection of its own.
    expect(first.requests).toEqual([1, 1, 2]);
    expect(second.requests).toEqual([1]);
  });
});
