import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeHandler } from '../../../../server/node.js';
import { createAgentService, memoryStores, type AgentServiceOptions } from '../../../../service/index.js';
import { serve, type RunningService } from '../../../../service/node.js';
import { ADMIN, CONSOLE, addAdmin } from '../../../fixtures/console.js';
import { BASE, PROJECT, makeService } from '../../../fixtures/service.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function served(options: Partial<AgentServiceOptions> = {}) {
  const running: RunningService = await serve(
    createAgentService({ projects: [PROJECT], storage: memoryStores(), ...options }),
    {
      port: 0,
      log: () => {},
    },
  );
  closers.push(() => running.close());
  return running.url;
}

/** A request on a raw socket, so the test decides the Host header. */
function rawGet(url: string, path: string, host: string) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, method: 'GET', path, setHost: false, headers: { Host: host } },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('a malformed Host header', () => {
  it.each([
    'exa mple.com',
    'evil.example/path',
    'user@evil.example',
    '[::1',
    'example.com:70000',
    'example.com:port',
    '',
  ])('answers 400 JSON for %j, never 500', async (host) => {
    const url = await served();
    const response = await rawGet(url, `/agent/v1/projects/${PROJECT.id}/agent/threads/`, host);
    expect(response.status).toBe(400);
    expect(response.type).toMatch(/^application\/json/);
    expect(JSON.parse(response.body)).toEqual({
      detail: 'The Host header is malformed.',
      code: 'invalid_request',
    });
  });

  it.each([
    'agent.example.com',
    'agent.example.com:8443',
    '127.0.0.1:8787',
    '[::1]:8787',
    'localhost',
    'internal_host',
  ])('takes a well-formed one: %s', async (host) => {
    const url = await served();
    const response = await rawGet(url, `/agent/v1/projects/${PROJECT.id}/agent/threads/`, host);
    expect(response.status).toBe(401);
  });
});

/** A request on a raw socket with a request target of the test's own (Node's client sends it as given). */
interface RawAnswer {
  status: number;
  type: string | undefined;
  sniff: string | undefined;
  body: string;
}

