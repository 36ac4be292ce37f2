/**
 * The console's admins, managed by the admins (decisions 689-691): the list, adding one,
 * removing one (their open console signed out at once), one's own password, one's other sessions.
 */
import { describe, expect, it } from 'vitest';
import { createAgentService } from '../../../../service/index.js';
import type { Stores } from '../../../../service/storage/types.js';
import { ADMIN, CONSOLE, addAdmin, consoleClient } from '../../../fixtures/console.js';
import { BASE, PROJECT, makeService } from '../../../fixtures/service.js';
import { engines } from '../../../fixtures/storages.js';

const BOB = { username: 'bob', password: 'bob has a long password' };

describe.each(engines())('console admins on $name', { timeout: 30_000 }, (engine) => {
  /** A service on the engine's store with ada signed in; the store is closed after `test`. */
  async function withAdmins(test: (made: Awaited<ReturnType<typeof start>>) => Promise<void>) {
    const storage = await engine.open();
    try {
      await test(await start(storage));
    } finally {
      await storage.close();
    }
  }
  async function start(storage: Stores) {
    const { service, clock } = makeService({ console: CONSOLE, storage });
    await addAdmin(storage);
    const ada = consoleClient(service);
    expect((await ada.signIn()).status).toBe(200);
    const actions = async () =>
      (await storage.accounts.listAudit({ limit: 50 })).map((e) => [e.actor, e.action, e.target]);
    return { service, clock, storage, ada, actions };
  }

  it('lists the admins; adds one with a password that meets the rules, who can then sign in', async () => {
    await withAdmins(async ({ service, ada, actions }) => {
      const first = await ada.call('GET', 'admins');
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        admins: [
          {
            username: 'ada',
            role: 'admin',
            created_at: expect.any(String),
            last_sign_in_at: expect.any(String),
            you: true,
          },
        ],
        min_password_chars: 12,
      });
      expect(
        (await ada.call('POST', 'admins', { username: 'bob', password: 'too short' })).body,
      ).toMatchObject({
        code: 'invalid_request',
        detail: 'The password must be at least 12 characters (it has 9).',
      });
      expect((await ada.call('POST', 'admins', { username: '-bob', password: BOB.password })).status).toBe(
        400,
      );
      expect(
        (await ada.call('POST', 'admins', { username: 'ada', password: BOB.password })).body,
      ).toMatchObject({
        code: 'admin_exists',
      });
      const added = await ada.call('POST', 'admins', { username: ' Bob ', password: BOB.password });
      expect(added).toMatchObject({
        status: 201,
        body: { username: 'bob', last_sign_in_at: null, you: false },
      });
      expect(
        (await ada.call('GET', 'admins')).body.admins.map((a: { username: string }) => a.username),
      ).toEqual(['ada', 'bob']);
      expect((await consoleClient(service).signIn(BOB.username, BOB.password)).status).toBe(200);
      expect((await actions()).slice(0, 2)).toEqual([
        ['bob', 'sign_in', null],
        ['ada', 'admin.add', 'bob'],
      ]);
    });
  });

  it('adds a viewer, who reads but changes nothing; a new role applies at their next call; never the last admin a viewer', async () => {
    await withAdmins(async ({ service, ada, storage }) => {
      expect((await ada.call('POST', 'admins', { ...BOB, role: 'owner' })).status).toBe(400);
      expect((await ada.call('POST', 'admins', { username: 'bob' })).body.detail).toBe(
        'Send username and password.',
      );
      expect((await ada.call('PATCH', 'admins/ada', { role: 1 })).body.detail).toBe('Send role.');
      const added = await ada.call('POST', 'admins', { ...BOB, role: 'viewer' });
      expect(added).toMatchObject({ status: 201, body: { username: 'bob', role: 'viewer' } });
      const bob = consoleClient(service);
      expect((await bob.signIn(BOB.username, BOB.password)).body).toMatchObject({ role: 'viewer' });
      expect((await bob.call('GET', 'session')).body).toMatchObject({ username: 'bob', role: 'viewer' });
      expect((await bob.call('GET', 'admins')).status).toBe(200);
      expect((await bob.call('PATCH', 'admins/bob', { role: 'admin' })).body.code).toBe('admin_only');
      expect((await bob.call('POST', 'projects', { name: 'X' })).body.code).toBe('admin_only');
      // The last admin stays one, whoever asks.
      const demote = await ada.call('PATCH', 'admins/ada', { role: 'viewer' });
      expect(demote).toMatchObject({ status: 409, body: { code: 'last_admin' } });
      expect(demote.body.detail).toContain('ada is the only admin');
      expect((await ada.call('PATCH', 'admins/nobody', { role: 'viewer' })).status).toBe(404);
      expect((await ada.call('PATCH', 'admins/bob', { role: 'admin' })).body).toEqual({
        username: 'bob',
        role: 'admin',
      });
      // bob's open console can change things at once, with the session it has.
      expect((await bob.call('POST', 'projects', { name: 'X' })).status).toBe(201);
      expect((await ada.call('PATCH', 'admins/ada', { role: 'viewer' })).status).toBe(200);
      expect((await ada.call('POST', 'projects', { name: 'Y' })).body.code).toBe('admin_only');
      const entries = await storage.accounts.listAudit({ limit: 50, action: 'admin.role' });
      expect(entries.map((e) => [e.actor, e.target, e.detail])).toEqual([
        ['ada', 'ada', { role: 'viewer' }],
        ['ada', 'bob', { role: 'admin' }],
      ]);
      expect((await storage.accounts.listAudit({ limit: 50, action: 'admin.add' }))[0].detail).toEqual({
        role: 'viewer',
      });
    });
  });

  it('removes another admin: their open console is signed out at once and they cannot sign in; never the last one', async () => {
    await withAdmins(async ({ service, storage, ada, actions }) => {
      await addAdmin(storage, BOB.username, BOB.password);
      const bob = consoleClient(service);
      expect((await bob.signIn(BOB.username, BOB.password)).status).toBe(200);
      expect((await bob.call('GET', 'projects')).status).toBe(200);

      expect((await ada.call('DELETE', 'admins/bob')).status).toBe(204);
      expect((await bob.call('GET', 'projects')).body).toMatchObject({ code: 'signed_out' });
      expect((await bob.call('GET', 'session')).body).toEqual({ username: null });
      expect((await consoleClient(service).signIn(BOB.username, BOB.password)).status).toBe(401);
      expect((await ada.call('DELETE', 'admins/bob')).status).toBe(404);

      // Ada is the only one now: she cannot remove herself, and stays signed in.
      const last = await ada.call('DELETE', 'admins/ada');
      expect(last).toMatchObject({ status: 409, body: { code: 'last_admin' } });
      expect(last.body.detail).toContain('add another');
      expect((await ada.call('GET', 'admins')).status).toBe(200);
      expect(await actions()).toContainEqual(['ada', 'admin.remove', 'bob']);
    });
  });

  it('an admin may remove themself while another remains: their cookie is cleared and the session is gone', async () => {
    await withAdmins(async ({ storage, ada }) => {
      await addAdmin(storage, BOB.username, BOB.password);
      const gone = await ada.call('DELETE', 'admins/ada');
      expect(gone.status).toBe(204);
      expect(gone.headers.get('Set-Cookie')).toMatch(/Max-Age=0/);
      expect((await storage.accounts.listAdmins()).map((a) => a.username)).toEqual(['bob']);
    });
  });

  it('changes their own password with the current one: their other sessions end, this one stays', async () => {
    await withAdmins(async ({ service, ada, actions }) => {
      const laptop = consoleClient(service);
      expect((await laptop.signIn()).status).toBe(200);
      const change = (current: string, next: string) =>
        ada.call('PUT', 'password', { current_password: current, new_password: next });
      expect((await change(ADMIN.password, 'short')).status).toBe(400);
      expect(await change('not my password', 'a brand new password')).toMatchObject({
        status: 403,
        body: { code: 'wrong_password' },
      });
      const changed = await change(ADMIN.password, 'a brand new password');
      expect(changed).toMatchObject({ status: 200, body: { sessions_ended: 1 } });
      expect((await laptop.call('GET', 'projects')).status).toBe(401);
      expect((await ada.call('GET', 'projects')).status).toBe(200);
      expect((await consoleClient(service).signIn(ADMIN.username, ADMIN.password)).status).toBe(401);
      expect((await consoleClient(service).signIn(ADMIN.username, 'a brand new password')).status).toBe(200);
      const audit = await actions();
      expect(audit).toContainEqual(['ada', 'admin.password', 'ada']);
      expect(audit).toContainEqual(['ada', 'admin.password.failed', 'ada']);
    });
  });

  it('a held session guesses its current password no faster than the sign-in form could', async () => {
    await withAdmins(async ({ ada }) => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push(
          (
            await ada.call('PUT', 'password', {
              current_password: `guess ${i}`,
              new_password: 'a brand new password',
            })
          ).status,
        );
      // Five failures from a name and address, then a wait (the sign-in limits, unchanged).
      expect(statuses).toEqual([403, 403, 403, 403, 403, 429]);
    });
  });

  it('signs out their other sessions, leaving this one and other admins alone', async () => {
    await withAdmins(async ({ service, storage, ada }) => {
      await addAdmin(storage, BOB.username, BOB.password);
      const others = [consoleClient(service), consoleClient(service)];
      for (const other of others) expect((await other.signIn()).status).toBe(200);
      const bob = consoleClient(service);
      expect((await bob.signIn(BOB.username, BOB.password)).status).toBe(200);
      expect(await ada.call('DELETE', 'session/others')).toMatchObject({
        status: 200,
        body: { sessions_ended: 2 },
      });
      for (const other of others) expect((await other.call('GET', 'projects')).status).toBe(401);
      expect((await ada.call('GET', 'projects')).status).toBe(200);
      expect((await bob.call('GET', 'projects')).status).toBe(200);
      expect((await storage.accounts.listAudit({ limit: 1 }))[0]).toMatchObject({
        actor: 'ada',
        action: 'sign_out.others',
        detail: { sessions_ended: 2 },
      });
    });
  });

  it('a removal on one instance signs the admin out on every other at their next call', async () => {
    const storage = await engine.open();
    const options = {
      projects: [PROJECT],
      storage,
      rateLimit: false as const,
      console: CONSOLE,
      publicUrl: BASE,
    };
    const a = createAgentService(options);
    // One store for both instances: a closes it, b only itself.
    const b = createAgentService({ ...options, storage: { ...storage, close: async () => {} } });
    try {
      await addAdmin(storage);
      await addAdmin(storage, BOB.username, BOB.password);
      const ada = consoleClient(a);
      const bob = consoleClient(b);
      expect((await ada.signIn()).status).toBe(200);
      expect((await bob.signIn(BOB.username, BOB.password)).status).toBe(200);
      expect((await bob.call('GET', 'admins')).status).toBe(200);
      expect((await ada.call('DELETE', 'admins/bob')).status).toBe(204);
      expect((await bob.call('GET', 'admins')).body).toMatchObject({ code: 'signed_out' });
    } finally {
      await b.close();
      await a.close();
    }
  });
});
