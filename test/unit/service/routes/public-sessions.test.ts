import { solveChallenge } from 'altcha-lib/v1';
import { describe, expect, it } from 'vitest';
import { createAgentService, ManualClock, type AgentService } from '../../../../service/index.js';
import {
  allRecords,
  chatRecords,
  errorBody,
  makeService,
  PROJECT,
  BASE,
  textOf,
} from '../../../fixtures/service.js';
import { engines } from '../../../fixtures/storages.js';
import { secondsToNextUtcDay } from '../../../../service/kernel/clock.js';

const SITE = 'https://docs.example.com';
const PUBLIC_PROJECT = { id: 'proj_pub', integrationIds: ['int_pub'], allowedOrigins: [SITE], public: true };
const ROUTES = `${BASE}/agent/v1/projects/proj_pub/integrations/int_pub`;
const AGENT_PUB = `${BASE}/agent/v1/projects/proj_pub/agent`;
/** Small work: the tests check the protocol, not the cost (docs/performance.md measures that). */
const WORK = 2_000;

/** What these tests send: a method, a URL, a JSON body and headers. */
type Call = (
  method: string,
  url: string,
  options?: { body?: unknown; headers?: Record<string, string> },
) => Promise<Response>;

/** The headers a page on another origin may read of `response`, lower case. */
const exposedHeaders = (response: Response) =>
  (response.headers.get('Access-Control-Expose-Headers') ?? '').split(',').map((h) => h.trim().toLowerCase());

function publicService(options: Parameters<typeof makeService>[0] = {}) {
  return makeService({ projects: [PROJECT, PUBLIC_PROJECT], challengeWork: WORK, ...options });
}

async function challenge(call: Call, origin = SITE) {
  return call('GET', `${ROUTES}/challenge/`, { headers: { Origin: origin } });
}

/** A challenge fetched and solved as the widget does: the base64 JSON payload of §2b. */
async function solved(call: Call, origin = SITE): Promise<string> {
  const response = await challenge(call, origin);
  expect(response.status).toBe(200);
  const c = await response.json();
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
  const payload = {
    algorithm: c.algorithm,
    challenge: c.challenge,
    number: solution!.number,
    salt: c.salt,
    signature: c.signature,
  };
  return btoa(JSON.stringify(payload));
}

function mint(
  call: Call,
  altcha: string | undefined,
  origin: string | null = SITE,
  extra: Record<string, unknown> = {},
) {
  return call('POST', `${ROUTES}/sessions/`, {
    body: { ...(altcha !== undefined && { altcha }), ...extra },
    headers: origin ? { Origin: origin } : {},
  });
}

