import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { OpenAiAgent, loadDocsFolder } from '../../../../service/node.js';
import { nodeConsole, scryptHasher, scryptPasswords } from '../../../../service/console-node.js';
import { ADMIN, CONSOLE, addAdmin, consoleClient, withConsole } from '../../../fixtures/console.js';
import { answers, upstream } from '../../../fixtures/model-upstream.js';
import { BASE, PROJECT, chatRecords, makeService } from '../../../fixtures/service.js';
import type { AgentService } from '../../../../service/index.js';

/** A sign-in as the console's page sends it, with the browser's cookies (`Cookie`). */
const signInWith = (
  service: AgentService,
  address: string,
  username: string,
  password: string,
  cookie = '',
) =>
  service.handle(
    new Request(`${BASE}/console/api/session`, {
      method: 'POST',
      headers: {
        Origin: BASE,
        'Sec-Fetch-Site': 'same-origin',
        'Content-Type': 'application/json',
        ...(cookie && { Cookie: cookie }),
      },
      body: JSON.stringify({ username, password }),
    }),
    { clientAddress: address },
  );

const knownCookieOf = (response: Response) =>
  response.headers.getSetCookie().find((c) => c.startsWith('__Secure-agent_chat_console_known='));

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
    // Its answers stay with its own pages: no other site's window or element reaches them.
    expect(right.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin');
    expect(right.headers.get('Cross-Origin-Resource-Policy')).toBe('same-origin');
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

  it('keeps the cookie and the redirect under the path a proxy serves the service on', async () => {
    // https://example.test/chat/ → the service, the proxy stripping /chat: the browser's console is /chat/console/.
    const { service } = makeService({ console: CONSOLE, publicUrl: 'https://example.test/chat/' });
    await addAdmin(service.storage);
    const right = await consoleClient(service, { base: 'http://127.0.0.1:8787' }).signIn();
    expect(right.status).toBe(200);
    expect(right.headers.get('Set-Cookie')).toContain('Path=/chat/console/;');
    const bare = await service.handle(new Request('http://127.0.0.1:8787/console'));
    expect(bare.status).toBe(308);
    expect(new URL(bare.headers.get('Location')!, 'https://example.test/chat/console').href).toBe(
      'https://example.test/chat/console/',
    );
    // At the origin's root, as before.
    const root = makeService({ console: CONSOLE, publicUrl: 'https://example.test' }).service;
    await addAdmin(root.storage);
    expect((await consoleClient(root).signIn()).headers.get('Set-Cookie')).toContain('Path=/console/;');
  });

  it('locks a name only at the address that failed, with a backoff; the admin signs in from elsewhere', async () => {
    const { service, clock } = makeService({ console: CONSOLE });
    await addAdmin(service.storage);
    const from = (address: string, password = 'wrong password!') =>
      consoleClient(service, { address }).signIn(ADMIN.username, password);
    for (let i = 0; i < 5; i++) expect((await from('10.0.1.1')).status).toBe(401);
    const locked = await from('10.0.1.1', ADMIN.password);
    expect(locked.status).toBe(429);
    expect(locked.body.detail).toMatch(/Too many failed sign-ins/);
    expect(locked.headers.get('Retry-After')).toBe('60');
    // Five failures from one address lock nobody else out: the admin signs in from another.
    expect((await from('10.0.2.1', ADMIN.password)).status).toBe(200);

    // The waits double at that address: 1 min, then 2, then 4.
    clock.advance(60_000);
    expect((await from('10.0.1.1')).status).toBe(401);
    clock.advance(60_000);
    expect((await from('10.0.1.1')).headers.get('Retry-After')).toBe('60');
    clock.advance(60_000);
    expect((await from('10.0.1.1')).status).toBe(401);
    expect(Number((await from('10.0.1.1')).headers.get('Retry-After'))).toBe(240);
    // A guess every 3 minutes from many addresses never locks the admin out.
    for (let i = 0; i < 5; i++) {
      clock.advance(180_000);
      expect((await from(`10.0.3.${i}`)).status).toBe(401);
      expect((await from('10.0.2.1', ADMIN.password)).status).toBe(200);
    }
    // The right password once the wait is over clears that address's count.
    clock.advance(240_000);
    expect((await from('10.0.1.1', ADMIN.password)).status).toBe(200);
    expect((await from('10.0.1.1')).status).toBe(401);
    expect((await from('10.0.1.1')).status).toBe(401);
  });

  it('limits one address to 20 sign-ins in 15 minutes, whatever the names', async () => {
    const { service, clock } = makeService({ console: CONSOLE });
    await addAdmin(service.storage);
    await addAdmin(service.storage, 'bea');
    for (let i = 0; i < 20; i++)
      expect(
        (await consoleClient(service, { address: '10.9.9.9' }).signIn(`user${i}`, 'guess guess guess'))
          .status,
      ).toBe(401);
    const refused = await consoleClient(service, { address: '10.9.9.9' }).signIn('bea', ADMIN.password);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(800);
    expect((await consoleClient(service, { address: '10.9.9.8' }).signIn('bea', ADMIN.password)).status).toBe(
      200,
    );
    clock.advance(15 * 60_000 + 1);
    expect((await consoleClient(service, { address: '10.9.9.9' }).signIn('bea', ADMIN.password)).status).toBe(
      200,
    );
  });

  it('counts each attempt before checking its password: guesses sent at once check no more than the limits allow', async () => {
    let checked = 0;
    const passwords = {
      ...CONSOLE.passwords,
      verify: (password: string, stored: string) => (checked++, CONSOLE.passwords.verify(password, stored)),
    };
    const { service } = makeService({ console: { passwords } });
    await addAdmin(service.storage);
    const statuses = async (count: number, address: string, name: (i: number) => string) =>
      (
        await Promise.all(
          Array.from({ length: count }, (_, i) =>
            consoleClient(service, { address }).signIn(name(i), 'wrong password!'),
          ),
        )
      ).map((r) => r.status);

    const oneName = await statuses(60, '10.0.3.3', () => ADMIN.username);
    expect(checked).toBeLessThanOrEqual(5);
    expect(oneName.filter((s) => s === 401)).toHaveLength(checked);
    expect(oneName.every((s) => s === 401 || s === 429 || s === 503)).toBe(true);

    checked = 0;
    const manyNames = await statuses(60, '10.0.4.4', (i) => `user${i}`);
    expect(checked).toBeLessThanOrEqual(20);
    expect(manyNames.filter((s) => s === 401)).toHaveLength(checked);
    // The rest were refused before any hash: past the address's limit (429), or while 8 waited (503).
    expect(manyNames.every((s) => s === 401 || s === 429 || s === 503)).toBe(true);
  });

  it('hashes one password at a time and lets 8 wait: past that a sign-in is refused at once with 503', async () => {
    const release: (() => void)[] = [];
    const slow = {
      ...CONSOLE.passwords,
      verify: () => new Promise<boolean>((resolve) => release.push(() => resolve(false))),
    };
    const { service } = makeService({ console: { passwords: slow } });
    await addAdmin(service.storage);
    const calls = Array.from({ length: 12 }, (_, i) =>
      consoleClient(service, { address: `10.0.5.${i}` }).signIn(ADMIN.username, 'wrong password!'),
    );
    const refused: number[] = [];
    for (const call of calls) void call.then((r) => r.status === 503 && refused.push(r.status));
    // Every attempt is counted (in the store: on PostgreSQL that takes a while) before the first
    // hash ends: one hashing, eight waiting, and the rest refused while they wait.
    await vi.waitFor(() => expect(refused).toHaveLength(3), { timeout: 10_000 });
    expect(release).toHaveLength(1);
    for (let i = 0; i < 9; i++) {
      await vi.waitFor(() => expect(release.length).toBeGreaterThan(i));
      release[i]();
    }
    const results = await Promise.all(calls);
    expect(release).toHaveLength(9);
    const busy = results.filter((r) => r.status === 503);
    expect(busy).toHaveLength(3);
    expect(busy[0].body).toEqual({
      code: 'busy',
      detail: 'Too many sign-ins at once; try again in a moment.',
    });
    expect(busy[0].headers.get('Retry-After')).toBe('1');
    expect(results.filter((r) => r.status === 401)).toHaveLength(9);
  });

  it('lets a browser that signed in to the name before past a full queue: it waits apart and goes first', async () => {
    let held = false;
    const release: (() => void)[] = [];
    const gated = {
      ...CONSOLE.passwords,
      verify: (password: string, stored: string) =>
        held
          ? new Promise<boolean>((resolve) =>
              release.push(() => resolve(CONSOLE.passwords.verify(password, stored))),
            )
          : CONSOLE.passwords.verify(password, stored),
    };
    const { service } = makeService({ console: { passwords: gated } });
    await addAdmin(service.storage);
    await addAdmin(service.storage, 'bea');
    const signIn = (address: string, username: string, password: string, cookie = '') =>
      signInWith(service, address, username, password, cookie);
    const first = await signIn('10.0.7.1', ADMIN.username, ADMIN.password);
    expect(first.status).toBe(200);
    const known = knownCookieOf(first)!;
    expect(known).toMatch(/^__Secure-agent_chat_console_known=[\w-]{43}\.[\w-]{43}; /);
    expect(known).toContain('HttpOnly');
    expect(known).toContain('SameSite=Strict');
    expect(known).toContain('Secure');
    expect(known).toContain('Path=/console/');
    const cookie = known.split(';')[0];

    // Strangers from other addresses until one is refused: one hashing, eight waiting. More than
    // nine may be sent: on PostgreSQL each reads the store before it joins the queue, and one sent
    // before the others have joined waits too (held), so it is one more stranger, not refused.
    held = true;
    const strangers = Array.from({ length: 9 }, (_, i) =>
      signIn(`10.0.8.${i}`, ADMIN.username, 'wrong password!'),
    );
    await vi.waitFor(() => expect(release).toHaveLength(1), { timeout: 10_000 });
    for (let i = 0; ; i++) {
      expect(i).toBeLessThan(20);
      const another = signIn(`10.0.9.${i}`, ADMIN.username, 'wrong password!');
      const settled = await Promise.race([another, new Promise((resolve) => setTimeout(resolve, 500))]);
      if ((settled as Response | undefined)?.status === 503) break;
      strangers.push(another);
    }
    // The admin without the cookie, or with it for another name or altered, is refused too.
    expect((await signIn('10.0.7.2', ADMIN.username, ADMIN.password)).status).toBe(503);
    expect((await signIn('10.0.7.3', 'bea', ADMIN.password, cookie)).status).toBe(503);
    expect((await signIn('10.0.7.4', ADMIN.username, ADMIN.password, `${cookie}x`)).status).toBe(503);

    // With it, the admin waits, and is hashed next, before the eight who came first.
    const admin = signIn('10.0.7.5', ADMIN.username, ADMIN.password, cookie);
    release[0]();
    await vi.waitFor(() => expect(release).toHaveLength(2), { timeout: 10_000 });
    release[1]();
    expect((await admin).status).toBe(200);
    for (let i = 2; i < 10; i++) {
      await vi.waitFor(() => expect(release.length).toBeGreaterThan(i), { timeout: 10_000 });
      release[i]();
    }
    // Nine strangers were hashed (the one first, the eight who waited); any other was refused.
    const statuses = (await Promise.all(strangers)).map((r) => r.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(9);
    expect(statuses.every((status) => status === 401 || status === 503)).toBe(true);
    expect(release).toHaveLength(10);
  });

  it('takes a sign-in as known only with the cookie its name got under the password it has now', async () => {
    const lanes: (string | undefined)[] = [];
    const spy = {
      ...CONSOLE.passwords,
      verify: (password: string, stored: string, lane?: 'known') => (
        lanes.push(lane),
        CONSOLE.passwords.verify(password, stored)
      ),
    };
    const { service } = makeService({ console: { passwords: spy } });
    // An older hash, replaced at the first sign-in: its cookie is made under the new one.
    const old = await scryptHasher({ N: 2 ** 10, r: 8, p: 1 }).hash(ADMIN.password);
    await service.storage.accounts.createAdmin({ username: ADMIN.username, passwordHash: old, createdAt: 0 });
    const first = await signInWith(service, '10.0.6.1', ADMIN.username, ADMIN.password);
    expect(first.status).toBe(200);
    const cookie = knownCookieOf(first)!.split(';')[0];
    const again = await signInWith(service, '10.0.6.2', ADMIN.username, ADMIN.password, cookie);
    expect(again.status).toBe(200);
    expect(lanes).toEqual([undefined, 'known']);

    // A signed-in admin confirming their password is known; after a new one, the old cookie is not.
    const browser = consoleClient(service);
    await browser.signIn();
    const change = await browser.call('PUT', 'password', {
      current_password: ADMIN.password,
      new_password: 'a brand new password',
    });
    expect(change.status).toBe(200);
    expect(lanes.slice(2)).toEqual([undefined, 'known']);
    const after = await signInWith(service, '10.0.6.3', ADMIN.username, 'a brand new password', cookie);
    expect(after.status).toBe(200);
    expect(lanes.slice(4)).toEqual([undefined]);
  });

  it("hashes with the service's scrypt, N = 2^17, and counts a hash made with less outdated", async () => {
    // One hash at the service's cost (128 MiB, about 0.4 s, many times that on a loaded
    // machine): what nodeConsole() gives the service, in the format it stores.
    expect((await nodeConsole()).passwords).toBe(scryptPasswords);
    const made = await scryptPasswords.hash(ADMIN.password);
    expect(made).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(scryptPasswords.outdated!(made)).toBe(false);
    // Judged from the parameters the hash names, with no hashing: 2^15, as before, is outdated.
    expect(scryptPasswords.outdated!(made.replace('$131072$', '$32768$'))).toBe(true);
  });

  it("re-hashes an older hash at the next sign-in with the service's parameters", async () => {
    // The service's own sequence at the tests' cost (2^12 for 2^17, 2^10 for the older 2^15):
    // four hashes at the service's cost took seconds each on a loaded machine.
    const { service } = makeService({ console: CONSOLE });
    const old = await scryptHasher({ N: 2 ** 10, r: 8, p: 1 }).hash(ADMIN.password);
    expect(old).toMatch(/^scrypt\$1024\$8\$1\$/);
    await service.storage.accounts.createAdmin({ username: ADMIN.username, passwordHash: old, createdAt: 0 });
    expect((await consoleClient(service).signIn()).status).toBe(200);
    const renewed = (await service.storage.accounts.getAdmin(ADMIN.username))!.passwordHash;
    expect(renewed).toMatch(/^scrypt\$4096\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect((await consoleClient(service).signIn(ADMIN.username, 'not the password at all')).status).toBe(401);
    expect((await consoleClient(service).signIn()).status).toBe(200);
    expect((await service.storage.accounts.getAdmin(ADMIN.username))!.passwordHash).toBe(renewed);
  });

  it(
    'keeps hashing off the thread pool DNS uses: a visitor answers as fast during 200 bad sign-ins at once',
    { timeout: 120_000 },
    async () => {
      // The model's host is a name, and it closes each connection: each call resolves the name
      // again, with getaddrinfo on libuv's pool.
      const answer = answers(['The', ' accent', ' colour', ' is', ' a', ' token.']);
      const model = await upstream((res, request) => {
        res.setHeader('Connection', 'close');
        return answer(res, request);
      });
      const docs = await loadDocsFolder(
        join(import.meta.dirname, '../../../fixtures/docs'),
        'https://example.test/docs',
      );
      const agent = new OpenAiAgent({
        baseUrl: model.baseUrl.replace('127.0.0.1', 'localhost'),
        model: 'm',
        docs,
      });
      const ctx = makeService({ agent, console: { passwords: scryptPasswords } });
      const token = await ctx.session('visitor');
      const ask = async () => {
        const started = performance.now();
        const { records } = await chatRecords(ctx, token, { message: 'How do I theme it?' });
        expect(records.at(-1)?.type).toBe('identifiers');
        return performance.now() - started;
      };
      await ask();
      const alone = Math.min(await ask(), await ask());
      // Unknown names: each is checked against a decoy hash at the service's own cost.
      const flood = Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          consoleClient(ctx.service, { address: `10.8.${i >> 8}.${i & 255}` }).signIn(
            `guess${i}`,
            'wrong password!',
          ),
        ),
      );
      // Asked while the sign-ins are being checked: once the decoy is made, and twice more.
      let during = 0;
      for (const pause of [300, 200, 500]) {
        await new Promise((resolve) => setTimeout(resolve, pause));
        during = Math.max(during, await ask());
      }
      const statuses = (await flood).map((r) => r.status);
      console.info(
        `a visitor's answer: ${alone.toFixed(0)} ms alone, ${during.toFixed(0)} ms during 200 sign-ins`,
      );
      expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
      // On libuv's pool the answer waited about 10 s behind the hashes; the margin is for a loaded
      // machine (and, under test:postgres, 200 attempts counted in the database first).
      expect(during).toBeLessThan(alone + 5_000);
    },
  );

  it('audits a failed sign-in under the name typed only when it can be a username', async () => {
    const { admin, service } = await withConsole();
    await consoleClient(service, { address: '10.0.6.1' }).signIn('x'.repeat(5_000), 'wrong password!');
    await consoleClient(service, { address: '10.0.6.2' }).signIn('<script>', 'wrong password!');
    await consoleClient(service, { address: '10.0.6.3' }).signIn('Mallory', 'wrong password!');
    const entries = (await admin.call('GET', 'audit')).body.entries.filter(
      (e: { action: string }) => e.action === 'sign_in.failed',
    );
    expect(entries.map((e: { actor: string }) => e.actor)).toEqual([
      'mallory',
      '(not a username)',
      '(not a username)',
    ]);
  });

  it('takes a change as JSON by its media type alone, not by a parameter that names JSON', async () => {
    // A cross-site form or no-cors fetch may send text/plain with any parameter: the JSON check
    // is a layer of its own beside Origin, Sec-Fetch-Site and the token, so it holds alone.
    const { admin, service } = await withConsole();
    const csrf = (await admin.signIn()).body.csrf_token;
    const send = async (type: string) => {
      const headers = {
        Origin: BASE,
        'Sec-Fetch-Site': 'same-origin',
        Cookie: admin.cookie,
        'X-CSRF-Token': csrf,
      };
      const body = JSON.stringify({ name: 'X' });
      const request = new Request(`${BASE}/console/api/projects`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': type },
        body,
      });
      return (await service.handle(request)).status;
    };
    for (const type of [
      'text/plain; charset=application/json',
      'text/plain;application/json',
      'application/x-www-form-urlencoded; a=application/json',
      'multipart/form-data; boundary=application/json',
      'application/jsonp',
    ])
      expect([type, await send(type)]).toEqual([type, 415]);
    expect(await send('Application/JSON; charset=utf-8')).toBe(201);
  });

  it('refuses a change without the CSRF token, from another site, or not as JSON; signed out, it refuses everything', async () => {
    const { admin, service } = await withConsole();
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
