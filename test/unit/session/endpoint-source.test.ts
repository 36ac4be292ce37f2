import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endpointTokenSource } from '../../../src/session/endpoint-source.js';
import { TokenManager } from '../../../src/session/token-manager.js';
import { SessionError } from '../../../src/api/errors.js';
import { isoMicros } from '../../fixtures/sessions.js';

const HOUR = 3_600_000;
const SERVER_NOW = Date.UTC(2026, 10, 21, 10, 0, 0);

/** A fake session endpoint whose clock is SERVER_NOW, whatever the visitor's clock says. */
function serverEndpoint() {
  let minted = 0;
  const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => {
    minted += 1;
    return new Response(
      JSON.stringify({ session_token: `tok-${minted}`, expires_at: isoMicros(SERVER_NOW + HOUR) }),
      {
        headers: { 'Content-Type': 'application/json', Date: new Date(SERVER_NOW).toUTCString() },
      },
    );
  });
  return { fetch, minted: () => minted };
}

describe('endpointTokenSource', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('POSTs with no body, Accept: application/json and same-origin credentials', async () => {
    vi.setSystemTime(SERVER_NOW);
    const endpoint = serverEndpoint();
    await endpointTokenSource('/api/agent-session', { fetch: endpoint.fetch })(new AbortController().signal);
    const init = endpoint.fetch.mock.calls[0][1]!;
    expect(init.method).toBe('POST');
    expect(init.body).toBeUndefined();
    expect(init.credentials).toBe('same-origin');
    expect(new Headers(init.headers).get('Accept')).toBe('application/json');
    expect(new Headers(init.headers).has('X-API-Key')).toBe(false);
  });

  it("adds the page's headers, asking a function anew before each request, and keeps Accept", async () => {
    vi.setSystemTime(SERVER_NOW);
    const endpoint = serverEndpoint();
    let nonce = 0;
    const signals: AbortSignal[] = [];
    const headers = vi.fn(async (signal: AbortSignal) => {
      signals.push(signal);
      return { 'X-WP-Nonce': `nonce-${++nonce}`, Accept: 'text/html' };
    });
    const source = endpointTokenSource('/s', { fetch: endpoint.fetch, headers: () => headers });
    const controller = new AbortController();
    await source(controller.signal);
    await source(controller.signal);
    const sent = endpoint.fetch.mock.calls.map(([, init]) => new Headers(init!.headers));
    expect(sent.map((h) => h.get('X-WP-Nonce'))).toEqual(['nonce-1', 'nonce-2']);
    expect(sent.map((h) => h.get('Accept'))).toEqual(['application/json', 'application/json']);
    expect(signals).toEqual([controller.signal, controller.signal]);
    // A plain object works too, and a page may change it between requests.
    let current: HeadersInit | undefined = { 'X-CSRF-Token': 'abc' };
    const plain = endpointTokenSource('/s', { fetch: endpoint.fetch, headers: () => current });
    await plain(controller.signal);
    current = undefined;
    await plain(controller.signal);
    const [withToken, without] = endpoint.fetch.mock.calls
      .slice(2)
      .map(([, init]) => new Headers(init!.headers));
    expect(withToken.get('X-CSRF-Token')).toBe('abc');
    expect(without.has('X-CSRF-Token')).toBe(false);
  });

  it('turns a headers function that fails into session_failed, without calling the endpoint', async () => {
    const endpoint = serverEndpoint();
    const source = endpointTokenSource('/s', {
      fetch: endpoint.fetch,
      headers: () => async () => {
        throw new TypeError('nonce unavailable');
      },
    });
    const error = (await source(new AbortController().signal).catch((e: unknown) => e)) as SessionError;
    expect(error).toBeInstanceOf(SessionError);
    expect(error.code).toBe('session_failed');
    expect(String((error.cause as Error).message)).toContain('nonce unavailable');
    expect(endpoint.minted()).toBe(0);
  });

  for (const [label, skew] of [
    ['+2 h', 2 * HOUR],
    ['-2 h', -2 * HOUR],
  ] as const) {
    it(`with the visitor clock ${label} off, uses the token for its real hour without looping`, async () => {
      vi.setSystemTime(SERVER_NOW + skew);
      const endpoint = serverEndpoint();
      const manager = new TokenManager(endpointTokenSource('/s', { fetch: endpoint.fetch }));
      for (let i = 0; i < 5; i += 1) expect(await manager.getToken()).toBe('tok-1');
      vi.setSystemTime(SERVER_NOW + skew + HOUR - 31_000);
      expect(await manager.getToken()).toBe('tok-1');
      vi.setSystemTime(SERVER_NOW + skew + HOUR - 29_000);
      expect(await manager.getToken()).toBe('tok-2');
      expect(endpoint.minted()).toBe(2);
    });
  }

  it.each([
    [500, 'server error'],
    [403, 'forbidden'],
  ])('turns HTTP %i into a session_failed error carrying the status', async (status) => {
    const source = endpointTokenSource('/s', {
      fetch: async () => new Response('<html>oops</html>', { status }),
    });
    const error = await source(new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionError);
    expect(error).toMatchObject({ code: 'session_failed', status });
  });

  it('turns a 2xx body in neither form into a session_failed error', async () => {
    const source = endpointTokenSource('/s', { fetch: async () => Response.json({ hello: 'world' }) });
    await expect(source(new AbortController().signal)).rejects.toMatchObject({
      code: 'session_failed',
      status: 200,
    });
  });

  it('turns a 2xx non-JSON body into a session_failed error', async () => {
    const source = endpointTokenSource('/s', { fetch: async () => new Response('ok') });
    await expect(source(new AbortController().signal)).rejects.toMatchObject({ code: 'session_failed' });
  });

  it('turns a network failure into a session_failed error with its cause', async () => {
    const source = endpointTokenSource('/s', {
      fetch: async () => {
        throw new TypeError('Failed to fetch');
      },
    });
    const error = (await source(new AbortController().signal).catch((e: unknown) => e)) as SessionError;
    expect(error.code).toBe('session_failed');
    expect(error.status).toBeUndefined();
    expect(String((error.cause as Error).message)).toContain('Failed to fetch');
  });

  it("prints an error answer's JSON detail (what the site must fix) once in the console, and nothing for one without", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const detail = 'AGENT_CHAT_API_KEY is not set on this server.';
      const source = endpointTokenSource('/s', {
        fetch: async () => Response.json({ detail, code: 'misconfigured' }, { status: 500 }),
      });
      for (let i = 0; i < 2; i++) {
        await expect(source(new AbortController().signal)).rejects.toMatchObject({
          code: 'session_failed',
          status: 500,
        });
      }
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toContain('/s');
      expect(String(warn.mock.calls[0][0])).toContain(detail);

      const html = endpointTokenSource('/t', {
        fetch: async () => new Response('<h1>502</h1>', { status: 502 }),
      });
      await expect(source(new AbortController().signal)).rejects.toMatchObject({ status: 500 });
      await expect(html(new AbortController().signal)).rejects.toMatchObject({ status: 502 });
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });
});
