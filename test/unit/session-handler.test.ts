import { describe, expect, it } from 'vitest';
import { createSessionHandler } from '../../server/index.js';
import { AGENT, BASE, PROJECT, makeService } from '../fixtures/service.js';

function setup(getOwnerId: (request: Request) => string | null = () => null, apiKey = PROJECT.apiKey) {
  const ctx = makeService();
  const upstream: Request[] = [];
  const handler = createSessionHandler({
    apiKey,
    projectId: PROJECT.id,
    baseUrl: BASE,
    getOwnerId,
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
    const { ctx, handler, upstream } = setup((request) => (request.headers.get('Cookie') === 'user=alice' ? 'alice' : null));
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
    const response = await handler(browserPost(JSON.stringify({ external_owner_id: 'alice' }), { 'Content-Type': 'application/json', 'X-Owner-Id': 'alice' }));
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
    expect(await response.json()).toEqual({ detail: 'Missing or invalid X-API-Key for this project: check the project id and the API key.', code: 'invalid_api_key' });
  });

  it('answers 405 to anything but POST', async () => {
    const { handler } = setup();
    const response = await handler(new Request('https://shop.example/api/agent-session'));
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('POST');
  });

  it('turns a hanging service into a 502 JSON error after the timeout', async () => {
    const handler = createSessionHandler({
      apiKey: 'k', projectId: 'p', baseUrl: BASE, getOwnerId: () => null, timeoutMs: 50,
      fetch: (_input, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason))),
    });
    const started = Date.now();
    const response = await handler(browserPost());
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ detail: 'The agent service did not answer within 50 ms.', code: 'service_unavailable' });
  });

  it('turns an unreachable service into a 502 JSON error', async () => {
    const handler = createSessionHandler({
      apiKey: 'k', projectId: 'p', baseUrl: BASE, getOwnerId: () => null,
      fetch: async () => { throw new TypeError('fetch failed'); },
    });
    const response = await handler(browserPost());
    expect(response.status).toBe(502);
    expect((await response.json()).code).toBe('service_unavailable');
  });
});
