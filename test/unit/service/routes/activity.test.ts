import { describe, expect, it } from 'vitest';
import { AGENT, BASE, PROJECT, QUERY, errorBody, makeService } from '../../../fixtures/service.js';

describe('activity (§6)', () => {
  it('computes totals, per-integration and per-day figures from what was recorded', async () => {
    const ctx = makeService();
    const alice = await ctx.session('alice');
    const { threadId } = await ctx.chat(alice, 'hello');
    await ctx.chat(alice, 'again', threadId);
    ctx.clock.advance(86_400_000);
    const bob = await ctx.session('bob');
    await ctx
      .call('POST', `${AGENT}/chat/`, { token: bob, body: { integration_id: 'int_other', message: 'hi' } })
      .then((r) => r.text());
    await ctx.session();
    // Deleting a thread does not rewrite history.
    await ctx.call('DELETE', `${AGENT}/threads/${threadId}/`, { token: alice });
    // What the fleet's timer does (a no-op where the rollup is computed live).
    await ctx.service.refreshActivity();

    const response = await ctx.call('GET', `${QUERY}/activity/?start=2026-11-21&end=2026-11-22`, {
      apiKey: PROJECT.apiKey,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      period: { start: '2026-11-21', end: '2026-11-22' },
      totals: {
        sessions: 3,
        threads: 2,
        messages: 6,
        upvotes: 0,
        downvotes: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        unique_owners: 2,
      },
      by_integration: [
        {
          integration_id: 'int_demo',
          sessions: 1,
          threads: 1,
          messages: 4,
          prompt_tokens: 0,
          completion_tokens: 0,
        },
        {
          integration_id: 'int_other',
          sessions: 1,
          threads: 1,
          messages: 2,
          prompt_tokens: 0,
          completion_tokens: 0,
        },
      ],
      by_day: [
        {
          date: '2026-11-21',
          sessions: 1,
          threads: 1,
          messages: 4,
          upvotes: 0,
          downvotes: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
        },
        {
          date: '2026-11-22',
          sessions: 2,
          threads: 1,
          messages: 2,
          upvotes: 0,
          downvotes: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
        },
      ],
      freshness: { as_of: '2026-11-22T09:00:00.000000Z', max_staleness_seconds: 60 },
    });
  });

  it('filters by integration_id', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    await ctx.chat(token, 'hello');
    await ctx.session('bob');
    await ctx.service.refreshActivity();
    const report = await (
      await ctx.call('GET', `${QUERY}/activity/?start=2026-11-21&end=2026-11-21&integration_id=int_demo`, {
        apiKey: PROJECT.apiKey,
      })
    ).json();
    expect(report.totals).toEqual({
      sessions: 1,
      threads: 1,
      messages: 2,
      upvotes: 0,
      downvotes: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      unique_owners: 1,
    });
  });

  it('defaults to the last 30 days', async () => {
    const ctx = makeService();
    const report = await (await ctx.call('GET', `${QUERY}/activity/`, { apiKey: PROJECT.apiKey })).json();
    expect(report.period).toEqual({ start: '2026-10-23', end: '2026-11-21' });
    expect(report.by_day).toHaveLength(30);
  });

  it('needs the API key', async () => {
    const ctx = makeService();
    const response = await ctx.call('GET', `${QUERY}/activity/`);
    expect(response.status).toBe(401);
    expect((await errorBody(response)).code).toBe('invalid_api_key');
  });

  it.each([
    'start=2026-13-01',
    'start=yesterday',
    'start=2026-11-22&end=2026-11-21',
    'start=2024-01-01&end=2026-01-01',
  ])('rejects %s with 400', async (query) => {
    const ctx = makeService();
    expect((await ctx.call('GET', `${QUERY}/activity/?${query}`, { apiKey: PROJECT.apiKey })).status).toBe(
      400,
    );
  });

  it('answers the removed analytics path with 410 gone, Deprecation, Sunset and a successor Link', async () => {
    const ctx = makeService();
    const response = await ctx.call('GET', `${QUERY}/analytics/activity/?start=2026-11-01`, {
      apiKey: PROJECT.apiKey,
    });
    expect(response.status).toBe(410);
    expect((await errorBody(response)).code).toBe('gone');
    expect(response.headers.get('Sunset')).toBe('Wed, 01 Jul 2026 23:59:59 GMT');
    expect(response.headers.get('Deprecation')).toMatch(/^@\d+$/);
    expect(response.headers.get('Link')).toBe(
      `<${BASE}/query/v1/projects/${PROJECT.id}/activity/>; rel="successor-version"`,
    );
  });
});
