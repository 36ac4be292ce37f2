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
    expect(
      await store.accounts.createAdmin({ username: 'ada', passwordHash: 'scrypt$x', createdAt: T0 }),
    ).toBe(true);
    expect(await store.accounts.createAdmin({ username: 'ada', passwordHash: 'other', createdAt: T0 })).toBe(
      false,
    );
    expect((await store.accounts.getAdmin('ada'))?.passwordHash).toBe('scrypt$x');
    await store.accounts.putConsoleSession({
      tokenHash: 'h1',
      username: 'ada',
      csrf: 'c1',
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    expect(await store.accounts.getConsoleSession('h1')).toMatchObject({ username: 'ada', csrf: 'c1' });
    await store.accounts.recordSignInFailure(['user:ada', 'addr:1.2.3.4'], T0);
    await store.accounts.recordSignInFailure(['user:ada'], T0 + 10);
    expect(await store.accounts.signInFailures('user:ada', T0)).toEqual({ count: 2, oldest: T0 });
    expect(await store.accounts.signInFailures('user:ada', T0 + 5)).toEqual({ count: 1, oldest: T0 + 10 });
    await store.accounts.clearSignInFailures('user:ada');
    expect((await store.accounts.signInFailures('user:ada', 0)).count).toBe(0);
    expect((await store.accounts.signInFailures('addr:1.2.3.4', 0)).count).toBe(1);
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
});
