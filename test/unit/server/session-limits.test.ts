import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSessionHandler, toNodeHandler, type SessionHandlerOptions } from '../../../server/node.js';
import { createAgentService } from '../../../service/index.js';
import { serve, type RunningService } from '../../../service/node.js';
import { PROJECT } from '../../fixtures/service.js';

/**
 * The site's session endpoint in front of a real service, both over real sockets: the
 * service's per-project mint ceiling is the site's whole budget, and the helper's per-address
 * limit keeps one visitor from spending it for everyone.
 */
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.unstubAllGlobals();
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function site(helper: Partial<SessionHandlerOptions> = {}, mintCeiling = 20) {
  const service: RunningService = await serve(
    createAgentService({
      projects: [PROJECT],
      rateLimit: false,
      sessionMintLimit: { requests: mintCeiling, windowMs: 60_000 },
    }),
    { port: 0, log: () => {} },
  );
  closers.push(() => service.close());
  const handler = createSessionHandler({
    apiKey: PROJECT.apiKey,
    projectId: PROJECT.id,
    baseUrl: service.url,
    getOwnerId: () => null,
    ...helper,
  });
  const server: Server = createServer(toNodeHandler(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/agent-session`;
  /** One visitor's request, as the proxy in front of the site forwards it. */
  const mint = async (visitor?: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: visitor ? { 'X-Forwarded-For': visitor } : {},
    });
    await response.arrayBuffer();
    return response.status;
  };
  return { mint, handler };
}

async function times(n: number, fn: () => Promise<number>) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push(await fn());
  return statuses;
}

describe('the session helper limits per client address', () => {
  it("before: without it, one visitor in a loop spends the project's mint ceiling and everyone else gets 429", async () => {
    const { mint } = await site({ rateLimit: false, trustProxy: 1 }, 20);
    await times(20, () => mint('198.51.100.7'));
    expect(await mint('203.0.113.9')).toBe(429);
  });

  it('after: the looping visitor is limited at the site, and the others never notice', async () => {
    const { mint } = await site({ rateLimit: { requests: 5, windowMs: 60_000 }, trustProxy: 1 }, 20);
    const hammering = await times(30, () => mint('198.51.100.7'));
    expect(hammering.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(hammering.slice(5))).toEqual(new Set([429]));
    // 25 refusals never reached the service: its budget is almost whole.
    expect(await times(10, () => mint('203.0.113.9')).then((s) => s.slice(0, 5))).toEqual([
      200, 200, 200, 200, 200,
    ]);
    expect(await mint('192.0.2.44')).toBe(200);
  });

  it('limits by default (20 a minute), keyed on the socket, ignoring forwarding headers it was not told to trust', async () => {
    const { mint } = await site({}, 100);
    // The same socket address whatever X-Forwarded-For claims: spoofing it does not reset the count.
    const statuses = await times(22, () => mint(`198.51.100.${Math.floor(Math.random() * 250)}`));
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
  });

  it('counts an IPv6 visitor by /64, so rotating addresses in one block does not help', async () => {
    const { mint } = await site({ rateLimit: { requests: 3, windowMs: 60_000 }, trustProxy: 1 });
    const statuses = await times(5, () =>
      mint(`2001:db8:1:2::${Math.floor(Math.random() * 65_535).toString(16)}`),
    );
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(await mint('2001:db8:1:3::1')).toBe(200);
  });

  it('answers 429 with Retry-After in seconds and the JSON error body', async () => {
    const { handler } = await site({ rateLimit: { requests: 1, windowMs: 30_000 } });
    const post = () =>
      handler(new Request('https://shop.example/api/agent-session', { method: 'POST' }), {
        clientAddress: '198.51.100.7',
      });
    expect((await post()).status).toBe(200);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(29);
    expect(await refused.json()).toEqual({
      detail: 'Too many sessions requested; try again later.',
      code: 'rate_limited',
    });
  });

  it('keeps memory bounded: past 10,000 addresses the oldest windows go, and new visitors are still served', async () => {
    const handler = createSessionHandler({
      apiKey: 'k',
      projectId: 'p',
      baseUrl: 'http://127.0.0.1:9',
      getOwnerId: () => null,
      rateLimit: { requests: 1, windowMs: 60_000 },
      fetch: async () => Response.json({ session_token: 't', expires_at: '2026-11-21T10:00:00Z' }),
    });
    const post = (address: string) =>
      handler(new Request('https://shop.example/s', { method: 'POST' }), { clientAddress: address }).then(
        (r) => r.status,
      );
    for (let i = 0; i < 10_050; i++)
      expect(await post(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)).toBe(200);
    // The first addresses were evicted (their window forgotten), the newest are still counted.
    expect(await post('10.0.0.0')).toBe(200);
    expect(await post(`10.0.39.65`)).toBe(429);
    // 10,050 mints with an owner-key HMAC each: about a second alone, far more on a busy machine.
  }, 60_000);

  it('inside Cloudflare Workers, trusts CF-Connecting-IP without being told', async () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    const seen: (string | undefined)[] = [];
    const handler = createSessionHandler({
      apiKey: 'k',
      projectId: 'p',
      baseUrl: 'https://agent.example',
      getOwnerId: () => null,
      rateLimit: (_request, { clientAddress }) => void seen.push(clientAddress),
      fetch: async () => Response.json({ session_token: 't', expires_at: '2026-11-21T10:00:00Z' }),
    });
    await handler(
      new Request('https://shop.example/s', {
        method: 'POST',
        headers: { 'CF-Connecting-IP': '203.0.113.9' },
      }),
    );
    vi.unstubAllGlobals();
    const elsewhere = createSessionHandler({
      apiKey: 'k',
      projectId: 'p',
      baseUrl: 'https://agent.example',
      getOwnerId: () => null,
      rateLimit: (_request, { clientAddress }) => void seen.push(clientAddress),
      fetch: async () => Response.json({ session_token: 't', expires_at: '2026-11-21T10:00:00Z' }),
    });
    await elsewhere(
      new Request('https://shop.example/s', {
        method: 'POST',
        headers: { 'CF-Connecting-IP': '203.0.113.9' },
      }),
    );
    expect(seen).toEqual(['203.0.113.9', undefined]);
  });

  it('refuses a nonsense setting when the handler is made, not per visitor', () => {
    const make = (options: Partial<SessionHandlerOptions>) => () =>
      createSessionHandler({
        apiKey: 'k',
        projectId: 'p',
        baseUrl: 'https://agent.example',
        getOwnerId: () => null,
        ...options,
      });
    expect(make({ trustProxy: -2 })).toThrow(/trustProxy/);
    expect(make({ rateLimit: { requests: 0, windowMs: 60_000 } })).toThrow(/rateLimit/);
  });
});