describe('public sessions (§2b)', () => {
  it('a challenge, solved, mints an anonymous session that chats; CORS names the allowed origin only', async () => {
    const ctx = publicService();
    const c = await challenge(ctx.call);
    expect(c.status).toBe(200);
    expect(c.headers.get('Cache-Control')).toBe('no-store');
    expect(c.headers.get('Access-Control-Allow-Origin')).toBe(SITE);
    expect(c.headers.get('Vary')).toContain('Origin');
    const body = await c.json();
    expect(Object.keys(body).sort()).toEqual(['algorithm', 'challenge', 'maxnumber', 'salt', 'signature']);
    expect(body).toMatchObject({ algorithm: 'SHA-256', maxnumber: WORK });
    // The salt carries its expiry, 10 minutes on: the service's clock, in seconds.
    expect(body.salt).toContain(`expires=${Math.floor((ctx.clock.now() + 600_000) / 1000)}`);

    const minted = await mint(ctx.call, await solved(ctx.call));
    expect(minted.status).toBe(200);
    expect(minted.headers.get('Access-Control-Allow-Origin')).toBe(SITE);
    expect(minted.headers.get('Agent-Chat-Owner-Key')).toBe('-');
    // Exposed: the page that asked is on another origin, and reads the session's "no owner" as sent.
    expect(exposedHeaders(minted)).toContain('agent-chat-owner-key');
    expect(minted.headers.get('Cache-Control')).toBe('no-store');
    const session = await minted.json();
    expect(Object.keys(session).sort()).toEqual(['expires_at', 'session_token']);

    const response = await ctx.call('POST', `${AGENT_PUB}/chat/`, {
      token: session.session_token,
      body: { integration_id: 'int_pub', message: 'How do I theme the widget?' },
      headers: { Origin: SITE },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Theming');
    // No owner: no history (§5).
    const history = await ctx.call('GET', `${AGENT_PUB}/threads/`, {
      token: session.session_token,
      headers: { Origin: SITE },
    });
    expect(history.status).toBe(403);
  });

  it('the same 404 for an unknown project or integration and for one that is not public', async () => {
    const ctx = publicService();
    const paths = [
      `${BASE}/agent/v1/projects/proj_nope/integrations/int_pub`,
      `${BASE}/agent/v1/projects/proj_pub/integrations/int_nope`,
      `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo`,
    ];
    for (const path of paths) {
      for (const [method, route] of [
        ['GET', 'challenge'],
        ['POST', 'sessions'],
      ] as const) {
        const response = await ctx.call(method, `${path}/${route}/`, {
          headers: { Origin: SITE },
          ...(method === 'POST' && { body: {} }),
        });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(await errorBody(response)).toEqual({
          code: 'not_found',
          detail: 'No public integration here.',
        });
      }
    }
  });

  it('refuses an unlisted origin, or none, on both routes with origin_not_allowed the page can read', async () => {
    const ctx = publicService();
    const altcha = await solved(ctx.call);
    for (const origin of ['https://evil.example', null]) {
      const c = await ctx.call('GET', `${ROUTES}/challenge/`, { headers: origin ? { Origin: origin } : {} });
      expect(c.status).toBe(403);
      expect((await errorBody(c)).code).toBe('origin_not_allowed');
      expect(c.headers.get('Access-Control-Allow-Origin')).toBe(origin);
      const m = await mint(ctx.call, altcha, origin);
      expect(m.status).toBe(403);
      expect((await errorBody(m)).code).toBe('origin_not_allowed');
    }
    // The solution was never spent by the refusals: the allowed page still mints with it.
    expect((await mint(ctx.call, altcha)).status).toBe(200);
  });

  it('a page opened from a file (Origin: null) is told to be served from an allowed origin, not to allow "null"', async () => {
    const ctx = publicService();
    const response = await challenge(ctx.call, 'null');
    expect(response.status).toBe(403);
    const { code, detail } = await errorBody(response);
    expect(code).toBe('origin_not_allowed');
    // "null" cannot be allowed (the console and --allowed-origin take http(s) origins only), and
    // every sandboxed frame on any website sends it too.
    expect(detail).not.toContain('Pages on null');
    expect(detail).toContain('has no origin');
    expect(detail).toContain('serve it over http(s)');
  });

  it("a page on the service's own origin: its same-origin GET carries no Origin, and Sec-Fetch-Site says where it is from", async () => {
    const ctx = makeService({
      projects: [PROJECT, { ...PUBLIC_PROJECT, allowedOrigins: [BASE] }],
      challengeWork: WORK,
    });
    const sameOrigin = await ctx.call('GET', `${ROUTES}/challenge/`, {
      headers: { 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(200);
    // From another site, a missing Origin is still no origin.
    const crossSite = await ctx.call('GET', `${ROUTES}/challenge/`, {
      headers: { 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect((await errorBody(crossSite)).code).toBe('origin_not_allowed');
  });

  it('a page beside the service behind a TLS proxy: its same-origin GET is from the public URL’s origin', async () => {
    // https://docs.example.com/chat/ → the service, which sees http://127.0.0.1:8787/…
    const ctx = makeService({
      projects: [PROJECT, { ...PUBLIC_PROJECT, allowedOrigins: [SITE] }],
      challengeWork: WORK,
      publicUrl: `${SITE}/chat/`,
    });
    const proxied = await ctx.call(
      'GET',
      'http://127.0.0.1:8787/agent/v1/projects/proj_pub/integrations/int_pub/challenge/',
      { headers: { 'Sec-Fetch-Site': 'same-origin', 'X-Forwarded-Proto': 'https' } },
    );
    expect(proxied.status).toBe(200);
    // The public URL names the origin: a same-origin call claims no other.
    const elsewhere = makeService({
      projects: [PROJECT, { ...PUBLIC_PROJECT, allowedOrigins: [SITE] }],
      challengeWork: WORK,
      publicUrl: 'https://chat.example.net/',
    });
    const refused = await elsewhere.call(
      'GET',
      `${SITE}/agent/v1/projects/proj_pub/integrations/int_pub/challenge/`,
      {
        headers: { 'Sec-Fetch-Site': 'same-origin' },
      },
    );
    expect(refused.status).toBe(403);
  });

  it('the preflight clears the allowed origins only', async () => {
    const ctx = publicService();
    const preflight = (origin: string, path = ROUTES) =>
      ctx.call('OPTIONS', `${path}/sessions/`, {
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      });
    const allowed = await preflight(SITE);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('Access-Control-Allow-Origin')).toBe(SITE);
    expect(allowed.headers.get('Access-Control-Allow-Headers')).toBe('Content-Type');
    const refused = await preflight('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBeNull();
    const notPublic = await preflight(SITE, `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo`);
    expect(notPublic.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('refuses a missing, unreadable, wrong, tampered, expired or replayed solution with challenge_failed', async () => {
    const ctx = publicService();
    const good = await solved(ctx.call);
    const payload = JSON.parse(atob(good));
    const variant = (patch: Record<string, unknown>) => btoa(JSON.stringify({ ...payload, ...patch }));
    const cases: [string, string | undefined][] = [
      ['missing', undefined],
      ['not base64', '%%%'],
      ['not JSON', btoa('nope')],
      ['a wrong number', variant({ number: payload.number + 1 })],
      ['a number as text', variant({ number: String(payload.number) })],
      ['another algorithm', variant({ algorithm: 'SHA-1' })],
      ['a forged signature', variant({ signature: '0'.repeat(64) })],
      [
        'a salt with a later expiry',
        variant({ salt: payload.salt.replace(/expires=\d+/, 'expires=9999999999') }),
      ],
    ];
    for (const [label, altcha] of cases) {
      const response = await mint(ctx.call, altcha);
      expect(response.status, label).toBe(403);
      expect((await errorBody(response)).code, label).toBe('challenge_failed');
    }
    expect((await mint(ctx.call, good)).status).toBe(200);
    const replay = await mint(ctx.call, good);
    expect(replay.status).toBe(403);
    expect(await errorBody(replay)).toEqual({
      code: 'challenge_failed',
      detail: 'The proof of work is already used: fetch a new challenge and solve it.',
    });

    const late = await solved(ctx.call);
    ctx.clock.advance(600_001);
    const expired = await mint(ctx.call, late);
    expect(expired.status).toBe(403);
    expect((await errorBody(expired)).detail).toContain('expired');
  });

  it('a solution of one integration does not open another', async () => {
    const ctx = publicService({
      projects: [PROJECT, { ...PUBLIC_PROJECT, integrationIds: ['int_pub', 'int_two'] }],
    });
    const altcha = await solved(ctx.call);
    const other = await ctx.call(
      'POST',
      `${BASE}/agent/v1/projects/proj_pub/integrations/int_two/sessions/`,
      {
        body: { altcha },
        headers: { Origin: SITE },
      },
    );
    expect(other.status).toBe(403);
    expect((await errorBody(other)).code).toBe('challenge_failed');
  });

  it('answers 400 for any field beside altcha (an owner above all)', async () => {
    const ctx = publicService();
    const response = await mint(ctx.call, await solved(ctx.call), SITE, { external_owner_id: 'alice' });
    expect(response.status).toBe(400);
    expect(await errorBody(response)).toEqual({
      code: 'invalid_request',
      detail: 'Unknown field(s): external_owner_id.',
    });
  });

  it('limits mints per client address: 429 with Retry-After', async () => {
    const ctx = publicService({ publicSessionLimit: { requests: 2, windowMs: 60_000 } });
    /** What these tests send, from `address`. */
    const callFrom =
      (address: string): Call =>
      (method, url, { body, headers = {} } = {}) =>
        ctx.service.handle(
          new Request(url, {
            method,
            headers: { ...headers, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
          { clientAddress: address },
        );
    // Challenges are limited per address too: the third is solved from another one.
    const [a, b, c, d] = ['203.0.113.7', '203.0.113.7', '192.0.2.9', '198.51.100.1'];
    const solutions = [await solved(callFrom(a)), await solved(callFrom(b)), await solved(callFrom(c))];
    expect((await mint(callFrom(a), solutions[0])).status).toBe(200);
    expect((await mint(callFrom(a), solutions[1])).status).toBe(200);
    const third = await mint(callFrom(a), solutions[2]);
    expect(third.status).toBe(429);
    expect(third.headers.get('Retry-After')).toBe('60');
    expect(third.headers.get('Access-Control-Allow-Origin')).toBe(SITE);
    expect((await errorBody(third)).code).toBe('rate_limited');
    expect((await mint(callFrom(d), solutions[2])).status).toBe(200);
  });

  it('limits challenges per client address as it limits mints: 429 with Retry-After', async () => {
    const ctx = publicService({ publicSessionLimit: { requests: 2, windowMs: 60_000 } });
    const from = (address: string) =>
      ctx.service.handle(new Request(`${ROUTES}/challenge/`, { headers: { Origin: SITE } }), {
        clientAddress: address,
      });
    expect((await from('203.0.113.7')).status).toBe(200);
    expect((await from('203.0.113.7')).status).toBe(200);
    const third = await from('203.0.113.7');
    expect(third.status).toBe(429);
    expect(third.headers.get('Retry-After')).toBe('60');
    expect(third.headers.get('Access-Control-Allow-Origin')).toBe(SITE);
    expect((await from('198.51.100.1')).status).toBe(200);
  });

  it('spends the daily budgets: sessions, then answers; 429 budget_exhausted until the next UTC day', async () => {
    const logs: Record<string, unknown>[] = [];
    const ctx = publicService({ log: (entry) => logs.push(entry) });
    await challenge(ctx.call); // the start-up projects exist once a request came
    await ctx.service.storage.directory.updateIntegration('proj_pub', 'int_pub', {
      budget: { sessions: 2, answers: 3 },
    });
    ctx.clock.advance(5_000); // past the directory's cache
    // Three solved while the budget had room; the third mint finds it spent.
    const solutions = [await solved(ctx.call), await solved(ctx.call), await solved(ctx.call)];
    const tokens: string[] = [];
    for (const altcha of solutions.slice(0, 2))
      tokens.push((await (await mint(ctx.call, altcha)).json()).session_token);
    const third = await mint(ctx.call, solutions[2]);
    expect(third.status).toBe(429);
    expect((await errorBody(third)).code).toBe('budget_exhausted');
    // The challenge itself says so: no work for a session that cannot be had.
    const refused = await challenge(ctx.call);
    expect(refused.status).toBe(429);
    expect(await errorBody(refused)).toEqual({
      code: 'budget_exhausted',
      detail:
        'The daily budget of sessions of integration int_pub is spent; it starts again at 00:00 UTC, or raise "Sessions a day" on the Integrations page of the service console.',
    });
    // ManualClock starts at 09:00:05 UTC: 14 h 59 min 55 s to midnight.
    expect(refused.headers.get('Retry-After')).toBe(String(15 * 3600 - 5));
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe(SITE);

    const ask = async (token: string) => {
      const response = await ctx.call('POST', `${AGENT_PUB}/chat/`, {
        token,
        body: { integration_id: 'int_pub', message: 'How do I theme the widget?' },
      });
      return { response, records: response.ok ? await allRecords(response) : [] };
    };
    // A question refused for its files (a session's files are its own) spends nothing.
    const withGoneFile = await ctx.call('POST', `${AGENT_PUB}/chat/`, {
      token: tokens[0],
      body: { integration_id: 'int_pub', message: 'What is in this log?', attachments: ['file_gone'] },
    });
    expect(withGoneFile.status).toBe(400);
    expect((await errorBody(withGoneFile)).code).toBe('file_unavailable');
    for (const token of [tokens[0], tokens[1], tokens[0]]) {
      const { response, records } = await ask(token);
      expect(response.status).toBe(200);
      expect(textOf(records)).toContain('Style the widget');
    }
    const spent = await ask(tokens[1]);
    expect(spent.response.status).toBe(429);
    expect(await errorBody(spent.response)).toEqual({
      code: 'budget_exhausted',
      detail:
        'The daily budget of answers of integration int_pub is spent; it starts again at 00:00 UTC, or raise "Answers a day" on the Integrations page of the service console.',
    });
    // The operator's log says so once a day for each budget on an instance, not once per visitor.
    for (let i = 0; i < 3; i++) expect((await challenge(ctx.call)).status).toBe(429);
    const spentLogs = logs.filter((entry) => entry.msg === 'public_budget_spent');
    expect(new Set(spentLogs.map((entry) => entry.budget))).toEqual(new Set(['sessions', 'answers']));
    expect(spentLogs.length).toBeLessThanOrEqual(2 * ctx.services.length);
    expect(spentLogs.find((entry) => entry.budget === 'answers')).toMatchObject({
      level: 'warn',
      project: 'proj_pub',
      integration: 'int_pub',
      detail: expect.stringContaining('raise "Answers a day" on the Integrations page'),
    });
    // Sessions minted with the API key are the site's own server's: no public budget applies.
    const own = await ctx.session();
    expect((await chatRecords(ctx, own, { message: 'How do I theme the widget?' })).response.status).toBe(
      200,
    );

    ctx.clock.advance(15 * 3600_000);
    expect((await ask(tokens[1])).response.status).toBe(401); // an hour-long token is long gone
    expect((await mint(ctx.call, await solved(ctx.call))).status).toBe(200);
  });

  it("takes a day's most of files from a public integration's visitors, sent with a question or not", async () => {
    const ctx = publicService({ unusedFileQuota: { publicDayBytes: 1_000 } });
    const session = async () =>
      ((await (await mint(ctx.call, await solved(ctx.call))).json()) as { session_token: string })
        .session_token;
    const upload = (token: string, size: number, url = `${AGENT_PUB}/files/?integration_id=int_pub`) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(size).fill(0x61)]), 'notes.txt');
      return ctx.service.handle(
        new Request(url, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, Origin: SITE },
          body: form,
        }),
      );
    };
    const first = await session();
    const uploaded = await upload(first, 600);
    expect(uploaded.status).toBe(201);
    const { file_id: fileId } = (await uploaded.json()) as { file_id: string };
    const asked = await ctx.call('POST', `${AGENT_PUB}/chat/`, {
      token: first,
      body: { integration_id: 'int_pub', message: 'What is in it?', attachments: [fileId] },
      headers: { Origin: SITE },
    });
    expect(asked.status).toBe(200);
    await asked.text();
    // Sent, the file no longer counts as unused; a new session (anyone may start one) finds its
    // 600 bytes counted for the day all the same. Before, nothing counted what stayed in threads.
    const second = await session();
    const refused = await upload(second, 500);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Retry-After')).toBe(String(secondsToNextUtcDay(ctx.clock.now())));
    expect(await refused.json()).toEqual({
      code: 'budget_exhausted',
      detail:
        "The visitors of integration int_pub have sent today's most of files; files are taken again at 00:00 UTC.",
    });
    expect((await upload(second, 400)).status).toBe(201);
    // A project's own integration, its sessions minted with its key: no daily bytes.
    expect(
      (
        await upload(
          await ctx.session('alice'),
          2_000,
          `${BASE}/agent/v1/projects/${PROJECT.id}/agent/files/?integration_id=int_demo`,
        )
      ).status,
    ).toBe(201);
    // The next UTC day takes files again.
    ctx.clock.advance(secondsToNextUtcDay(ctx.clock.now()) * 1000);
    expect((await upload(await session(), 500)).status).toBe(201);
  });

  it('a session whose integration stopped being public no longer chats (401)', async () => {
    const ctx = publicService();
    const token = (await (await mint(ctx.call, await solved(ctx.call))).json()).session_token;
    await ctx.service.storage.directory.updateIntegration('proj_pub', 'int_pub', { public: false });
    ctx.clock.advance(5_000);
    const response = await ctx.call('POST', `${AGENT_PUB}/chat/`, {
      token,
      body: { integration_id: 'int_pub', message: 'Hello?' },
    });
    expect(response.status).toBe(401);
    expect((await errorBody(response)).code).toBe('invalid_token');
    expect((await challenge(ctx.call)).status).toBe(404);
  });
});

describe.each(engines())('public sessions across two instances on $name', (engine) => {
  it(
    'a solution spent on one instance is refused on the other; the budget is one for both',
    { timeout: 30_000 },
    async () => {
      const storage = await engine.open();
      const clock = new ManualClock();
      const options = {
        projects: [PUBLIC_PROJECT],
        clock,
        challengeWork: WORK,
        rateLimit: false as const,
        directoryCacheMs: 0,
      };
      // Two instances on one database, as a fleet behind a load balancer (closing one closes the store).
      const [one, two]: AgentService[] = [
        createAgentService({ ...options, storage }),
        createAgentService({ ...options, storage: { ...storage, close: async () => {} } }),
      ];
      try {
        const on =
          (service: AgentService): Call =>
          (method, url, { body, headers = {} } = {}) =>
            service.handle(
              new Request(url, {
                method,
                headers: { ...headers, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
                body: body === undefined ? undefined : JSON.stringify(body),
              }),
            );
        const altcha = await solved(on(one));
        const minted = await mint(on(two), altcha);
        expect(minted.status).toBe(200);
        expect(minted.headers.get('Agent-Chat-Owner-Key')).toBe('-');
        expect(exposedHeaders(minted)).toContain('agent-chat-owner-key');
        const replay = await mint(on(one), altcha);
        expect(replay.status).toBe(403);
        expect((await errorBody(replay)).code).toBe('challenge_failed');

        await storage.directory.updateIntegration('proj_pub', 'int_pub', {
          budget: { sessions: 2, answers: 10 },
        });
        expect((await mint(on(one), await solved(on(two)))).status).toBe(200);
        const over = await challenge(on(two));
        expect(over.status).toBe(429);
        expect((await errorBody(over)).code).toBe('budget_exhausted');
      } finally {
        await two.close();
        await one.close();
      }
    },
  );
});
