import { describe, expect, it } from 'vitest';
import { AGENT, BASE, PROJECT, errorBody, makeService } from '../../../fixtures/service.js';

describe('sessions (§1)', () => {
  it('mints a 3600 s token with a microsecond, Z-terminated expires_at', async () => {
    const { call, clock } = makeService();
    const response = await call('POST', `${AGENT}/sessions/`, { apiKey: PROJECT.apiKey });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'session_token']);
    expect(body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(Date.parse(body.expires_at.replace(/(\.\d{3})\d{3}Z$/, '$1Z'))).toBe(clock.now() + 3_600_000);
  });

  it.each([
    ['missing', undefined],
    ['wrong', 'key_wrong'],
  ])('answers 401 invalid_api_key for a %s X-API-Key', async (_label, apiKey) => {
    const { call } = makeService();
    const response = await call('POST', `${AGENT}/sessions/`, { apiKey });
    expect(response.status).toBe(401);
    expect(await errorBody(response)).toEqual({ detail: expect.any(String), code: 'invalid_api_key' });
  });

  it('answers an unknown project like a known one with a wrong key: 401, so ids cannot be enumerated', async () => {
    const { call } = makeService();
    const unknown = await call('POST', `${BASE}/agent/v1/projects/proj_nope/agent/sessions/`, {
      apiKey: PROJECT.apiKey,
    });
    const known = await call('POST', `${AGENT}/sessions/`, { apiKey: 'key_wrong' });
    expect(unknown.status).toBe(401);
    expect(await errorBody(unknown)).toEqual(await errorBody(known));
  });

  it.each([
    ['malformed JSON', { rawBody: '{"external_owner_id":' }],
    ['an array', { body: ['x'] }],
    ['an unknown field', { body: { external_owner_id: 'u1', role: 'admin' } }],
    ['a numeric owner', { body: { external_owner_id: 42 } }],
    ['an empty owner', { body: { external_owner_id: '' } }],
    ['a 257-character owner', { body: { external_owner_id: 'x'.repeat(257) } }],
  ])('answers 400 invalid_request for %s', async (_label, options) => {
    const { call } = makeService();
    const response = await call('POST', `${AGENT}/sessions/`, { apiKey: PROJECT.apiKey, ...options });
    expect(response.status).toBe(400);
    expect((await errorBody(response)).code).toBe('invalid_request');
  });

  it('accepts a 256-character owner', async () => {
    const { session } = makeService();
    await expect(session('x'.repeat(256))).resolves.toMatch(/^ses_/);
  });

  it('answers 413 payload_too_large for a body over 64 KiB', async () => {
    const { call } = makeService();
    const response = await call('POST', `${AGENT}/sessions/`, {
      apiKey: PROJECT.apiKey,
      body: { external_owner_id: 'x'.repeat(70_000) },
    });
    expect(response.status).toBe(413);
    expect((await errorBody(response)).code).toBe('payload_too_large');
  });
});

describe('bearer authentication (§3)', () => {
  it.each([
    ['missing', undefined],
    ['unknown', 'ses_0000'],
  ])('answers 401 invalid_token for a %s token', async (_label, token) => {
    const { call } = makeService();
    const response = await call('GET', `${AGENT}/threads/`, { token });
    expect(response.status).toBe(401);
    expect((await errorBody(response)).code).toBe('invalid_token');
  });

  it('accepts a token until it expires on the service clock, then answers 401', async () => {
    const { call, clock, session } = makeService();
    const token = await session('alice');
    clock.advance(3_599_999);
    expect((await call('GET', `${AGENT}/threads/`, { token })).status).toBe(200);
    clock.advance(1);
    const response = await call('GET', `${AGENT}/threads/`, { token });
    expect(response.status).toBe(401);
    expect((await errorBody(response)).code).toBe('invalid_token');
  });

  it('rejects a token of another project', async () => {
    const other = { id: 'proj_other', apiKey: 'key_other', integrationIds: ['int_x'] };
    const { call } = makeService({ projects: [PROJECT, other] });
    const minted = await call('POST', `${BASE}/agent/v1/projects/proj_other/agent/sessions/`, {
      apiKey: 'key_other',
      body: { external_owner_id: 'alice' },
    });
    const { session_token } = await minted.json();
    expect((await call('GET', `${AGENT}/threads/`, { token: session_token })).status).toBe(401);
  });

  it('answers 429 rate_limited with Retry-After once the per-token limit is spent, and recovers', async () => {
    const { call, clock, session } = makeService({ rateLimit: { requests: 3, windowMs: 10_000 } });
    const token = await session('alice');
    for (let i = 0; i < 3; i += 1)
      expect((await call('GET', `${AGENT}/threads/`, { token })).status).toBe(200);
    clock.advance(4_000);
    const limited = await call('GET', `${AGENT}/threads/`, { token });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toBe('6');
    expect((await errorBody(limited)).code).toBe('rate_limited');
    const otherToken = await session('bob');
    expect((await call('GET', `${AGENT}/threads/`, { token: otherToken })).status).toBe(200);
    clock.advance(6_000);
    expect((await call('GET', `${AGENT}/threads/`, { token })).status).toBe(200);
  });
});
