import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../../service/index.js';
import { AGENT, PROJECT, QUERY, errorBody, makeService } from '../../../fixtures/service.js';
import { raw, served } from '../../../fixtures/served.js';

const agentPath = `/agent/v1/projects/${PROJECT.id}/agent`;

describe('paths, headers, caching, logs', () => {
  it('answers malformed percent-encoding with 400, logging nothing', async () => {
    const logs: LogEntry[] = [];
    const { call, session } = makeService({ log: (e) => logs.push(e) });
    const response = await call('GET', `${AGENT}/threads/%E0%A4%A/`, { token: await session('alice') });
    expect(response.status).toBe(400);
    expect((await errorBody(response)).code).toBe('invalid_request');
    expect(logs).toEqual([]);
  });

  it('never reflects the Host header in the 410 successor link', async () => {
    const { url } = await served({ projects: [PROJECT] });
    const link = await new Promise<string | undefined>((resolve, reject) => {
      const req = raw(url, {
        method: 'GET',
        path: `/query/v1/projects/${PROJECT.id}/analytics/activity/`,
        headers: { Host: 'evil.example' },
      });
      req
        .on('response', (res) => {
          res.resume();
          resolve(res.headers.link as string | undefined);
        })
        .on('error', reject)
        .end();
    });
    expect(link).toBe(`</query/v1/projects/${PROJECT.id}/activity/>; rel="successor-version"`);
  });

  it('sends X-Content-Type-Options: nosniff on every answer: JSON, errors, the chat stream, a preflight', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const answers = [
      await ctx.call('POST', `${AGENT}/sessions/`, {
        apiKey: PROJECT.apiKey,
        body: { external_owner_id: 'bob' },
      }),
      await ctx.call('GET', `${AGENT}/threads/`, { token }),
      await ctx.call('GET', `${AGENT}/threads/`, {}),
      await ctx.call('GET', `${QUERY}/activity/`, { apiKey: PROJECT.apiKey }),
      await ctx.call('GET', 'https://agent.test/no/such/path/', {}),
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: { message: 'hi', integration_id: 'int_demo' },
      }),
      await ctx.service.handle(
        new Request(`${AGENT}/chat/`, {
          method: 'OPTIONS',
          headers: { Origin: 'https://site.test', 'Access-Control-Request-Method': 'POST' },
        }),
      ),
    ];
    expect(answers.map((r) => [r.status, r.headers.get('X-Content-Type-Options')])).toEqual(
      answers.map((r) => [r.status, 'nosniff']),
    );
    await answers[5].body?.cancel();
  });

  it('sends Cache-Control: no-store on session and history answers', async () => {
    const ctx = makeService();
    const minted = await ctx.call('POST', `${AGENT}/sessions/`, {
      apiKey: PROJECT.apiKey,
      body: { external_owner_id: 'alice' },
    });
    expect(minted.headers.get('Cache-Control')).toBe('no-store');
    const token = (await minted.json()).session_token;
    const { threadId } = await ctx.chat(token, 'hello');
    expect((await ctx.call('GET', `${AGENT}/threads/`, { token })).headers.get('Cache-Control')).toBe(
      'no-store',
    );
    expect(
      (await ctx.call('GET', `${AGENT}/threads/${threadId}/`, { token })).headers.get('Cache-Control'),
    ).toBe('no-store');
    expect(
      (await ctx.call('GET', `${QUERY}/activity/`, { apiKey: PROJECT.apiKey })).headers.get('Cache-Control'),
    ).toBe('no-store');
  });

  it('logs requests without tokens, keys or message text', async () => {
    const { url, logs } = await served({ projects: [PROJECT] });
    const minted = await fetch(`${url}${agentPath}/sessions/`, {
      method: 'POST',
      headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
      body: '{"external_owner_id":"owner-secret-42"}',
    });
    const { session_token: token } = await minted.json();
    const chat = await fetch(`${url}${agentPath}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify({ integration_id: 'int_demo', message: 'my password is hunter2' }),
    });
    await chat.text();
    await fetch(`${url}${agentPath}/threads/?cursor=abc`, {
      headers: { Authorization: `Bearer ${token}` },
    }).then((r) => r.text());
    const text = JSON.stringify(logs);
    expect(logs.filter((e) => e.msg === 'request')).toHaveLength(3);
    for (const secret of [token, PROJECT.apiKey, 'hunter2', 'owner-secret-42', 'cursor=abc'])
      expect(text).not.toContain(secret);
  });
});
