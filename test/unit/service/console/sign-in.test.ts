import { describe, expect, it } from 'vitest';
import { ADMIN, CONSOLE, addAdmin, consoleClient, withConsole } from '../../../fixtures/console.js';
import { PROJECT, makeService } from '../../../fixtures/service.js';

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
