/** The console's accounts on every engine: admins, console sessions, sign-in failures, the audit log. */
import { expect, it } from 'vitest';
import type { Stores } from '../../../../service/index.js';
import { T0 } from '../../../fixtures/records.js';
import { storageSuite } from '../../../fixtures/storages.js';

storageSuite('accounts', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  it('keeps admins, console sessions, sign-in failures and the audit log', async () => {
    await open();
    // The start-up line offers `admin add` only while there is none to sign in with.
    expect(await store.accounts.hasAdmins()).toBe(false);
    expect(
      await store.accounts.createAdmin({ username: 'ada', passwordHash: 'scrypt$x', createdAt: T0 }),
    ).toBe(true);
    expect(await store.accounts.createAdmin({ username: 'ada', passwordHash: 'other', createdAt: T0 })).toBe(
      false,
    );
    expect((await store.accounts.getAdmin('ada'))?.passwordHash).toBe('scrypt$x');
    expect(await store.accounts.hasAdmins()).toBe(true);
    await store.accounts.putConsoleSession({
      tokenHash: 'h1',
      username: 'ada',
      csrf: 'c1',
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    expect(await store.accounts.getConsoleSession('h1')).toMatchObject({ username: 'ada', csrf: 'c1' });
    const keys = (since: number) => [
      { key: 'pair:ada', since },
      { key: 'addr:1.2.3.4', since },
    ];
    expect(await store.accounts.countSignInAttempt('a1', keys(T0), T0)).toEqual([
      { key: 'pair:ada', count: 1, oldest: null, latest: null },
      { key: 'addr:1.2.3.4', count: 1, oldest: null, latest: null },
    ]);
    await store.accounts.countSignInAttempt('a2', [{ key: 'pair:ada', since: T0 }], T0 + 10);
    expect(await store.accounts.countSignInAttempt('a3', keys(T0), T0 + 20)).toEqual([
      { key: 'pair:ada', count: 3, oldest: T0, latest: T0 + 10 },
      { key: 'addr:1.2.3.4', count: 2, oldest: T0, latest: T0 },
    ]);
    // A refused or successful attempt takes its rows back; `since` leaves older ones out.
    await store.accounts.forgetSignInAttempt('a3');
    expect((await store.accounts.countSignInAttempt('a4', keys(T0 + 5), T0 + 30))[0]).toEqual({
      key: 'pair:ada',
      count: 2,
      oldest: T0 + 10,
      latest: T0 + 10,
    });
    await store.accounts.clearSignInFailures('pair:ada');
    expect((await store.accounts.countSignInAttempt('a5', keys(0), T0 + 40)).map((c) => c.count)).toEqual([
      1, 3,
    ]);
    expect(await store.accounts.setPasswordHash('ada', 'scrypt$new')).toBe(true);
    expect(await store.accounts.setPasswordHash('nobody', 'scrypt$new')).toBe(false);
    expect((await store.accounts.getAdmin('ada'))?.passwordHash).toBe('scrypt$new');
    // A re-hash at sign-in replaces only the hash it read: a password changed meanwhile stays.
    expect(await store.accounts.setPasswordHash('ada', 'scrypt$rehashed-old', 'scrypt$x')).toBe(false);
    expect((await store.accounts.getAdmin('ada'))?.passwordHash).toBe('scrypt$new');
    expect(await store.accounts.setPasswordHash('ada', 'scrypt$rehashed', 'scrypt$new')).toBe(true);
    expect((await store.accounts.getAdmin('ada'))?.passwordHash).toBe('scrypt$rehashed');
    // Expired console sessions go with the maintenance purge.
    await store.accounts.purgeExpired(T0 + 2000);
    expect(await store.accounts.getConsoleSession('h1')).toBeUndefined();
    await store.accounts.deleteConsoleSession('h1');

    for (let i = 0; i < 3; i++)
      await store.accounts.appendAudit({
        at: T0 + i,
        actor: 'ada',
        action: `a${i}`,
        projectId: i === 1 ? 'q' : 'p',
        target: null,
        detail: { i },
        address: '1.2.3.4',
      });
    const newest = await store.accounts.listAudit({ limit: 2 });
    expect(newest.map((e) => e.action)).toEqual(['a2', 'a1']);
    expect(newest[0]).toMatchObject({ actor: 'ada', detail: { i: 2 }, address: '1.2.3.4', at: T0 + 2 });
    expect(
      (await store.accounts.listAudit({ limit: 10, before: newest[1].id })).map((e) => e.action),
    ).toEqual(['a0']);
    expect((await store.accounts.listAudit({ limit: 10, projectId: 'p' })).map((e) => e.action)).toEqual([
      'a2',
      'a0',
    ]);
  });

  it('counts sign-in attempts that come at once so that no more than a limit pass it', async () => {
    await open();
    const counts = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        store.accounts.countSignInAttempt(`at${i}`, [{ key: 'pair:ada:10.0.0.1', since: 0 }], T0 + i),
      ),
    );
    // Each attempt sees its own row and every one written before it: at most 5 see 5 or fewer.
    expect(counts.filter(([c]) => c.count <= 5).length).toBeLessThanOrEqual(5);
    expect(Math.max(...counts.map(([c]) => c.count))).toBe(60);
  });

  it('lists admins with their last sign-in, ends their sessions, and removes any but the last', async () => {
    await open();
    for (const username of ['bob', 'ada'])
      await store.accounts.createAdmin({ username, passwordHash: 'scrypt$x', createdAt: T0 });
    expect((await store.accounts.listAdmins())[1]).toEqual({
      username: 'bob',
      role: 'admin',
      createdAt: T0,
      lastSignInAt: null,
    });
    const session = (tokenHash: string, username: string, at: number) =>
      store.accounts.putConsoleSession({
        tokenHash,
        username,
        csrf: 'c',
        createdAt: at,
        expiresAt: at + 1000,
      });
    expect(await session('a1', 'ada', T0 + 1)).toBe(true);
    expect(await session('a2', 'ada', T0 + 2)).toBe(true);
    expect(await session('b1', 'bob', T0 + 3)).toBe(true);
    // A sign-in whose password was changed while it was checked makes no session.
    const stale = { tokenHash: 'b2', username: 'bob', csrf: 'c', createdAt: T0 + 4, expiresAt: T0 + 1000 };
    expect(await store.accounts.putConsoleSession(stale, 'scrypt$old')).toBe(false);
    expect(await store.accounts.getConsoleSession('b2')).toBeUndefined();
    expect(await store.accounts.putConsoleSession(stale, 'scrypt$x')).toBe(true);
    await store.accounts.deleteConsoleSession('b2');
    expect(await store.accounts.listAdmins()).toEqual([
      { username: 'ada', role: 'admin', createdAt: T0, lastSignInAt: T0 + 2 },
      { username: 'bob', role: 'admin', createdAt: T0, lastSignInAt: T0 + 4 },
    ]);

    // "Sign out my other sessions" keeps the asking one; an admin's reset ends them all.
    expect(await store.accounts.endConsoleSessions('ada', 'a2')).toBe(1);
    expect(await store.accounts.getConsoleSession('a1')).toBeUndefined();
    expect(await store.accounts.getConsoleSession('a2')).toMatchObject({ username: 'ada' });
    expect(await store.accounts.getConsoleSession('b1')).toMatchObject({ username: 'bob' });

    // A removed admin's sessions end with it; a sign-in that finishes after makes none.
    expect(await store.accounts.removeAdmin('ada', { allowNone: false })).toBe('removed');
    expect(await store.accounts.getConsoleSession('a2')).toBeUndefined();
    expect(await session('a3', 'ada', T0 + 4)).toBe(false);
    expect(await store.accounts.getConsoleSession('a3')).toBeUndefined();
    expect(await store.accounts.removeAdmin('ada', { allowNone: false })).toBe('missing');

    // The last admin stays unless the removal says it may leave none.
    expect(await store.accounts.removeAdmin('bob', { allowNone: false })).toBe('last');
    expect(await store.accounts.getConsoleSession('b1')).toMatchObject({ username: 'bob' });
    expect(await store.accounts.removeAdmin('bob', { allowNone: true })).toBe('removed');
    expect(await store.accounts.hasAdmins()).toBe(false);
  });

  it('two admins removing each other at once leave one', async () => {
    await open();
    for (const username of ['ada', 'bob'])
      await store.accounts.createAdmin({ username, passwordHash: 'scrypt$x', createdAt: T0 });
    const results = await Promise.all(
      ['ada', 'bob'].map((username) => store.accounts.removeAdmin(username, { allowNone: false })),
    );
    expect([...results].sort()).toEqual(['last', 'removed']);
    expect(await store.accounts.listAdmins()).toHaveLength(1);
  });

  it("keeps each admin's role, read with its sessions at once, and never leaves no admin by a role or a removal", async () => {
    await open();
    await store.accounts.createAdmin({ username: 'ada', passwordHash: 'scrypt$x', createdAt: T0 });
    await store.accounts.createAdmin({
      username: 'vera',
      role: 'viewer',
      passwordHash: 'scrypt$x',
      createdAt: T0,
    });
    expect((await store.accounts.getAdmin('vera'))?.role).toBe('viewer');
    await store.accounts.putConsoleSession({
      tokenHash: 'v1',
      username: 'vera',
      csrf: 'c',
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    expect(await store.accounts.getConsoleSession('v1')).toMatchObject({ username: 'vera', role: 'viewer' });
    // The only admin is neither made a viewer nor removed while a viewer remains.
    expect(await store.accounts.setRole('ada', 'viewer')).toBe('last');
    expect(await store.accounts.removeAdmin('ada', { allowNone: false })).toBe('last');
    expect(await store.accounts.setRole('vera', 'viewer')).toBe('same');
    expect(await store.accounts.setRole('nobody', 'admin')).toBe('missing');
    // A new role is what the session's next read sees.
    expect(await store.accounts.setRole('vera', 'admin')).toBe('changed');
    expect(await store.accounts.getConsoleSession('v1')).toMatchObject({ role: 'admin' });
    expect(await store.accounts.setRole('ada', 'viewer')).toBe('changed');
    expect((await store.accounts.listAdmins()).map((a) => [a.username, a.role])).toEqual([
      ['ada', 'viewer'],
      ['vera', 'admin'],
    ]);
    // A viewer goes whenever asked; the admin left stays.
    expect(await store.accounts.removeAdmin('ada', { allowNone: false })).toBe('removed');
    expect(await store.accounts.removeAdmin('vera', { allowNone: false })).toBe('last');
  });

  it('two admins making each other viewers at once leave one admin', async () => {
    await open();
    for (const username of ['ada', 'bob'])
      await store.accounts.createAdmin({ username, passwordHash: 'scrypt$x', createdAt: T0 });
    const results = await Promise.all(
      ['ada', 'bob'].map((username) => store.accounts.setRole(username, 'viewer')),
    );
    expect([...results].sort()).toEqual(['changed', 'last']);
    expect((await store.accounts.listAdmins()).filter((a) => a.role === 'admin')).toHaveLength(1);
  });

  it('filters the audit log by who, what and when, newest first', async () => {
    await open();
    const rows: [number, string, string][] = [
      [T0, 'ada', 'sign_in'],
      [T0 + 10, 'bob', 'sign_in'],
      [T0 + 20, 'ada', 'key.revoke'],
      [T0 + 30, 'cli', 'admin.add'],
    ];
    for (const [at, actor, action] of rows)
      await store.accounts.appendAudit({
        at,
        actor,
        action,
        projectId: null,
        target: null,
        detail: null,
        address: null,
      });
    const list = async (filter: Partial<Parameters<Stores['accounts']['listAudit']>[0]>) =>
      (await store.accounts.listAudit({ limit: 10, ...filter })).map((e) => `${e.actor} ${e.action}`);
    expect(await list({ actor: 'ada' })).toEqual(['ada key.revoke', 'ada sign_in']);
    expect(await list({ action: 'sign_in' })).toEqual(['bob sign_in', 'ada sign_in']);
    expect(await list({ from: T0 + 10, to: T0 + 30 })).toEqual(['ada key.revoke', 'bob sign_in']);
    expect(await list({ actor: 'ada', action: 'sign_in', from: T0 })).toEqual(['ada sign_in']);
    const newest = await store.accounts.listAudit({ limit: 1, action: 'sign_in' });
    expect(await list({ action: 'sign_in', before: newest[0].id })).toEqual(['ada sign_in']);
  });
});