function rawCall(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const { hostname, port } = new URL(url);
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = httpRequest({ hostname, port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          type: res.headers['content-type'],
          sniff: res.headers['x-content-type-options'] as string | undefined,
          body: text,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the request target', () => {
  it("is a path even when it starts with //: another host named there never passes the console's origin check", async () => {
    const storage = memoryStores();
    const url = await served({ storage, console: CONSOLE });
    await addAdmin(storage);
    const signIn = await fetch(`${url}/console/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: url, 'Sec-Fetch-Site': 'same-origin' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = signIn.headers.get('Set-Cookie')!.split(';')[0];
    const { csrf_token: csrf } = (await signIn.json()) as { csrf_token: string };
    // What a page on evil.test could send without Sec-Fetch-Site (an older browser), had it the
    // cookie and the token: the Origin check is the layer under test.
    const change = (path: string) =>
      rawCall(
        url,
        'POST',
        path,
        {
          Origin: 'https://evil.test',
          Cookie: cookie,
          'X-CSRF-Token': csrf,
          'Content-Type': 'application/json',
        },
        JSON.stringify({ name: 'Planted' }),
      );
    expect(JSON.parse((await change('/console/api/projects')).body).code).toBe('cross_site');
    // Read as a reference, //evil.test/… took evil.test for the service's own host: 201.
    for (const path of ['//evil.test/console/api/projects', '/\\evil.test/console/api/projects'])
      expect([path, (await change(path)).status]).toEqual([path, 404]);
    expect((await storage.directory.listProjects()).map((p) => p.name)).not.toContain('Planted');
  });

  it("hands a handler behind toNodeHandler the Host header's host and the whole path", async () => {
    const seen: string[] = [];
    const server: Server = createServer(
      toNodeHandler(async (request) => (seen.push(request.url), new Response('ok'))),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as AddressInfo;
    await rawCall(`http://127.0.0.1:${port}`, 'GET', '//evil.test/session?x=1');
    expect(seen).toEqual([`http://127.0.0.1:${port}//evil.test/session?x=1`]);
  });

  it('answers TRACE, a method Fetch cannot carry, with 501 JSON, not an empty 500', async () => {
    // (Node's parser itself refuses TRACK, and takes CONNECT apart from requests.)
    const url = await served();
    const response = await rawCall(url, 'TRACE', `/agent/v1/projects/${PROJECT.id}/agent/threads/`);
    expect([response.status, response.type]).toEqual([501, 'application/json']);
    expect(JSON.parse(response.body)).toEqual({
      detail: 'TRACE is not served here.',
      code: 'not_implemented',
    });
  });
});

describe('answers written before the service', () => {
  it('say nosniff, as every answer does: a malformed Host, TRACE, /healthz and /readyz', async () => {
    const url = await served();
    const answers = [
      await rawCall(url, 'GET', '/agent/', { Host: 'exa mple.com' }),
      await rawCall(url, 'TRACE', '/'),
      await rawCall(url, 'GET', '/healthz'),
      await rawCall(url, 'GET', '/readyz'),
    ];
    expect(answers.map((a) => [a.status, a.sniff])).toEqual([
      [400, 'nosniff'],
      [501, 'nosniff'],
      [200, 'nosniff'],
      [200, 'nosniff'],
    ]);
  });
});

describe('known and unknown projects answer unauthenticated calls alike', () => {
  const other = { id: 'proj_other', apiKey: 'key_other', integrationIds: ['int_x'] };
  const cases: [
    string,
    string,
    string,
    (token: string | undefined, otherToken: string) => Record<string, string>,
  ][] = [
    ['POST', '/agent/sessions/', 'no key', () => ({})],
    ['POST', '/agent/sessions/', 'a wrong key', () => ({ 'X-API-Key': 'key_guess' })],
    ['POST', '/agent/sessions/', "another project's key", () => ({ 'X-API-Key': 'key_other' })],
    ['GET', '/activity/', 'no key', () => ({})],
    ['POST', '/agent/chat/', 'no token', () => ({})],
    ['POST', '/agent/chat/', 'an unknown token', () => ({ Authorization: 'Bearer ses_guess' })],
    [
      'POST',
      '/agent/chat/',
      "another project's token",
      (_t, otherToken) => ({ Authorization: `Bearer ${otherToken}` }),
    ],
    ['GET', '/agent/threads/', 'no token', () => ({})],
    [
      'GET',
      '/agent/threads/th_1/',
      "another project's token",
      (_t, otherToken) => ({ Authorization: `Bearer ${otherToken}` }),
    ],
    ['DELETE', '/agent/threads/th_1/', 'no token', () => ({})],
    ['POST', '/agent/feedback/', 'no token', () => ({})],
    ['GET', '/agent/answers/msg_1/stream/', 'no token', () => ({})],
    [
      'POST',
      '/agent/answers/msg_1/cancel/',
      'an unknown token',
      () => ({ Authorization: 'Bearer ses_guess' }),
    ],
  ];

  it.each(cases)('%s %s with %s', async (method, tail, _name, headers) => {
    const ctx = makeService({ projects: [PROJECT, other] });
    const minted = await ctx.call('POST', `${BASE}/agent/v1/projects/${other.id}/agent/sessions/`, {
      apiKey: other.apiKey,
    });
    const otherToken = ((await minted.json()) as { session_token: string }).session_token;
    const path = (project: string) =>
      tail.startsWith('/agent')
        ? `${BASE}/agent/v1/projects/${project}${tail}`
        : `${BASE}/query/v1/projects/${project}${tail}`;
    const body =
      method === 'POST' || method === 'PATCH' ? { integration_id: 'int_demo', message: 'hi' } : undefined;
    const known = await ctx.call(method, path(PROJECT.id), { headers: headers(undefined, otherToken), body });
    const unknown = await ctx.call(method, path('proj_does_not_exist'), {
      headers: headers(undefined, otherToken),
      body,
    });
    expect(known.status).toBe(401);
    expect(unknown.status).toBe(known.status);
    expect(await unknown.json()).toEqual(await known.json());
  });

  it('still serves the project to a caller with the right key', async () => {
    const ctx = makeService();
    expect(
      (
        await ctx.call('POST', `${BASE}/agent/v1/projects/${PROJECT.id}/agent/sessions/`, {
          apiKey: PROJECT.apiKey,
        })
      ).status,
    ).toBe(200);
  });
});

describe('the client address reaches the agent limit', () => {
  const chatFrom = async (url: string, headers: Record<string, string> = {}) => {
    const minted = await fetch(`${url}/agent/v1/projects/${PROJECT.id}/agent/sessions/`, {
      method: 'POST',
      headers: { 'X-API-Key': PROJECT.apiKey },
    });
    const { session_token: token } = (await minted.json()) as { session_token: string };
    const response = await fetch(`${url}/agent/v1/projects/${PROJECT.id}/agent/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ integration_id: 'int_demo', message: 'hi' }),
    });
    await response.arrayBuffer();
    return response.status;
  };

  it('through toNodeHandler (the socket): new tokens from one address do not get around it', async () => {
    const service = createAgentService({
      projects: [PROJECT],
      rateLimit: { requests: 2, windowMs: 60_000 },
    });
    const server: Server = createServer(toNodeHandler(service.handle));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect([await chatFrom(url), await chatFrom(url), await chatFrom(url)]).toEqual([200, 200, 429]);
  });

  it('behind trusted proxies (trustProxy): each visitor has their own allowance, a forged header no extra one', async () => {
    const url = await served({ rateLimit: { requests: 2, windowMs: 60_000 }, trustProxy: 1 });
    const alice = (forged = '') => chatFrom(url, { 'X-Forwarded-For': `${forged}198.51.100.7` });
    expect([await alice(), await alice('6.6.6.6, '), await alice('7.7.7.7, ')]).toEqual([200, 200, 429]);
    expect(await chatFrom(url, { 'X-Forwarded-For': '203.0.113.9' })).toBe(200);
  });

  it('one hop too high: a visitor picks their address, and the service says once that trustProxy is too high', async () => {
    const logs: Record<string, unknown>[] = [];
    // One proxy in front (it appends the address it saw), trustProxy counting two.
    const url = await served({
      rateLimit: { requests: 2, windowMs: 60_000 },
      trustProxy: 2,
      log: (entry) => logs.push(entry),
    });
    const statuses = [];
    for (let i = 1; i <= 3; i++)
      statuses.push(await chatFrom(url, { 'X-Forwarded-For': `6.6.6.${i}, 198.51.100.7` }));
    expect(statuses).toEqual([200, 200, 200]);
    await chatFrom(url, { 'X-Forwarded-For': '198.51.100.8' });
    await chatFrom(url, { 'X-Forwarded-For': '198.51.100.9' });
    expect(logs.filter((entry) => entry.msg === 'trust_proxy_too_high')).toEqual([
      expect.objectContaining({ level: 'warn', trustProxy: 2, forwarded: 1 }),
    ]);
  });

  it('the right hop count takes no warning, nor does a request that bypasses the proxies', async () => {
    const logs: Record<string, unknown>[] = [];
    const url = await served({ trustProxy: 1, log: (entry) => logs.push(entry) });
    await chatFrom(url, { 'X-Forwarded-For': '6.6.6.6, 198.51.100.7' });
    await chatFrom(url, { 'X-Forwarded-For': '198.51.100.7' });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(logs.filter((entry) => entry.msg === 'trust_proxy_too_high')).toEqual([]);
  });

  it("without trustProxy, X-Forwarded-For is a visitor's claim and changes nothing", async () => {
    const url = await served({ rateLimit: { requests: 2, windowMs: 60_000 } });
    const statuses = [];
    for (let i = 1; i <= 3; i++) statuses.push(await chatFrom(url, { 'X-Forwarded-For': `198.51.100.${i}` }));
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('in a Worker (trustProxy "cloudflare"): CF-Connecting-IP', async () => {
    const ctx = makeService({ rateLimit: { requests: 1, windowMs: 60_000 }, trustProxy: 'cloudflare' });
    const chat = async (address: string) => {
      const response = await ctx.call('POST', `${BASE}/agent/v1/projects/${PROJECT.id}/agent/chat/`, {
        token: await ctx.session(),
        headers: { 'CF-Connecting-IP': address },
        body: { integration_id: 'int_demo', message: 'hi' },
      });
      await response.text();
      return response.status;
    };
    expect([await chat('203.0.113.9'), await chat('203.0.113.9'), await chat('198.51.100.7')]).toEqual([
      200, 429, 200,
    ]);
  });
});
