import { describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../../src/api/api-client.js';
import { AuthError } from '../../../src/api/errors.js';
import { TokenManager } from '../../../src/session/token-manager.js';
import { countingSource } from '../../fixtures/sessions.js';
import { urlOf } from '../../helpers/requests.js';

const PAGE = { threads: [], next_cursor: null };

/** A fake service that rejects the tokens listed in `rejected` with 401. */
function fakeService(rejected: (token: string) => boolean) {
  const seen: string[] = [];
  const fetch = vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
    const token = new Headers(init?.headers).get('Authorization')?.replace('Bearer ', '') ?? '';
    seen.push(token);
    if (rejected(token)) return Response.json({ detail: 'expired', code: 'invalid_token' }, { status: 401 });
    return Response.json(PAGE);
  });
  return { fetch, seen };
}

function client(fetch: typeof globalThis.fetch) {
  const tokens = countingSource();
  const api = createApiClient({
    baseUrl: 'https://svc.test',
    projectId: 'p1',
    integrationId: 'i1',
    tokens: new TokenManager(tokens.source),
    fetch,
  });
  return { api, tokenFetches: tokens.calls };
}

describe('createApiClient auth', () => {
  it('on one 401 discards the token, fetches a fresh one and succeeds', async () => {
    const service = fakeService((token) => token === 'tok-1');
    const { api, tokenFetches } = client(service.fetch);
    await expect(api.listThreads()).resolves.toEqual(PAGE);
    expect(service.seen).toEqual(['tok-1', 'tok-2']);
    expect(tokenFetches()).toBe(2);
  });

  it('on a second 401 fails with AuthError after exactly 2 token fetches', async () => {
    const service = fakeService(() => true);
    const { api, tokenFetches } = client(service.fetch);
    const error = await api.listThreads().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(tokenFetches()).toBe(2);
    expect(service.fetch).toHaveBeenCalledTimes(2);
  });

  it('refetches once when 5 concurrent requests all hit a 401', async () => {
    const service = fakeService((token) => token === 'tok-1');
    const { api, tokenFetches } = client(service.fetch);
    const pages = await Promise.all(Array.from({ length: 5 }, () => api.listThreads()));
    expect(pages).toEqual(Array(5).fill(PAGE));
    expect(tokenFetches()).toBe(2);
    expect(service.seen.filter((token) => token === 'tok-2')).toHaveLength(5);
  });

  it('sends the bearer token, never cookies, X-API-Key or an owner id', async () => {
    const service = fakeService(() => false);
    const { api } = client(service.fetch);
    await api.listThreads({ limit: 5, cursor: 'c1' });
    const [url, init] = service.fetch.mock.calls[0];
    expect(urlOf(url)).toBe('https://svc.test/agent/v1/projects/p1/agent/threads/?limit=5&cursor=c1');
    expect(init?.credentials).toBe('omit');
    const headers = new Headers(init?.headers);
    expect(headers.get('Authorization')).toBe('Bearer tok-1');
    expect(headers.has('X-API-Key')).toBe(false);
    expect(urlOf(url)).not.toContain('owner');
  });
});
