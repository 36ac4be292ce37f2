import { request as httpRequest } from 'node:http';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentService, memoryStores } from '../../../service/index.js';
import { sleep } from '../../../service/agents/demo.js';
import { serve, type RunningService } from '../../../service/node.js';
import type { LogEntry } from '../../../service/index.js';
import { hashToken } from '../../../service/kernel/tokens.js';
import { MIGRATIONS } from '../../../service/storage/migrations.js';
import { pgliteClient } from '../../../service/storage/pglite.js';
import { openSqlStores } from '../../../service/storage/sql/index.js';
import {
  AGENT,
  PROJECT,
  QUERY,
  allRecords,
  errorBody,
  makeService,
  readRecords,
  scriptedAgent,
} from '../../fixtures/service.js';
import { engines } from '../../fixtures/storages.js';

const running: RunningService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function served(options: Parameters<typeof createAgentService>[0]) {
  const logs: LogEntry[] = [];
  const service = createAgentService({ log: (e) => logs.push(e), ...options });
  const server = await serve(service, { port: 0, log: (e) => logs.push(e) });
  running.push(server);
  return { service, url: server.url, logs };
}

/** A raw node:http request, so the test controls the socket (chunked bodies, Host, disconnects). */
function raw(url: string, options: { method: string; path: string; headers?: Record<string, string> }) {
  const { hostname, port } = new URL(url);
  return httpRequest({
    hostname,
    port,
    method: options.method,
    path: options.path,
    headers: options.headers,
  });
}

const agentPath = `/agent/v1/projects/${PROJECT.id}/agent`;

describe('abuse limits: bodies', () => {
  it('stops reading a streamed body once it passes 64 KiB and answers 413', async () => {
    const { service } = makeService();
    const token = await (
      await service.handle(
        new Request(`${AGENT}/sessions/`, { method: 'POST', headers: { 'X-API-Key': PROJECT.apiKey } }),
      )
    ).json();
    let pulled = 0;
    const chunk = new Uint8Array(16 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
      },
      { highWaterMark: 0 },
    );
    const response = await service.handle(
      new Request(`${AGENT}/chat/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token.session_token}` },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect((await errorBody(response)).code).toBe('payload_too_large');
    // An endless body: only what the limit needed was ever read.
    expect(pulled).toBeLessThanOrEqual(64 * 1024 + 2 * chunk.byteLength);
  });

  it('answers a chunked 2 MiB body over HTTP with 413 before it is all sent, memory bounded', async () => {
    const { url } = await served({ projects: [PROJECT], storage: memoryStores() });
    const before = process.memoryUsage().arrayBuffers;
    const req = raw(url, {
      method: 'POST',
      path: `${agentPath}/sessions/`,
      headers: {
        'X-API-Key': PROJECT.apiKey,
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
      },
    });
    req.on('error', () => {}); // the server may close the socket once it has answered
    const status = new Promise<number>((resolve) =>
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      }),
    );
    let sent = 0;
    const piece = Buffer.alloc(64 * 1024, 0x20);
    const write = () => {
      while (sent < 2 * 1024 * 1024 && !req.destroyed) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
    expect(await status).toBe(413);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 1024 * 1024);
  });
});

describe('abuse limits: rates', () => {
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
    expect(done).toEqual({ sessions: 1, events: 1, answers: 0, rateWindows: 0 });
    expect(await ctx.service.storage.directory.getSession(token)).toBeUndefined();
  });
});

