import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueryClient, createSessionHandler, NetworkError, ownerKey } from '../../../server/index.js';

/** Real sockets: redirects, stalls and oversized bodies are what Node's own fetch does with them. */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = () => new Request('https://shop.example/api/agent-session', { method: 'POST' });

/** workerd's fetch, as far as redirects go: it rejects `redirect: 'error'` (its own words). */
const workerdFetch: typeof fetch = async (input, init) => {
  if (init?.redirect === 'error')
    throw new TypeError(
      'Invalid redirect value, must be one of "follow" or "manual" ("error" won\'t be implemented since it does not make sense at the edge; use "manual" and check the response status code).',
    );
  return fetch(input, init);
};

/** A browser's answer to `redirect: 'manual'`: an opaque redirect, status 0, no Location. */
const opaqueRedirect = () =>
  Object.defineProperty(new Response(null, { status: 200 }), 'type', { value: 'opaqueredirect' });
const SESSION = JSON.stringify({ session_token: 'tok', expires_at: '2026-11-21T10:00:00Z' });

describe('createSessionHandler against a real service socket', () => {
  it('does not follow a redirect: the API key never reaches the other host, and the answer is 502', async () => {
    const keysSeen: Array<string | undefined> = [];
    const elsewhere = await serve((req, res) => {
      keysSeen.push(req.headers['x-api-key'] as string | undefined);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(SESSION);
    });
    const service = await serve((_req, res) => res.writeHead(307, { Location: `${elsewhere}/steal` }).end());
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'secret-key',
      projectId: 'p',
      baseUrl: service,
      getOwnerId: () => 'alice',
    });
    const response = await handler(post());
    expect(response.status).toBe(502);
    expect((await response.json()).code).toBe('service_unavailable');
    expect(keysSeen).toEqual([]);
  });

  it('asks for redirects by hand, so a runtime that refuses redirect "error" (workerd) still mints sessions and refuses redirects', async () => {
    const keysSeen: Array<string | undefined> = [];
    const elsewhere = await serve((req, res) => {
      keysSeen.push(req.headers['x-api-key'] as string | undefined);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(SESSION);
    });
    const service = await serve((req, res) => {
      if (req.url?.includes('/projects/moved/'))
        return void res.writeHead(301, { Location: `${elsewhere}/steal` }).end();
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(SESSION);
    });
    const ok = createSessionHandler({
      rateLimit: false,
      apiKey: 'secret-key',
      projectId: 'p',
      baseUrl: service,
      getOwnerId: () => 'alice',
      fetch: workerdFetch,
    });
    expect((await ok(post())).status).toBe(200);
    const moved = createSessionHandler({
      rateLimit: false,
      apiKey: 'secret-key',
      projectId: 'moved',
      baseUrl: service,
      getOwnerId: () => 'alice',
      fetch: workerdFetch,
    });
    const response = await moved(post());
    expect(response.status).toBe(502);
    expect((await response.json()).detail).toMatch(/redirect/);
    expect(keysSeen).toEqual([]);
  });

  it('refuses a browser-style opaque redirect too', async () => {
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: 'p',
      baseUrl: 'https://agent.example.com',
      getOwnerId: () => null,
      fetch: async () => opaqueRedirect(),
    });
    const response = await handler(post());
    expect(response.status).toBe(502);
    expect((await response.json()).detail).toMatch(/redirect/);
  });

  it('answers the readable 502 when the service sends headers and then stalls', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"session_token":');
      // ...and never finishes.
    });
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: 'p',
      baseUrl: service,
      getOwnerId: () => null,
      timeoutMs: 300,
    });
    const started = Date.now();
    const response = await handler(post());
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      detail: 'The agent service did not answer within 300 ms.',
      code: 'service_unavailable',
    });
  });

  it('refuses an oversized service body instead of buffering it', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/html' });
      const chunk = 'x'.repeat(16 * 1024);
      for (let i = 0; i < 64; i++) res.write(chunk);
      res.end();
    });
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: 'p',
      baseUrl: service,
      getOwnerId: () => null,
    });
    const response = await handler(post());
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({
      code: 'service_unavailable',
      detail: expect.stringContaining('oversized'),
    });
  });

  it("turns an upstream error page into its own JSON 502: no HTML is served as the site's", async () => {
    const service = await serve((_req, res) =>
      res.writeHead(503, { 'Content-Type': 'text/html', 'Retry-After': '30' }).end('<h1>Down</h1>'),
    );
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: 'p',
      baseUrl: service,
      getOwnerId: () => null,
    });
    const response = await handler(post());
    expect(response.status).toBe(502);
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(response.headers.get('Retry-After')).toBe('30');
    expect(response.headers.get('Agent-Chat-Owner-Key')).toBeNull();
    expect(await response.json()).toEqual({
      detail: 'The agent service answered 503 with text/html instead of JSON.',
      code: 'service_unavailable',
    });
  });

  it.each([
    ['a 200 HTML page', 200, 'text/html', '<html>Welcome</html>'],
    ['a JSON type whose body is not JSON', 500, 'application/json', '<h1>oops</h1>'],
    ['a body without a type', 502, '', 'Bad Gateway'],
  ])('answers JSON 502 for %s', async (_name, status, type, body) => {
    const service = await serve((_req, res) =>
      res.writeHead(status, type ? { 'Content-Type': type } : {}).end(body),
    );
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: 'p',
      baseUrl: service,
      getOwnerId: () => null,
    });
    const response = await handler(post());
    expect(response.status).toBe(502);
    expect((await response.json()).code).toBe('service_unavailable');
  });

  it('sets Agent-Chat-Owner-Key to the HMAC that ownerKey() gives the page, and "-" without owner', async () => {
    const service = await serve((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(SESSION),
    );
    const make = (owner: string | null, ownerKeySecret?: string) =>
      createSessionHandler({
        rateLimit: false,
        apiKey: 'api-key',
        ownerKeySecret,
        projectId: 'p',
        baseUrl: service,
        getOwnerId: () => owner,
      });
    const alice = (await make('alice')(post())).headers.get('Agent-Chat-Owner-Key');
    expect(alice).toBe(await ownerKey('alice', 'api-key'));
    expect(alice).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(alice).not.toContain('alice');
    expect((await make('bob')(post())).headers.get('Agent-Chat-Owner-Key')).not.toBe(alice);
    expect((await make('alice', 'other-secret')(post())).headers.get('Agent-Chat-Owner-Key')).toBe(
      await ownerKey('alice', 'other-secret'),
    );
    expect((await make(null)(post())).headers.get('Agent-Chat-Owner-Key')).toBe('-');
  });

  it('asks the rateLimit hook first and answers 429 with Retry-After without calling the service', async () => {
    let calls = 0;
    const service = await serve((_req, res) => {
      calls++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(SESSION);
    });
    let budget = 1;
    const handler = createSessionHandler({
      apiKey: 'k',
      projectId: 'p',
      baseUrl: service,
      getOwnerId: () => null,
      rateLimit: () => (budget-- > 0 ? undefined : 12.2),
    });
    expect((await handler(post())).status).toBe(200);
    const refused = await handler(post());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Retry-After')).toBe('13');
    expect(await refused.json()).toMatchObject({ code: 'rate_limited' });
    expect(calls).toBe(1);
  });
});

