import { solveChallenge } from 'altcha-lib/v1';
import { describe, expect, it } from 'vitest';
import { PUBLIC_NEEDS_ORIGIN } from '../../../../contract/console.js';
import { createAgentService, memoryStores } from '../../../../service/index.js';
import { withConsole } from '../../../fixtures/console.js';
import { BASE, PROJECT } from '../../../fixtures/service.js';

const SITE = 'https://docs.example.com';
const INTEGRATION = `projects/${PROJECT.id}/integrations/int_demo`;

describe('public integrations in the console (§2b)', () => {
  it('needs an allowed origin: ticking the box without one, or emptying the list of a public one, is refused in words', async () => {
    const { admin } = await withConsole();
    const refused = await admin.call('PATCH', INTEGRATION, { public: true });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ code: 'invalid_request', detail: PUBLIC_NEEDS_ORIGIN });

    const saved = await admin.call('PATCH', INTEGRATION, { public: true, allowed_origins: [SITE] });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      public: true,
      allowed_origins: [SITE],
      budget: { sessions: 500, answers: 2000 },
      today: { sessions: 0, answers: 0 },
    });
    const emptied = await admin.call('PATCH', INTEGRATION, { allowed_origins: [] });
    expect(emptied.status).toBe(400);
    expect(emptied.body.detail).toBe(PUBLIC_NEEDS_ORIGIN);
    // Unticked, the list may be emptied again.
    expect((await admin.call('PATCH', INTEGRATION, { public: false, allowed_origins: [] })).status).toBe(200);
  });

  it.each([
    ['a negative budget', { budget: { sessions: -1, answers: 10 } }],
    ['a fraction', { budget: { sessions: 1.5, answers: 10 } }],
    ['a missing half', { budget: { sessions: 10 } }],
    ['over a million', { budget: { sessions: 10, answers: 1_000_001 } }],
    ['public as text', { public: 'yes' }],
  ])('refuses %s with 400', async (_label, patch) => {
    const { admin } = await withConsole();
    const response = await admin.call('PATCH', INTEGRATION, patch);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
  });

  it("sets the budgets, shows today's use in the project list, and audits the change", async () => {
    const { admin, call } = await withConsole({ challengeWork: 1_000 });
    await admin.call('PATCH', INTEGRATION, {
      public: true,
      allowed_origins: [SITE],
      budget: { sessions: 3, answers: 7 },
    });
    const routes = `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo`;
    const c = await (await call('GET', `${routes}/challenge/`, { headers: { Origin: SITE } })).json();
    const { number } = (await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise)!;
    const altcha = btoa(
      JSON.stringify({
        algorithm: c.algorithm,
        challenge: c.challenge,
        number,
        salt: c.salt,
        signature: c.signature,
      }),
    );
    expect(
      (await call('POST', `${routes}/sessions/`, { body: { altcha }, headers: { Origin: SITE } })).status,
    ).toBe(200);

    const projects = await admin.call('GET', 'projects');
    const integration = projects.body.projects[0].integrations.find(
      (i: { id: string }) => i.id === 'int_demo',
    );
    expect(integration).toMatchObject({
      public: true,
      budget: { sessions: 3, answers: 7 },
      today: { sessions: 1, answers: 0 },
    });
    const audit = await admin.call('GET', 'audit');
    expect(audit.body.entries[0]).toMatchObject({
      action: 'integration.update',
      target: 'int_demo',
      detail: { allowed_origins: [SITE], public: true, budget: { sessions: 3, answers: 7 } },
    });
  });

  it('lists the origins whose pages it refused, once each with a count, until they are allowed, and logs each once', async () => {
    const logs: { msg: string; origin?: unknown }[] = [];
    const { admin, call, service, clock } = await withConsole({ log: (entry) => logs.push(entry) });
    await admin.call('PATCH', INTEGRATION, { public: true, allowed_origins: [SITE] });
    const challenge = `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo/challenge/`;
    // A site builder's embed block: a frame on the builder's origin, and a sandboxed one with none.
    // Sent to the instance the console asks; another's: the next test (decision 750).
    const frame = 'https://site-1234.builder-usercontent.example';
    for (const origin of [frame, frame, 'null', 'not an origin']) {
      clock.advance(1);
      expect((await service.handle(new Request(challenge, { headers: { Origin: origin } }))).status).toBe(
        403,
      );
    }
    const refused = async () =>
      (await admin.call('GET', 'projects')).body.projects[0].integrations.find(
        (i: { id: string }) => i.id === 'int_demo',
      ).refused_origins;
    expect(await refused()).toEqual([
      { origin: 'null', count: 1, last_at: expect.any(String) },
      { origin: frame, count: 2, last_at: expect.any(String) },
    ]);
    expect(logs.filter((l) => l.msg === 'public_origin_refused').map((l) => l.origin)).toEqual([
      frame,
      'null',
    ]);
    await admin.call('PATCH', INTEGRATION, { allowed_origins: [SITE, frame] });
    expect((await call('GET', challenge, { headers: { Origin: frame } })).status).toBe(200);
    expect(await refused()).toEqual([{ origin: 'null', count: 1, last_at: expect.any(String) }]);
  });

  it('lists the origins another instance of the fleet refused, their counts added (decision 750)', async () => {
    const storage = memoryStores();
    const { admin, service, clock } = await withConsole({ storage });
    await admin.call('PATCH', INTEGRATION, { public: true, allowed_origins: [SITE] });
    // The instance the balancer sent the page to, on the same database; the console asks the first.
    const other = createAgentService({ projects: [PROJECT], storage, clock, directoryCacheMs: 0 });
    const challenge = `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo/challenge/`;
    const frame = 'https://site-1234.builder-usercontent.example';
    const refuse = async (instance: typeof service, origin: string) =>
      expect((await instance.handle(new Request(challenge, { headers: { Origin: origin } }))).status).toBe(
        403,
      );
    await refuse(other, 'null');
    clock.advance(1000);
    await refuse(other, frame);
    // The first instance's own refusal of the same origin, not yet written, is added to the fleet's.
    await refuse(service, frame);
    await refuse(service, frame);
    const refused = async () =>
      (await admin.call('GET', 'projects')).body.projects[0].integrations.find(
        (i: { id: string }) => i.id === 'int_demo',
      ).refused_origins;
    expect(await refused()).toEqual([
      { origin: frame, count: 3, last_at: expect.any(String) },
      { origin: 'null', count: 1, last_at: expect.any(String) },
    ]);
  });

  it('writes and logs at most 20 origins an integration a day, however many a script fakes, none longer than a real one (decisions 750, 762)', async () => {
    const storage = memoryStores();
    const written: string[] = [];
    const note = storage.gate.noteRefusals.bind(storage.gate);
    storage.gate.noteRefusals = async (refusal) => {
      written.push(refusal.origin);
      return note(refusal);
    };
    const logs: { msg: string; origin?: unknown }[] = [];
    const { admin, service, clock } = await withConsole({ storage, log: (entry) => logs.push(entry) });
    await admin.call('PATCH', INTEGRATION, { public: true, allowed_origins: [SITE] });
    const challenge = `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo/challenge/`;
    const refuse = async (origin: string) =>
      expect((await service.handle(new Request(challenge, { headers: { Origin: origin } }))).status).toBe(
        403,
      );
    // Longer than any origin a browser sends (a DNS name is at most 253 characters): a script's,
    // which wrote its 8 KB into the log twice a request and onto the console's page.
    await refuse(`https://${'a'.repeat(60)}.${'b'.repeat(8_000)}.example`);
    for (let i = 0; i < 30; i++) await refuse(`https://fake-${i}.example`);
    expect(written).toHaveLength(20);
    expect(written.every((origin) => origin.length < 30)).toBe(true);
    // The log says what was written: a script's thirty origins are twenty lines, not thirty.
    expect(logs.filter((l) => l.msg === 'public_origin_refused')).toHaveLength(20);
    // The next UTC day writes again.
    clock.advance(86_400_000);
    await refuse('https://fake-0.example');
    expect(written).toHaveLength(21);
  });

  it("writes a refusal the store failed to take with the next day's, and logs the failure", async () => {
    const storage = memoryStores();
    const note = storage.gate.noteRefusals.bind(storage.gate);
    let fail = true;
    storage.gate.noteRefusals = async (refusal) => {
      if (fail) throw new Error('the database is away');
      return note(refusal);
    };
    const logs: { msg: string }[] = [];
    const { admin, service, clock } = await withConsole({ storage, log: (entry) => logs.push(entry) });
    await admin.call('PATCH', INTEGRATION, { public: true, allowed_origins: [SITE] });
    const challenge = `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo/challenge/`;
    const frame = 'https://site-1234.builder-usercontent.example';
    const refuse = async () =>
      expect((await service.handle(new Request(challenge, { headers: { Origin: frame } }))).status).toBe(403);
    await refuse();
    expect(logs.map((l) => l.msg)).toContain('public_origin_refusal_unsaved');
    fail = false;
    clock.advance(86_400_000);
    await refuse();
    expect((await storage.gate.refusals(PROJECT.id)).get('int_demo')).toEqual([
      { origin: frame, count: 2, last: clock.now() },
    ]);
  });

  it("says which integrations' origins the start-up flag sets again at each start, and to what", async () => {
    const { admin } = await withConsole({ projects: [{ ...PROJECT, allowedOrigins: [SITE], public: true }] });
    // The console adds an origin; the next start with the same flag would replace the list.
    await admin.call('PATCH', INTEGRATION, { allowed_origins: [SITE, 'https://shop.example.com'] });
    const integrations = (await admin.call('GET', 'projects')).body.projects[0].integrations;
    expect(
      integrations.map((i: { id: string; origins_at_start: unknown }) => [i.id, i.origins_at_start]),
    ).toEqual([
      ['int_demo', [SITE]],
      ['int_other', [SITE]],
    ]);
    const { admin: unseeded } = await withConsole();
    const plain = (await unseeded.call('GET', 'projects')).body.projects[0].integrations[0];
    expect(plain.origins_at_start).toBeNull();
  });

  it('the start-up flag makes its integrations public with their origins, and a restart without it leaves them so', async () => {
    const storage = memoryStores();
    const seed = { ...PROJECT, allowedOrigins: [SITE], public: true };
    const first = createAgentService({ projects: [seed], storage });
    await first.handle(
      new Request(`${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo/challenge/`),
    );
    expect((await storage.directory.listIntegrations(PROJECT.id)).map((i) => [i.id, i.public])).toEqual([
      ['int_demo', true],
      ['int_other', true],
    ]);
    const restarted = createAgentService({ projects: [{ ...PROJECT, allowedOrigins: [SITE] }], storage });
    const challenge = await restarted.handle(
      new Request(`${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo/challenge/`, {
        headers: { Origin: SITE },
      }),
    );
    expect(challenge.status).toBe(200);
  });
});
