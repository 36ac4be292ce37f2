/**
 * What a public session (§2b) may reach: the integration whose proof of work minted it, and
 * nothing its own integration's settings keep from a visitor. A script solves the cheap public
 * challenge and then names another integration of the same project in its calls.
 */
import { solveChallenge } from 'altcha-lib/v1';
import { describe, expect, it } from 'vitest';
import { createAgentService, ManualClock, type AgentService } from '../../../../service/index.js';
import { BASE, errorBody, makeService, scriptedAgent } from '../../../fixtures/service.js';
import { engines } from '../../../fixtures/storages.js';
import { pngHeader } from '../../../fixtures/files.js';

const SITE = 'https://docs.example.com';
const PROJECT_ID = 'proj_pub';
const PUBLIC_ROUTES = `${BASE}/agent/v1/projects/${PROJECT_ID}/integrations/int_pub`;
const AGENT_PUB = `${BASE}/agent/v1/projects/${PROJECT_ID}/agent`;

type Ctx = ReturnType<typeof makeService>;

/** A project with a public integration and one for signed-in members (minted by the site's server). */
async function twoIntegrations(): Promise<Ctx> {
  const ctx = makeService({
    projects: [
      {
        id: PROJECT_ID,
        apiKey: 'key_pub',
        integrationIds: ['int_pub', 'int_members'],
        allowedOrigins: [SITE],
        public: true,
      },
    ],
    challengeWork: 2_000,
  });
  // Any call stores the configured projects first.
  await ctx.call('GET', `${PUBLIC_ROUTES}/challenge/`, { headers: { Origin: SITE } });
  await ctx.service.storage.directory.updateIntegration(PROJECT_ID, 'int_members', { public: false });
  // The public integration takes no files; the members' one keeps the defaults.
  await ctx.service.storage.files.putFileSettings(PROJECT_ID, 'int_pub', {
    kinds: [],
    maxBytes: { image: 0, text: 0, pdf: 0 },
    perQuestion: 0,
  });
  expect(await ctx.service.storage.files.fileSettings(PROJECT_ID, 'int_pub')).toMatchObject({
    perQuestion: 0,
  });
  ctx.clock.advance(10_000);
  return ctx;
}

/** A public project whose one integration may answer `answers` a day, with `agent` answering. */
async function budgeted(answers: number, options: Parameters<typeof makeService>[0] = {}): Promise<Ctx> {
  const ctx = makeService({
    projects: [{ id: PROJECT_ID, integrationIds: ['int_pub'], allowedOrigins: [SITE], public: true }],
    challengeWork: 2_000,
    ...options,
  });
  await ctx.call('GET', `${PUBLIC_ROUTES}/challenge/`, { headers: { Origin: SITE } });
  await ctx.service.storage.directory.updateIntegration(PROJECT_ID, 'int_pub', {
    budget: { sessions: 10, answers },
  });
  ctx.clock.advance(10_000);
  return ctx;
}

/** A public session of int_pub, minted as a script would: challenge, work, mint (Origin is any header it likes). */
async function publicToken(ctx: Ctx): Promise<string> {
  const c = await (
    await ctx.call('GET', `${PUBLIC_ROUTES}/challenge/`, { headers: { Origin: SITE } })
  ).json();
  const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
  const altcha = btoa(JSON.stringify({ ...c, number: solution!.number, maxnumber: undefined }));
  const minted = await ctx.call('POST', `${PUBLIC_ROUTES}/sessions/`, {
    body: { altcha },
    headers: { Origin: SITE },
  });
  expect(minted.status).toBe(200);
  return (await minted.json()).session_token;
}

