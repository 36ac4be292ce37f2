import { describe, expect, it } from 'vitest';
import { memoryStores } from '../../../../service/index.js';
import { AGENT, PROJECT, makeService } from '../../../fixtures/service.js';

describe('rate limits', () => {
  it('caps session minting per project: an anonymous minting loop gets 429', async () => {
    const { call } = makeService({ sessionMintLimit: { requests: 20, windowMs: 60_000 } });
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++)
      statuses.push((await call('POST', `${AGENT}/sessions/`, { apiKey: PROJECT.apiKey })).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429]);
  });

  it('limits per owner, whatever token the owner holds', async () => {
    const ctx = makeService({ rateLimit: { requests: 3, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++)
      expect((await ctx.call('GET', `${AGENT}/threads/`, { token: await ctx.session('alice') })).status).toBe(
        200,
      );
    const limited = await ctx.call('GET', `${AGENT}/threads/`, { token: await ctx.session('alice') });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect((await ctx.call('GET', `${AGENT}/threads/`, { token: await ctx.session('bob') })).status).toBe(
      200,
    );
  });

  it('limits sessions without owner per client address', async () => {
    const { service, session } = makeService({ rateLimit: { requests: 2, windowMs: 60_000 } });
    const chat = async (token: string, clientAddress: string) => {
      const response = await service.handle(
        new Request(`${AGENT}/chat/`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}` },
          body: JSON.stringify({ integration_id: 'int_demo', message: 'hi' }),
        }),
        { clientAddress },
      );
      await response.text();
      return response.status;
    };
    expect([
      await chat(await session(), '198.51.100.7'),
      await chat(await session(), '198.51.100.7'),
      await chat(await session(), '198.51.100.7'),
    ]).toEqual([200, 200, 429]);
    expect(await chat(await session(), '203.0.113.9')).toBe(200);
  });

  it('purges expired sessions and spent rate windows, and events past retention', async () => {
    const ctx = makeService({
      rateLimit: { requests: 5, windowMs: 60_000 },
      tokenTtlMs: 1000,
      eventRetentionMs: 86_400_000,
    });
    const token = await ctx.session('alice');
    await ctx.call('GET', `${AGENT}/threads/`, { token });
    ctx.clock.advance(2 * 86_400_000);
    const done = await ctx.service.maintain();
    expect(done).toEqual({
      sessions: 1,
      events: 1,
      answers: 0,
      rateWindows: 0,
      files: 0,
      idempotencyKeys: 0,
      conversations: 0,
      deliveries: 0,
      widgetReleases: 0,
    });
    expect(await ctx.service.storage.directory.getSession(token)).toBeUndefined();
  });
});

describe('rate limits: a full rate table', () => {
  it('evicts its oldest windows rather than refuse a new visitor', async () => {
    const { service, session } = makeService({
      storage: memoryStores({ maxRateWindows: 3 }),
      rateLimit: { requests: 2, windowMs: 60_000 },
    });
    const chat = async (token: string, clientAddress: string) => {
      const response = await service.handle(
        new Request(`${AGENT}/threads/`, { headers: { Authorization: `Bearer ${token}` } }),
        { clientAddress },
      );
      return response.status;
    };
    const anonymous = await session();
    // A flood of addresses (one token, many IPv6 networks) fills the table many times over...
    for (let i = 0; i < 50; i++) expect(await chat(anonymous, `2001:db8:${i.toString(16)}::1`)).toBe(403);
    // ...and a new visitor is still served; a limited one is still limited.
    expect(await chat(await session('newcomer'), '198.51.100.1')).toBe(200);
    const carol = await session('carol');
    expect([
      await chat(carol, '198.51.100.2'),
      await chat(carol, '198.51.100.2'),
      await chat(carol, '198.51.100.2'),
    ]).toEqual([200, 200, 429]);
  });
});
