import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../../contract/owner-key.js';
import { OWNER_KEY_HEADER } from '../../../contract/paths.js';
import { scryptPasswords } from '../../../service/console-node.js';
import {
  ManualClock,
  memoryStores,
  createAgentService,
  type AgentServiceOptions,
} from '../../../service/index.js';
import { ADMIN, addAdmin, consoleClient } from '../../fixtures/console.js';
import { AGENT, BASE, PROJECT, makeService } from '../../fixtures/service.js';

const CONSOLE = { passwords: scryptPasswords };

/** A service with the console on, an admin, and a signed-in console client. */
async function setup(options: Partial<AgentServiceOptions> = {}) {
  const made = makeService({ console: CONSOLE, ...options });
  await addAdmin(made.service.storage);
  const admin = consoleClient(made.service);
  expect((await admin.signIn()).status).toBe(200);
  const mint = (apiKey: string, owner = 'alice') =>
    made.call('POST', `${AGENT}/sessions/`, { apiKey, body: { external_owner_id: owner } });
  return { ...made, admin, mint };
}

describe('console sign-in', () => {
  it('signs in with the right password only, in an HttpOnly, SameSite=Strict cookie that is Secure behind https', async () => {
    const { service } = makeService({ console: CONSOLE });
    await addAdmin(service.storage);
    const browser = consoleClient(service);
    const wrong = await browser.signIn(ADMIN.username, 'not the password at all');
    expect(wrong).toMatchObject({
      status: 401,
      body: { code: 'wrong_credentials', detail: 'Wrong username or password.' },
    });
    expect((await browser.signIn('nobody', ADMIN.password)).status).toBe(401);
    expect((await browser.call('GET', 'session')).body).toEqual({ username: null });

    const right = await browser.signIn();
    expect(right.status).toBe(200);
    const cookie = right.headers.get('Set-Cookie')!;
    expect(cookie).toMatch(/^__Secure-agent_chat_console=[\w-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('Path=/console/');
    expect(right.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect((await browser.call('GET', 'session')).body).toMatchObject({
      username: 'ada',
      csrf_token: right.body.csrf_token,
    });

    // Plain http (a local run, no https public URL): the same cookie without Secure, or the browser would drop it.
    const plainService = makeService({ console: CONSOLE, publicUrl: undefined }).service;
    await addAdmin(plainService.storage);
    const local = consoleClient(plainService, { base: 'http://127.0.0.1:8787' });
    const plain = await local.signIn();
    expect(plain.headers.get('Set-Cookie')).not.toContain('Secure');
    expect(plain.headers.get('Set-Cookie')).toMatch(/^agent_chat_console=/);
  });

  it(
    'limits failed sign-ins per username (from any address) and per address (for any username)',
    { timeout: 60_000 },
    async () => {
      const { service, clock } = makeService({ console: CONSOLE });
      await addAdmin(service.storage);
      await addAdmin(service.storage, 'bea');
      for (let i = 0; i < 5; i++)
        expect(
          (await consoleClient(service, { address: `10.0.1.${i}` }).signIn('ada', 'wrong password!')).status,
        ).toBe(401);
      const locked = await consoleClient(service, { address: '10.0.2.1' }).signIn();
      expect(locked.status).toBe(429);
      expect(locked.body.detail).toMatch(/Too many failed sign-ins/);
      expect(Number(locked.headers.get('Retry-After'))).toBeGreaterThan(800);
      // bea is not locked by ada's failures.
      expect(
        (await consoleClient(service, { address: '10.0.2.1' }).signIn('bea', ADMIN.password)).status,
      ).toBe(200);

      // One address guessing many usernames.
      for (let i = 0; i < 20; i++)
        expect(
          (await consoleClient(service, { address: '10.9.9.9' }).signIn(`user${i}`, 'guess guess guess'))
            .status,
        ).toBe(401);
      expect(
        (await consoleClient(service, { address: '10.9.9.9' }).signIn('bea', ADMIN.password)).status,
      ).toBe(429);
      expect(
        (await consoleClient(service, { address: '10.9.9.8' }).signIn('bea', ADMIN.password)).status,
      ).toBe(200);

      // The window passes: ada signs in again.
      clock.advance(15 * 60_000 + 1);
      expect((await consoleClient(service, { address: '10.0.2.1' }).signIn()).status).toBe(200);
    },
  );

  it('refuses a change without the CSRF token, from another site, or not as JSON; signed out, it refuses everything', async () => {
    const { admin, service } = await setup();
    expect((await admin.call('POST', 'projects', { name: 'X' }, { 'X-CSRF-Token': '' })).body.code).toBe(
      'csrf',
    );
    expect((await admin.call('POST', 'projects', { name: 'X' }, { 'X-CSRF-Token': 'stale' })).status).toBe(
      403,
    );
    expect(
      (await admin.call('POST', 'projects', { name: 'X' }, { Origin: 'https://evil.test' })).body.code,
    ).toBe('cross_site');
    expect(
      (await admin.call('POST', 'projects', { name: 'X' }, { 'Sec-Fetch-Site': 'cross-site' })).status,
    ).toBe(403);
    expect((await admin.call('POST', 'projects', undefined, { 'Content-Type': 'text/plain' })).status).toBe(
      415,
    );
    expect((await admin.call('GET', 'projects')).body.projects.map((p: { id: string }) => p.id)).toEqual([
      PROJECT.id,
    ]);

    expect((await admin.call('DELETE', 'session')).status).toBe(204);
    expect((await admin.call('GET', 'projects')).status).toBe(401);
    expect((await consoleClient(service).call('GET', 'projects')).body.code).toBe('signed_out');
  });

  it('is off without the console option: its paths answer 404', async () => {
    const { service } = makeService();
    expect((await consoleClient(service).call('GET', 'session')).status).toBe(404);
  });
});

describe('console API keys', () => {
  it('a created key mints sessions (owner key under that key) until it is revoked; the list never shows a key', async () => {
    const { admin, mint, service } = await setup();
    const created = await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Production' });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect(key).toMatch(/^ack_[\w-]{43}$/);
    expect(created.body).toMatchObject({
      name: 'Production',
      prefix: key.slice(0, 12),
      status: 'active',
      last_used_at: null,
    });
    expect((await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Production' })).status).toBe(
      409,
    );

    const minted = await mint(key);
    expect(minted.status).toBe(200);
    expect(minted.headers.get(OWNER_KEY_HEADER)).toBe(await ownerKey('alice', key));
    expect((await mint(PROJECT.apiKey)).headers.get(OWNER_KEY_HEADER)).toBe(
      await ownerKey('alice', PROJECT.apiKey),
    );

    const listed = await admin.call('GET', `projects/${PROJECT.id}/keys`);
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(12));
    expect(
      listed.body.keys.find((k: { name: string }) => k.name === 'Production').last_used_at,
    ).not.toBeNull();
    expect(
      (await service.storage.directory.listApiKeys(PROJECT.id)).every((k) => !Object.values(k).includes(key)),
    ).toBe(true);

    const id = created.body.id as string;
    expect((await admin.call('DELETE', `projects/${PROJECT.id}/keys/${id}`)).body.status).toBe('revoked');
    const refused = await mint(key);
    expect(refused.status).toBe(401);
    expect((await mint(PROJECT.apiKey)).status).toBe(200);
  });

  it('rotation: the old key works for the chosen overlap and then stops; the new one works throughout', async () => {
    const { admin, mint, clock } = await setup();
    const old = (await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Web' })).body;
    expect(
      (await admin.call('POST', `projects/${PROJECT.id}/keys/${old.id}/rotate`, { overlap_seconds: -1 }))
        .status,
    ).toBe(400);
    const rotated = await admin.call('POST', `projects/${PROJECT.id}/keys/${old.id}/rotate`, {
      overlap_seconds: 3600,
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({
      name: 'Web',
      status: 'active',
      replaced: { id: old.id, name: 'Web (rotated)', status: 'expiring' },
    });
    const fresh = rotated.body.key as string;
    expect(fresh).not.toBe(old.key);
    expect((await mint(old.key)).status).toBe(200);
    expect((await mint(fresh)).headers.get(OWNER_KEY_HEADER)).toBe(await ownerKey('alice', fresh));

    clock.advance(3599_000);
    expect((await mint(old.key)).status).toBe(200);
    clock.advance(1_000);
    expect((await mint(old.key)).status).toBe(401);
    expect((await mint(fresh)).status).toBe(200);
    const listed = (await admin.call('GET', `projects/${PROJECT.id}/keys`)).body.keys;
    expect(listed.map((k: { name: string; status: string }) => `${k.name}:${k.status}`).sort()).toEqual([
      'Start-up key:active',
      'Web (rotated):expired',
      'Web:active',
    ]);
    expect(
      (await admin.call('POST', `projects/${PROJECT.id}/keys/${old.id}/rotate`, { overlap_seconds: 0 }))
        .status,
    ).toBe(400);
  });

  it('a revoke reaches another instance on the same store within its directory cache time', async () => {
    const clock = new ManualClock();
    const storage = memoryStores();
    const options = { projects: [PROJECT], storage, clock, rateLimit: false as const, console: CONSOLE };
    const a = createAgentService(options);
    const b = createAgentService(options);
    await addAdmin(storage);
    const admin = consoleClient(a);
    await admin.signIn();
    const created = (await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Shared' })).body;
    const mintOn = (service: typeof a) =>
      service.handle(
        new Request(`${AGENT}/sessions/`, { method: 'POST', headers: { 'X-API-Key': created.key } }),
      );
    // b had never seen the key: a miss re-reads the store, so a new key works on every instance at once.
    expect((await mintOn(b)).status).toBe(200);
    await admin.call('DELETE', `projects/${PROJECT.id}/keys/${created.id}`);
    expect((await mintOn(a)).status).toBe(401);
    clock.advance(5_000);
    expect((await mintOn(b)).status).toBe(401);
  });
});

describe('start-up projects', () => {
  it('are written once, whatever the number of instances and restarts; a revoked start-up key stays revoked', async () => {
    const storage = memoryStores();
    const seed = { ...PROJECT, allowedOrigins: ['https://docs.example.com'] };
    const first = createAgentService({ projects: [seed], storage, console: CONSOLE });
    const second = createAgentService({ projects: [seed], storage, console: CONSOLE });
    const mint = (service: typeof first) =>
      service.handle(
        new Request(`${AGENT}/sessions/`, { method: 'POST', headers: { 'X-API-Key': PROJECT.apiKey } }),
      );
    expect((await mint(first)).status).toBe(200);
    expect((await mint(second)).status).toBe(200);
    expect(await storage.directory.listProjects()).toHaveLength(1);
    expect(
      (await storage.directory.listIntegrations(PROJECT.id)).map((i) => [i.id, i.allowedOrigins]),
    ).toEqual(PROJECT.integrationIds.map((id) => [id, ['https://docs.example.com']]));
    expect(await storage.directory.listApiKeys(PROJECT.id)).toHaveLength(1);

    const [key] = await storage.directory.listApiKeys(PROJECT.id);
    await storage.directory.updateApiKey(PROJECT.id, key.id, { revokedAt: Date.now() });
    const restarted = createAgentService({
      projects: [{ ...seed, allowedOrigins: ['https://www.example.com'] }],
      storage,
      console: CONSOLE,
    });
    expect((await mint(restarted)).status).toBe(401);
    expect((await storage.directory.listIntegrations(PROJECT.id))[0].allowedOrigins).toEqual([
      'https://www.example.com',
    ]);
    const audit = (await storage.accounts.listAudit({ limit: 20 })).map((e) => `${e.actor} ${e.action}`);
    expect(audit.filter((a) => a === 'start-up project.create')).toHaveLength(1);
    expect(audit).toContain('start-up integration.update');
  });
});

describe('allowed origins', () => {
  it('a listed origin gets CORS for itself; an unlisted one a 403 it can read (CORS for itself, origin_not_allowed) on chat and history', async () => {
    const { admin, call, session } = await setup();
    const saved = await admin.call('PATCH', `projects/${PROJECT.id}/integrations/int_demo`, {
      allowed_origins: ['https://docs.example.com/', 'http://localhost:3000'],
    });
    expect(saved.body.allowed_origins).toEqual(['https://docs.example.com', 'http://localhost:3000']);
    const token = await session('alice');
    const chat = (origin: string | null, integration = 'int_demo') =>
      call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: integration, message: 'How do I theme it?' },
        headers: origin ? { Origin: origin } : {},
      });

    const listed = await chat('https://docs.example.com');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('Access-Control-Allow-Origin')).toBe('https://docs.example.com');
    expect(listed.headers.get('Vary')).toContain('Origin');
    await listed.text();

    const refused = await chat('https://evil.example');
    expect(refused.status).toBe(403);
    // Readable by the page that sent it (so the widget can say why), and by no other origin.
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example');
    expect(refused.headers.get('Vary')).toContain('Origin');
    expect(await refused.json()).toEqual({
      code: 'origin_not_allowed',
      detail:
        'Pages on https://evil.example may not use integration int_demo: add https://evil.example to its "Allowed origins" on the Integrations page of the service console.',
    });
    // int_other has no list: it keeps the open behaviour, and makes history open too.
    expect((await chat('https://evil.example', 'int_other')).status).toBe(200);
    // Server-side calls carry no Origin: nothing to refuse.
    expect((await chat(null)).status).toBe(200);

    await admin.call('PATCH', `projects/${PROJECT.id}/integrations/int_other`, {
      allowed_origins: ['https://app.example.com'],
    });
    const history = await call('GET', `${AGENT}/threads/`, {
      token,
      headers: { Origin: 'https://evil.example' },
    });
    expect(history.status).toBe(403);
    expect(history.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example');
    expect((await history.json()).code).toBe('origin_not_allowed');
    expect(
      (await call('GET', `${AGENT}/threads/`, { token, headers: { Origin: 'https://app.example.com' } }))
        .status,
    ).toBe(200);
  });

  it('the preflight passes for every origin (it cannot see which integration the call names); the call it clears is checked', async () => {
    const { admin, call, session } = await setup();
    // Every integration restricted, none listing evil.example: no integration could accept it.
    for (const id of ['int_demo', 'int_other'])
      await admin.call('PATCH', `projects/${PROJECT.id}/integrations/${id}`, {
        allowed_origins: ['https://docs.example.com'],
      });
    const preflight = (origin: string, path = '/chat/') =>
      call('OPTIONS', `${AGENT}${path}`, {
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
    for (const origin of ['https://evil.example', 'https://docs.example.com']) {
      const answer = await preflight(origin);
      expect(answer.status, origin).toBe(204);
      expect(answer.headers.get('Access-Control-Allow-Origin')).toBe(origin);
      expect(answer.headers.get('Access-Control-Allow-Headers')).toBe('Authorization, Content-Type');
      expect(answer.headers.get('Vary')).toContain('Origin');
    }
    expect((await preflight('https://evil.example', '/threads/')).status).toBe(204);
    // What the preflight cleared is refused, before any work: no thread is made.
    const token = await session('alice');
    const refused = await call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'Hello?' },
      headers: { Origin: 'https://evil.example' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example');
    expect((await refused.json()).code).toBe('origin_not_allowed');
    const threads = await call('GET', `${AGENT}/threads/`, { token });
    expect((await threads.json()).threads).toEqual([]);
  });

  it('names every line that is not an origin, and changes nothing', async () => {
    const { admin } = await setup();
    const bad = await admin.call('PATCH', `projects/${PROJECT.id}/integrations/int_demo`, {
      allowed_origins: [
        'https://ok.example',
        'https://x.example/path',
        'ftp://files.example',
        '*.example.com',
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe(
      'Not an origin (scheme://host[:port], no path): https://x.example/path, ftp://files.example, *.example.com.',
    );
    expect((await admin.call('GET', 'projects')).body.projects[0].integrations[0].allowed_origins).toEqual(
      [],
    );
  });
});

describe('console projects, activity, conversations and audit', () => {
  it('creates, renames and deletes a project (only with its id as confirmation), and the agent API follows at once', async () => {
    const { admin, call } = await setup();
    const created = await admin.call('POST', 'projects', { name: '  Help   center ' });
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^proj_[0-9a-f]{16}$/),
      name: 'Help center',
      integrations: [],
    });
    const id = created.body.id;
    expect(
      (
        await admin.call('POST', `projects/${id}/integrations`, {
          name: 'Docs',
          allowed_origins: ['https://docs.example.com'],
        })
      ).body,
    ).toMatchObject({
      id: expect.stringMatching(/^int_/),
      allowed_origins: ['https://docs.example.com'],
    });
    const key = (await admin.call('POST', `projects/${id}/keys`, { name: 'Server' })).body.key;
    expect(
      (await call('POST', `${BASE}/agent/v1/projects/${id}/agent/sessions/`, { apiKey: key })).status,
    ).toBe(200);
    expect((await admin.call('PATCH', `projects/${id}`, { name: 'Support' })).body.name).toBe('Support');
    expect((await admin.call('DELETE', `projects/${id}`)).status).toBe(400);
    expect((await admin.call('DELETE', `projects/${id}?confirm=${id}`)).status).toBe(204);
    // Gone at once: its key now meets what any unknown project answers.
    expect(
      (await call('POST', `${BASE}/agent/v1/projects/${id}/agent/sessions/`, { apiKey: key })).status,
    ).toBe(401);
    expect((await admin.call('GET', 'projects')).body.projects.map((p: { id: string }) => p.id)).toEqual([
      PROJECT.id,
    ]);
  });

  it('activity per day (zeros included), per integration and as CSV', async () => {
    const { admin, session, chat, clock, service } = await setup();
    await chat(await session('alice'), 'How do I theme it?');
    clock.advance(86_400_000);
    const bob = await session('bob');
    await chat(bob, 'Is it safe?');
    await chat(bob, 'And React?');
    // A console session lasts 12 hours: a day later, the admin signs in again.
    expect((await admin.call('GET', 'projects')).status).toBe(401);
    await admin.signIn();
    // What the fleet's timer does: the rollup (and the summaries after it) are rebuilt off the request path.
    await service.refreshActivity();
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const yesterday = new Date(clock.now() - 86_400_000).toISOString().slice(0, 10);
    const before = new Date(clock.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const query = `start=${before}&end=${today}`;
    const json = (await admin.call('GET', `projects/${PROJECT.id}/activity?${query}`)).body;
    expect(json.by_day, JSON.stringify(json)).toBeDefined();
    expect(
      json.by_day.map((d: { date: string; sessions: number; threads: number; messages: number }) => [
        d.date,
        d.sessions,
        d.threads,
        d.messages,
      ]),
    ).toEqual([
      [before, 0, 0, 0],
      [yesterday, 1, 1, 2],
      [today, 1, 2, 4],
    ]);
    expect(json.totals).toEqual({
      sessions: 2,
      threads: 3,
      messages: 6,
      upvotes: 0,
      downvotes: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      unique_owners: 2,
    });
    expect(json.by_integration).toEqual([
      expect.objectContaining({ integration_id: 'int_demo', sessions: 2, threads: 3 }),
    ]);
    const csv = await admin.call('GET', `projects/${PROJECT.id}/activity?${query}&format=csv`);
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('Content-Disposition')).toBe(
      `attachment; filename="activity-${PROJECT.id}-${before}-${today}.csv"`,
    );
    expect(csv.body).toBe(
      `date,sessions,threads,messages,upvotes,downvotes,prompt_tokens,completion_tokens\r\n${before},0,0,0,0,0,0,0\r\n${yesterday},1,1,2,0,0,0,0\r\n${today},1,2,4,0,0,0,0\r\n`,
    );
    expect(
      (await admin.call('GET', `projects/${PROJECT.id}/activity?start=${today}&end=${before}`)).status,
    ).toBe(400);
  });

  it('model tokens per day, from the usage the agent reports', async () => {
    const agent = {
      async *answer() {
        yield { type: 'text' as const, text: 'Counted.' };
        yield { type: 'usage' as const, promptTokens: 120, completionTokens: 30 };
      },
    };
    const { admin, session, chat, clock, service } = await setup({ agent });
    await chat(await session('alice'), 'One');
    await chat(await session('bob'), 'Two');
    await service.refreshActivity();
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const json = (await admin.call('GET', `projects/${PROJECT.id}/activity?start=${today}&end=${today}`))
      .body;
    expect(json.by_day).toEqual([
      expect.objectContaining({ date: today, prompt_tokens: 240, completion_tokens: 60 }),
    ]);
    expect(json.totals).toMatchObject({ prompt_tokens: 240, completion_tokens: 60 });
    expect(json.by_integration).toEqual([
      expect.objectContaining({ integration_id: 'int_demo', prompt_tokens: 240, completion_tokens: 60 }),
    ]);
  });

  it('conversations across owners show opaque owner keys, filter, search, and open with every reaction', async () => {
    const { admin, session, chat, call, service, clock } = await setup();
    const alice = await session('alice');
    const bob = await session('bob');
    const first = await chat(alice, 'How do I theme the widget?');
    clock.advance(1_000);
    const second = await chat(bob, 'Is the widget safe against XSS?');
    const detailForBob = await (
      await call('GET', `${AGENT}/threads/${second.threadId}/`, { token: bob })
    ).json();
    const answer = detailForBob.messages[1].id as string;
    await call('POST', `${AGENT}/feedback/`, {
      token: bob,
      body: {
        question_answer_id: answer,
        reaction: 'downvote',
        comment: { irrelevant: true, issue: 'Not what I asked' },
      },
    });

    const list = (await admin.call('GET', `projects/${PROJECT.id}/conversations`)).body;
    expect(list.threads.map((t: { id: string }) => t.id)).toEqual([second.threadId, first.threadId]);
    const secret = (await service.storage.directory.getProject(PROJECT.id))!.ownerSecret;
    expect(list.threads[0]).toMatchObject({
      owner_key: await ownerKey('bob', secret),
      downvotes: 1,
      messages: 2,
    });
    expect(JSON.stringify(list)).not.toMatch(/"(alice|bob)"/);
    const ids = async (query: string) =>
      (await admin.call('GET', `projects/${PROJECT.id}/conversations?${query}`)).body.threads.map(
        (t: { id: string }) => t.id,
      );
    expect(await ids('downvoted=1')).toEqual([second.threadId]);
    expect(await ids('q=theme')).toEqual([first.threadId]);
    expect(await ids('integration_id=int_other')).toEqual([]);
    expect(await ids('limit=1')).toEqual([second.threadId]);
    const page = (await admin.call('GET', `projects/${PROJECT.id}/conversations?limit=1`)).body;
    expect(await ids(`limit=1&cursor=${encodeURIComponent(page.next_cursor)}`)).toEqual([first.threadId]);

    const thread = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${second.threadId}`)).body;
    expect(thread.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(thread.messages[1].sources.length).toBeGreaterThan(0);
    expect(thread.messages[1].feedback).toEqual([
      {
        reaction: 'downvote',
        comment: { irrelevant: true, issue: 'Not what I asked' },
        at: expect.any(String),
        voter_key: await ownerKey('bob', secret),
      },
    ]);
    expect((await admin.call('GET', `projects/other/conversations/${second.threadId}`)).status).toBe(404);
  });

  it('a handoff the visitor asks for is kept with the thread (first time only) for the Handoff filter', async () => {
    const { admin, session, chat, call, clock } = await setup();
    const alice = await session('alice');
    const { threadId } = await chat(alice, 'Can I talk to someone?');
    expect(
      (
        await call('POST', `${AGENT}/handoff/`, {
          token: await session('bob'),
          body: { thread_id: threadId },
        })
      ).status,
    ).toBe(404);
    expect(
      (await call('POST', `${AGENT}/handoff/`, { token: alice, body: { thread_id: 'nope' } })).status,
    ).toBe(400);
    expect(
      (await call('POST', `${AGENT}/handoff/`, { token: alice, body: { thread_id: threadId } })).status,
    ).toBe(204);
    const first = new Date(clock.now()).toISOString();
    clock.advance(60_000);
    expect(
      (await call('POST', `${AGENT}/handoff/`, { token: alice, body: { thread_id: threadId } })).status,
    ).toBe(204);
    const listed = (await admin.call('GET', `projects/${PROJECT.id}/conversations?handoff=1`)).body.threads;
    expect(listed.map((t: { id: string; handoff_at: string }) => [t.id, t.handoff_at])).toEqual([
      [threadId, first.replace('Z', '000Z')],
    ]);
  });

  it('the audit log says who did what, when and from where', async () => {
    const { admin } = await setup();
    const key = (await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Audited' })).body;
    await admin.call('DELETE', `projects/${PROJECT.id}/keys/${key.id}`);
    const entries = (await admin.call('GET', 'audit')).body.entries;
    expect(
      entries
        .slice(0, 3)
        .map((e: { actor: string; action: string; target: string; address: string }) => [
          e.actor,
          e.action,
          e.target,
          e.address,
        ]),
    ).toEqual([
      ['ada', 'key.revoke', key.id, '10.0.0.1'],
      ['ada', 'key.create', key.id, '10.0.0.1'],
      ['ada', 'sign_in', null, '10.0.0.1'],
    ]);
    expect(JSON.stringify(entries)).not.toContain(key.key);
  });
});
