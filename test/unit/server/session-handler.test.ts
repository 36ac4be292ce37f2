import { describe, expect, it, vi } from 'vitest';
import { createSessionHandler } from '../../../server/index.js';
import { AGENT, BASE, PROJECT, makeService } from '../../fixtures/service.js';

function setup(getOwnerId: (request: Request) => string | null = () => null, apiKey = PROJECT.apiKey) {
  const ctx = makeService();
  const upstream: Request[] = [];
  const handler = createSessionHandler({
    apiKey,
    projectId: PROJECT.id,
    baseUrl: BASE,
    getOwnerId,
    // Limits per address have their own tests (session-limits); here requests carry no address.
    rateLimit: false,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      upstream.push(request.clone());
      return ctx.service.handle(request);
    },
  });
  return { ctx, handler, upstream };
}

const browserPost = (body?: string, headers: Record<string, string> = {}) =>
  new Request('https://shop.example/api/agent-session', { method: 'POST', body, headers });

describe('createSessionHandler', () => {
  it('mints a session for the owner from getOwnerId and answers with no-store', async () => {
    const { ctx, handler, upstream } = setup((request) =>
      request.headers.get('Cookie') === 'user=alice' ? 'alice' : null,
    );
    const response = await handler(browserPost(undefined, { Cookie: 'user=alice' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const { session_token } = await response.json();
    expect(upstream[0].headers.get('X-API-Key')).toBe(PROJECT.apiKey);
    expect(await upstream[0].json()).toEqual({ external_owner_id: 'alice' });
    expect((await ctx.call('GET', `${AGENT}/threads/`, { token: session_token })).status).toBe(200);
  });

  it('ignores an external_owner_id sent by the browser', async () => {
    const { ctx, handler, upstream } = setup(() => null);
    const response = await handler(
      browserPost(JSON.stringify({ external_owner_id: 'alice' }), {
        'Content-Type': 'application/json',
        'X-Owner-Id': 'alice',
      }),
    );
    const { session_token } = await response.json();
    expect(upstream[0].body).toBeNull();
    const history = await ctx.call('GET', `${AGENT}/threads/`, { token: session_token });
    expect(history.status).toBe(403);
  });

  it('passes a service error through unchanged', async () => {
    const { handler } = setup(() => 'alice', 'key_wrong');
    const response = await handler(browserPost());
    expect(response.status).toBe(401);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(await response.json()).toEqual({
      detail: 'Missing or invalid X-API-Key for this project: check the project id and the API key.',
      code: 'invalid_api_key',
    });
  });

  it('answers 405 to anything but POST', async () => {
    const { handler } = setup();
    const response = await handler(new Request('https://shop.example/api/agent-session'));
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('POST');
  });

  it('turns a hanging service into a 502 JSON error after the timeout', async () => {
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: 'p',
      baseUrl: BASE,
      getOwnerId: () => null,
      timeoutMs: 50,
      fetch: (_input, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
        ),
    });
    const started = Date.now();
    const response = await handler(browserPost());
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      detail: 'The agent service did not answer within 50 ms.',
      code: 'service_unavailable',
    });
  });

  it('turns an unreachable service into a 502 JSON error', async () => {
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: 'p',
      baseUrl: BASE,
      getOwnerId: () => null,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const response = await handler(browserPost());
    expect(response.status).toBe(502);
    expect((await response.json()).code).toBe('service_unavailable');
  });
});

/** Runs `fn` and returns what it wrote with console.warn, one string a call. */
async function warnings(fn: () => Promise<unknown>): Promise<string[]> {
  const warned: string[] = [];
  const spy = vi
    .spyOn(console, 'warn')
    .mockImplementation((...args: unknown[]) => void warned.push(args.join(' ')));
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return warned;
}

// The visitor reads "couldn't start" and the browser a status; the site's own log says what to
// fix, as the PHP and Python endpoints' do (decision 677).
describe("createSessionHandler tells the site's log about a session the service did not give", () => {
  const sessions = `${AGENT}/sessions/`;

  it("a refusal: the URL called and the service's detail, never the key", async () => {
    const { handler } = setup(() => 'alice', 'key_wrong_0123');
    const warned = await warnings(() => handler(browserPost()));
    expect(warned).toEqual([
      `[agent-chat] POST ${sessions} answered 401: Missing or invalid X-API-Key for this project: check the project id and the API key.`,
    ]);
    expect(warned.join('')).not.toContain('key_wrong_0123');
  });

  it('a service that cannot be reached: the URL and the cause', async () => {
    const handler = createSessionHandler({
      rateLimit: false,
      apiKey: 'k',
      projectId: PROJECT.id,
      baseUrl: BASE,
      getOwnerId: () => null,
      fetch: async () => {
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
      },
    });
    const warned = await warnings(() => handler(browserPost()));
    expect(warned).toEqual([
      `[agent-chat] POST ${sessions} failed: The agent service could not be reached. (Error: connect ECONNREFUSED 127.0.0.1:9)`,
    ]);
  });

  it("a minted session and the handler's own 405 say nothing", async () => {
    const { handler } = setup(() => 'alice');
    const warned = await warnings(async () => {
      expect((await handler(browserPost())).status).toBe(200);
      expect((await handler(new Request('https://shop.example/api/agent-session'))).status).toBe(405);
    });
    expect(warned).toEqual([]);
  });
});

describe('createSessionHandler without a client address', () => {
  it('warns once, saying how to fix it, and still mints', async () => {
    // A fresh copy of the module: the warning is once per process.
    vi.resetModules();
    const { createSessionHandler: fresh } = await import('../../../server/index.js');
    const ctx = makeService();
    const warned: unknown[][] = [];
    const spy = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args));
    try {
      const handler = fresh({
        apiKey: PROJECT.apiKey,
        projectId: PROJECT.id,
        baseUrl: BASE,
        getOwnerId: () => null,
        fetch: (input, init) => ctx.service.handle(new Request(input, init)),
      });
      expect((await handler(browserPost())).status).toBe(200);
      expect((await handler(browserPost())).status).toBe(200);
      // With an address, nothing to say.
      expect((await handler(browserPost(), { clientAddress: '203.0.113.7' })).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
    expect(warned).toHaveLength(1);
    expect(String(warned[0][0])).toMatch(/no client address.*toNodeHandler.*clientAddress.*trustProxy/);
  });
});
