/** `agent-chat-service admin add | list | remove | password` on every engine (decisions 689, 690). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type AdminIo, adminCommand } from '../../../../service/admin-cli.js';
import { scryptPasswords } from '../../../../service/console-node.js';
import { lockDataDir } from '../../../../service/storage/data-dir-lock.js';
import type { Stores } from '../../../../service/storage/types.js';
import { T0 } from '../../../fixtures/records.js';
import { storageSuite } from '../../../fixtures/storages.js';

storageSuite('admin command', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  /** Runs the command on the suite's store (which it leaves open), `password` as stdin's. */
  const run = async (args: string[], password = '', allowNoAdmins = false, role?: string) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: AdminIo = {
      out: (line) => out.push(line),
      error: (line) => err.push(line),
      readPassword: async () => password,
    };
    const code = await adminCommand(args, { allowNoAdmins, role }, { dataDir: 'unused' }, io, async () => ({
      ...store,
      close: async () => {},
    }));
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const session = (tokenHash: string, username: string, at = T0) =>
    store.accounts.putConsoleSession({
      tokenHash,
      username,
      csrf: 'c',
      createdAt: at,
      expiresAt: Date.now() + 60_000,
    });

  it('lists the admins with when each was added and last signed in', async () => {
    await open();
    expect(await run(['list'])).toEqual({
      code: 0,
      out: 'No console admins yet. Add one with: agent-chat-service admin add USERNAME',
      err: '',
    });
    expect((await run(['add', 'Grace'], 'twelve chars')).out).toMatch(/^Added console admin grace/);
    await store.accounts.createAdmin({ username: 'ada', passwordHash: 'x', createdAt: T0 });
    await session('h1', 'ada', T0 + 90_000);
    const { code, out } = await run(['list']);
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^USERNAME\s+ROLE\s+ADDED\s+LAST SIGN-IN$/);
    expect(lines[1]).toBe('ada       admin  2026-11-21 09:00 UTC  2026-11-21 09:01 UTC');
    expect(lines[2]).toMatch(/^grace {5}admin  \d{4}-\d\d-\d\d \d\d:\d\d UTC {2}never$/);
  });

  it('removes an admin and ends their sessions at once; the last one only when told, saying how to add one', async () => {
    await open();
    for (const username of ['ada', 'bob'])
      await store.accounts.createAdmin({ username, passwordHash: 'x', createdAt: T0 });
    await session('a1', 'ada');
    await session('b1', 'bob');
    expect(await run(['remove', 'Ada'])).toEqual({
      code: 0,
      out: 'Removed console admin ada; their console sessions have ended.',
      err: '',
    });
    expect(await store.accounts.getConsoleSession('a1')).toBeUndefined();
    expect(await run(['remove', 'ada'])).toMatchObject({
      code: 1,
      err: 'agent-chat-service admin: there is no admin named ada.',
    });

    const last = await run(['remove', 'bob']);
    expect(last.code).toBe(1);
    expect(last.err).toContain('bob is the only console admin');
    expect(last.err).toContain('agent-chat-service admin add USERNAME');
    expect(last.err).toContain('--allow-no-admins');
    expect(await store.accounts.getConsoleSession('b1')).toMatchObject({ username: 'bob' });

    const none = await run(['remove', 'bob'], '', true);
    expect(none.code).toBe(0);
    expect(none.out).toContain('No admin is left: add one with agent-chat-service admin add USERNAME');
    expect(await store.accounts.hasAdmins()).toBe(false);
    const audit = await store.accounts.listAudit({ limit: 10 });
    expect(audit.map((e) => [e.actor, e.action, e.target])).toEqual([
      ['cli', 'admin.remove', 'bob'],
      ['cli', 'admin.remove', 'ada'],
    ]);
  });

  it('sets a new password read as add reads it, and ends every session of that admin', async () => {
    await open();
    await store.accounts.createAdmin({ username: 'ada', passwordHash: 'x', createdAt: T0 });
    await session('a1', 'ada');
    await session('a2', 'ada');
    expect(await run(['password', 'ada'], 'eleven char')).toEqual({
      code: 1,
      out: '',
      err: 'agent-chat-service admin: the password must be at least 12 characters (it has 11).',
    });
    expect(await run(['password', 'nobody'], 'a new password')).toMatchObject({
      code: 1,
      err: 'agent-chat-service admin: there is no admin named nobody.',
    });
    expect(await run(['password', 'ada'], 'a new password')).toEqual({
      code: 0,
      out: 'Set a new password for console admin ada; 2 console sessions ended.',
      err: '',
    });
    const admin = await store.accounts.getAdmin('ada');
    expect(await scryptPasswords.verify('a new password', admin!.passwordHash)).toBe(true);
    expect(await store.accounts.getConsoleSession('a1')).toBeUndefined();
    expect((await store.accounts.listAudit({ limit: 1 }))[0]).toMatchObject({
      actor: 'cli',
      action: 'admin.password',
      target: 'ada',
      detail: { sessions_ended: 2 },
    });
  });

  it('a wrong call is exit 2 with the usage', async () => {
    await open();
    for (const [args, allow, role] of [
      [['remove']],
      [['list', 'x']],
      [['password', 'a', 'b']],
      [['rename', 'a']],
      [['list'], true],
      [['role', 'a']],
      [['role', 'a', 'viewer', 'x']],
      [['list'], false, 'viewer'],
    ] as [string[], boolean?, string?][]) {
      const result = await run(args, '', allow, role);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.err).toContain(
        'usage: agent-chat-service admin add USERNAME [--role admin|viewer] | list',
      );
    }
  });

  it('adds a viewer with --role, changes a role, and never makes the last admin a viewer; audited', async () => {
    await open();
    expect(await run(['add', 'vera'], 'twelve chars', false, 'viewer')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^Added console viewer \(reads, changes nothing\) vera/),
    });
    expect((await run(['add', 'x'], 'twelve chars', false, 'owner')).err).toContain('"owner" is not a role');
    await run(['add', 'ada'], 'twelve chars');
    expect((await run(['role', 'ada', 'viewer'])).err).toContain('ada is the only console admin');
    expect(await run(['role', 'vera', 'admin'])).toMatchObject({
      code: 0,
      out: 'vera is now an admin, from their next click in the console.',
    });
    expect((await run(['role', 'vera', 'admin'])).out).toBe('vera is an admin already.');
    expect((await run(['role', 'nobody', 'admin'])).err).toContain('there is no admin named nobody');
    expect((await run(['role', 'ada', 'viewer'])).code).toBe(0);
    expect((await store.accounts.listAdmins()).map((a) => [a.username, a.role])).toEqual([
      ['ada', 'viewer'],
      ['vera', 'admin'],
    ]);
    const audit = await store.accounts.listAudit({ limit: 10 });
    expect(audit.map((e) => [e.actor, e.action, e.target, e.detail])).toEqual([
      ['cli', 'admin.role', 'ada', { role: 'viewer' }],
      ['cli', 'admin.role', 'vera', { role: 'admin' }],
      ['cli', 'admin.add', 'ada', { role: 'admin' }],
      ['cli', 'admin.add', 'vera', { role: 'viewer' }],
    ]);
    // A viewer left alone can change nothing: the last admin goes only when told, saying so.
    expect((await run(['remove', 'vera'])).err).toContain('vera is the only console admin');
    expect((await run(['remove', 'vera'], '', true)).out).toContain(
      'No admin is left: add one with agent-chat-service admin add USERNAME, or make a viewer one with agent-chat-service admin role USERNAME admin.',
    );
  });
});

it('on a data directory the service holds, says to stop it or use the console, not to take another directory', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-admin-'));
  const release = await lockDataDir(dataDir);
  try {
    const err: string[] = [];
    const io: AdminIo = {
      out: () => {},
      error: (line) => err.push(line),
      readPassword: async () => 'a-long-password',
    };
    expect(await adminCommand(['add', 'ada'], {}, { dataDir }, io)).toBe(1);
    expect(err.join('\n')).toBe(
      `agent-chat-service admin: the data directory ${dataDir} is in use by process ${process.pid}, the service running on it. ` +
        'The embedded database takes one process: stop the service first, then run this again ' +
        `(if no such process runs, delete ${join(dataDir, 'agent-chat-service.lock')}). ` +
        "Or, signed in as an admin, on the console's Admins page.",
    );
  } finally {
    await release();
    await rm(dataDir, { recursive: true, force: true });
  }
});