describe('abuse limits: a full rate table', () => {
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

describe.each(engines())('abuse limits: tokens at rest on $name', { timeout: 30_000 }, (engine) => {
  it('keeps only SHA-256 hashes of session tokens, and a hash read back authenticates nothing', async () => {
    const storage = await engine.open();
    const ctx = makeService({ storage });
    try {
      const token = await ctx.session();
      const records = await allRecords(
        await ctx.call('POST', `${AGENT}/chat/`, {
          token,
          body: { integration_id: 'int_demo', message: 'How do I theme the widget?' },
        }),
      );
      const answerId = records[0].content.question_answer_id as string;
      expect(
        (
          await ctx.call('POST', `${AGENT}/feedback/`, {
            token,
            body: { question_answer_id: answerId, reaction: 'upvote' },
          })
        ).status,
      ).toBe(204);
      const hash = await hashToken(token);
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(await storage.directory.getSession(token)).toBeUndefined();
      expect((await storage.directory.getSession(hash))?.tokenHash).toBe(hash);
      await ctx.service.refreshActivity();
      const rows = await storage.activity.activity(PROJECT.id, 0, 1e9);
      expect(new Set(rows.map((r) => r.sessionToken))).toEqual(new Set([hash]));
      // What the store holds, presented as a token, is refused.
      const stolen = await ctx.call('GET', `${AGENT}/answers/${answerId}/stream/`, { token: hash });
      expect(stolen.status).toBe(401);
      expect((await ctx.call('GET', `${AGENT}/answers/${answerId}/stream/`, { token })).status).toBe(200);
    } finally {
      await storage.close();
    }
  });
});

describe('abuse limits: tokens stored before they were hashed', { timeout: 30_000 }, () => {
  it('are hashed in place by the migration, in every table that held one, and keep working', async () => {
    const db = await pgliteClient();
    try {
      await db.query('CREATE SCHEMA old_tokens');
      await db.query('SET search_path TO old_tokens');
      await db.query('CREATE TABLE schema_migrations (version int PRIMARY KEY, applied_at bigint NOT NULL)');
      for (const statement of MIGRATIONS[0].split(/;\s*\n/)) if (statement.trim()) await db.query(statement);
      await db.query('INSERT INTO schema_migrations VALUES (1, 0)');
      const token = 'ses_00112233445566778899aabbccddeeff';
      await db.query("INSERT INTO sessions VALUES ($1, 'proj_demo', NULL, 0, 9e15)", [token]);
      await db.query(
        "INSERT INTO events (kind, project_id, at, session_token) VALUES ('session', 'proj_demo', 0, $1)",
        [token],
      );
      await db.query("INSERT INTO threads VALUES ('th_1', 'proj_demo', 'int_demo', NULL, 't', 0, 0)");
      await db.query(
        "INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain) VALUES ('msg_1', 'th_1', 'assistant', '', '[]', 0, 0, 'complete', '[]', '[]', false)",
      );
      await db.query(
        "INSERT INTO feedback VALUES ('msg_1', $2, 'proj_demo', $1, NULL, 'int_demo', 'upvote', NULL, 0)",
        [token, `session:${token}`],
      );
      await db.query('REFRESH MATERIALIZED VIEW activity_rollup');

      const storage = await openSqlStores({ ...db, close: async () => {} });
      const hash = await hashToken(token);
      const everywhere = await db.query(
        `SELECT (SELECT count(*) FROM sessions WHERE token_hash = $1) + (SELECT count(*) FROM events WHERE session_token = $1)
           + (SELECT count(*) FROM feedback WHERE session_token = $1 OR voter = $1) + (SELECT count(*) FROM activity_rollup WHERE session_token = $1) AS n`,
        [token],
      );
      expect(Number(everywhere.rows[0].n)).toBe(0);
      expect((await storage.directory.getSession(hash))?.projectId).toBe('proj_demo');
      expect(await storage.conversations.reactions('th_1', `session:${hash}`)).toEqual(
        new Map([['msg_1', 'upvote']]),
      );
      expect(
        new Set((await storage.activity.activity('proj_demo', 0, 1)).map((r) => r.sessionToken)),
      ).toEqual(new Set([hash]));
    } finally {
      await db.close();
    }
  });
});

describe('abuse limits: paths, headers, caching, logs', () => {
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

describe('connections', () => {
  it('keeps generating after the HTTP connection drops, and stores the whole answer', async () => {
    const script = scriptedAgent();
    const { url, service } = await served({ projects: [PROJECT], agent: script.agent, rateLimit: false });
    const { session_token: token } = await (
      await fetch(`${url}${agentPath}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
        body: '{"external_owner_id":"alice"}',
      })
    ).json();
    const controller = new AbortController();
    const response = await fetch(`${url}${agentPath}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify({ integration_id: 'int_demo', message: 'hi' }),
      signal: controller.signal,
    });
    script.say('Before ');
    const [start] = await readRecords(response.body!.getReader(), 2);
    controller.abort();
    script.say('and after.');
    script.end();
    const threadId = start.content.thread_id as string;
    await expect
      .poll(async () => (await service.storage.conversations.getThread(threadId))?.messages[1])
      .toMatchObject({ content: 'Before and after.', status: 'complete' });
    expect(script.aborted()).toBe(0);
  });

  it('stores answers in flight as stopped when the server closes', async () => {
    const script = scriptedAgent();
    const { url, service } = await served({ projects: [PROJECT], agent: script.agent });
    const { session_token: token } = await (
      await fetch(`${url}${agentPath}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey },
      })
    ).json();
    const response = await fetch(`${url}${agentPath}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify({ integration_id: 'int_demo', message: 'hi' }),
    });
    script.say('Half ');
    const reader = response.body!.getReader();
    const [start] = await readRecords(reader, 2);
    const storage = service.storage;
    await running.pop()!.close();
    expect((await readRecords(reader, Number.POSITIVE_INFINITY)).map((r) => r.type)).toEqual(['identifiers']);
    expect(
      (await storage.conversations.getThread(start.content.thread_id as string))?.messages[1],
    ).toMatchObject({
      content: 'Half ',
      status: 'stopped',
    });
  });
});

describe('DemoAgent sleep', () => {
  it('leaves no abort listener behind, however many words it waits for', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 50; i++) await sleep(0, controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const pending = sleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