describe('baseUrl', () => {
  const make = (baseUrl: string) => () =>
    createSessionHandler({ rateLimit: false, apiKey: 'k', projectId: 'p', baseUrl, getOwnerId: () => null });

  it('must be https, so the API key is never sent in clear text', () => {
    expect(make('http://agent.example.com')).toThrow(/https/);
    expect(() =>
      createQueryClient({ apiKey: 'k', projectId: 'p', baseUrl: 'http://agent.example.com' }),
    ).toThrow(/https/);
    expect(make('agent.example.com')).toThrow(/absolute URL/);
  });

  it('may be plain http on this machine only', () => {
    for (const base of [
      'https://agent.example.com',
      'http://localhost:8787',
      'http://127.0.0.1/service',
      'http://[::1]:3000',
    ])
      expect(make(base)).not.toThrow();
  });
});

describe('createQueryClient against a real socket', () => {
  it('does not follow a redirect with the API key', async () => {
    const keysSeen: unknown[] = [];
    const elsewhere = await serve((req, res) => {
      keysSeen.push(req.headers['x-api-key']);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    const service = await serve((_req, res) => res.writeHead(302, { Location: elsewhere }).end());
    const client = createQueryClient({ apiKey: 'secret-key', projectId: 'p', baseUrl: service });
    await expect(client.activity()).rejects.toBeInstanceOf(NetworkError);
    expect(keysSeen).toEqual([]);
  });

  it('asks for redirects by hand under workerd too, and refuses them', async () => {
    const keysSeen: unknown[] = [];
    const elsewhere = await serve((req, res) => {
      keysSeen.push(req.headers['x-api-key']);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    const service = await serve((_req, res) => res.writeHead(308, { Location: elsewhere }).end());
    const client = createQueryClient({
      apiKey: 'secret-key',
      projectId: 'p',
      baseUrl: service,
      fetch: workerdFetch,
    });
    await expect(client.activity()).rejects.toThrow(/redirect, which is not followed/);
    const opaque = createQueryClient({
      apiKey: 'k',
      projectId: 'p',
      baseUrl: 'https://agent.example.com',
      fetch: async () => opaqueRedirect(),
    });
    await expect(opaque.activity()).rejects.toThrow(/redirect, which is not followed/);
    expect(keysSeen).toEqual([]);
  });

  it('refuses an answer larger than its limit', async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 5 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const client = createQueryClient({ apiKey: 'k', projectId: 'p', baseUrl: service });
    await expect(client.activity()).rejects.toThrow(/limit/);
  });
});