const uploadAs = (ctx: Ctx, token: string, integration: string) => {
  const form = new FormData();
  form.append('file', new Blob([pngHeader() as BlobPart], { type: 'image/png' }), 'shot.png');
  return ctx.service.handle(
    new Request(`${AGENT_PUB}/files/?integration_id=${integration}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, Origin: SITE },
      body: form,
    }),
  );
};

describe('a public session stays in its integration', () => {
  it('asks its own integration; naming another (one for signed-in members) is refused', async () => {
    const ctx = await twoIntegrations();
    const token = await publicToken(ctx);
    const own = await ctx.call('POST', `${AGENT_PUB}/chat/`, {
      token,
      body: { integration_id: 'int_pub', message: 'Hello?' },
      headers: { Origin: SITE },
    });
    expect(own.status).toBe(200);
    await own.text();
    const other = await ctx.call('POST', `${AGENT_PUB}/chat/`, {
      token,
      body: { integration_id: 'int_members', message: 'Hello?' },
      headers: { Origin: SITE },
    });
    expect(other.status).toBe(403);
    expect((await errorBody(other)).code).toBe('wrong_integration');
  });

  it("uploads under its own integration's settings only: another's that takes files is refused", async () => {
    const ctx = await twoIntegrations();
    const token = await publicToken(ctx);
    expect((await uploadAs(ctx, token, 'int_pub')).status).toBe(415);
    const other = await uploadAs(ctx, token, 'int_members');
    expect(other.status).toBe(403);
    expect((await errorBody(other)).code).toBe('wrong_integration');
  });

  it('uploads nothing once its integration stopped being public (401, as its questions)', async () => {
    const ctx = await twoIntegrations();
    await ctx.service.storage.files.putFileSettings(PROJECT_ID, 'int_pub', {
      kinds: ['image'],
      maxBytes: { image: 1_000_000, text: 0, pdf: 0 },
      perQuestion: 1,
    });
    const token = await publicToken(ctx);
    expect((await uploadAs(ctx, token, 'int_pub')).status).toBe(201);
    await ctx.service.storage.directory.updateIntegration(PROJECT_ID, 'int_pub', { public: false });
    ctx.clock.advance(10_000);
    const after = await uploadAs(ctx, token, 'int_pub');
    expect(after.status).toBe(401);
    expect((await errorBody(after)).code).toBe('invalid_token');
  });

  it("a session the site's server minted still asks any integration of its project", async () => {
    const ctx = await twoIntegrations();
    const minted = await ctx.call('POST', `${AGENT_PUB}/sessions/`, {
      apiKey: 'key_pub',
      body: { external_owner_id: 'alice' },
    });
    const token = (await minted.json()).session_token;
    for (const integration of ['int_pub', 'int_members']) {
      const response = await ctx.call('POST', `${AGENT_PUB}/chat/`, {
        token,
        body: { integration_id: integration, message: 'Hello?' },
        headers: { Origin: SITE },
      });
      expect(response.status, integration).toBe(200);
      await response.text();
    }
  });
});

describe('the answer budget counts answers, not refusals', () => {
  it('a question refused at the cap of answers at once costs the budget nothing', async () => {
    const scripted = scriptedAgent();
    const ctx = await budgeted(2, { agent: scripted.agent, maxConcurrentAnswers: 1 });
    const token = await publicToken(ctx);
    const ask = (message: string) =>
      ctx.call('POST', `${AGENT_PUB}/chat/`, {
        token,
        body: { integration_id: 'int_pub', message },
        headers: { Origin: SITE },
      });
    const first = await ask('one');
    expect(first.status).toBe(200);
    for (const message of ['two', 'three']) {
      const refused = await ask(message);
      expect(refused.status).toBe(429);
      expect((await errorBody(refused)).code).toBe('rate_limited');
    }
    scripted.end();
    await first.text();
    const second = await ask('four');
    expect(second.status).toBe(200);
  });
});

describe.each(engines())('public budgets under concurrency on $name', (engine) => {
  it(
    'mints and answers at once on two instances spend exactly the daily budgets, never more',
    { timeout: 60_000 },
    async () => {
      const storage = await engine.open();
      const clock = new ManualClock();
      const options = {
        projects: [{ id: PROJECT_ID, integrationIds: ['int_pub'], allowedOrigins: [SITE], public: true }],
        clock,
        challengeWork: 2_000,
        rateLimit: false as const,
        maxConcurrentAnswers: false as const,
        directoryCacheMs: 0,
      };
      const one = createAgentService({ ...options, storage });
      const two = createAgentService({ ...options, storage: { ...storage, close: async () => {} } });
      try {
        const on = (service: AgentService, method: string, url: string, body?: unknown, token?: string) =>
          service.handle(
            new Request(url, {
              method,
              headers: {
                Origin: SITE,
                ...(body !== undefined && { 'Content-Type': 'application/json' }),
                ...(token && { Authorization: `Bearer ${token}` }),
              },
              body: body === undefined ? undefined : JSON.stringify(body),
            }),
          );
        await on(one, 'GET', `${PUBLIC_ROUTES}/challenge/`);
        await storage.directory.updateIntegration(PROJECT_ID, 'int_pub', {
          budget: { sessions: 3, answers: 4 },
        });
        const solutions = await Promise.all(
          Array.from({ length: 8 }, async () => {
            const c = await (await on(one, 'GET', `${PUBLIC_ROUTES}/challenge/`)).json();
            const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
            return btoa(JSON.stringify({ ...c, number: solution!.number, maxnumber: undefined }));
          }),
        );
        const mints = await Promise.all(
          solutions.map((altcha, i) =>
            on(i % 2 ? one : two, 'POST', `${PUBLIC_ROUTES}/sessions/`, { altcha }),
          ),
        );
        expect(mints.map((r) => r.status).sort((a, b) => a - b)).toEqual([
          200, 200, 200, 429, 429, 429, 429, 429,
        ]);
        const token = (await mints.find((r) => r.status === 200)!.json()).session_token;
        const asks = await Promise.all(
          Array.from({ length: 7 }, (_, i) =>
            on(
              i % 2 ? one : two,
              'POST',
              `${AGENT_PUB}/chat/`,
              { integration_id: 'int_pub', message: `Q${i}` },
              token,
            ),
          ),
        );
        const outcomes = await Promise.all(
          asks.map(async (r) => (r.ok ? (await r.text(), 'answered') : (await r.json()).code)),
        );
        expect(outcomes.sort((a, b) => a.localeCompare(b))).toEqual([
          'answered',
          'answered',
          'answered',
          'answered',
          'budget_exhausted',
          'budget_exhausted',
          'budget_exhausted',
        ]);
      } finally {
        await two.close();
        await one.close();
      }
    },
  );
});
