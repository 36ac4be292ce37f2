import { describe, expect, it } from 'vitest';
import { openSqlStores } from '../../../../service/storage/sql/index.js';
import { addAdmin, consoleClient, withConsole } from '../../../fixtures/console.js';
import { PROJECT } from '../../../fixtures/service.js';
import { sqlEngines } from '../../../fixtures/storages.js';

describe('console audit log', () => {
  it('the audit log says who did what, when and from where', async () => {
    const { admin } = await withConsole();
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

  it('records reading a visitor’s conversation, searching conversations and exporting activity', async () => {
    const { admin, session, chat } = await withConsole();
    const { threadId } = await chat(await session('alice'), 'How do I theme the widget?');
    expect((await admin.call('GET', `projects/${PROJECT.id}/conversations?q=theme`)).status).toBe(200);
    // Listing without a search shows titles only and is not an entry of its own.
    expect((await admin.call('GET', `projects/${PROJECT.id}/conversations?downvoted=1`)).status).toBe(200);
    expect((await admin.call('GET', `projects/${PROJECT.id}/conversations/${threadId}`)).status).toBe(200);
    const csv = await admin.call(
      'GET',
      `projects/${PROJECT.id}/activity?start=2024-01-01&end=2024-01-31&integration_id=int_demo&format=csv`,
    );
    expect(csv.status).toBe(200);
    const entries = (await admin.call('GET', 'audit')).body.entries;
    expect(
      entries
        .slice(0, 3)
        .map((e: { actor: string; action: string; project_id: string; target: string; detail: unknown }) => [
          e.actor,
          e.action,
          e.project_id,
          e.target,
          e.detail,
        ]),
    ).toEqual([
      ['ada', 'activity.export', PROJECT.id, 'int_demo', { start: '2024-01-01', end: '2024-01-31' }],
      ['ada', 'conversation.read', PROJECT.id, threadId, null],
      ['ada', 'conversation.search', PROJECT.id, null, { q: 'theme' }],
    ]);
  });

  it('filters by who, what and UTC days, 50 a page; refuses a viewer', async () => {
    const { admin, service, clock } = await withConsole();
    // The clock starts on 2026-11-21 at 09:00 UTC.
    for (let i = 0; i < 55; i++) await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: `K${i}` });
    clock.advance(15 * 3_600_000 + 60_000);
    await admin.signIn();
    await addAdmin(service.storage, 'vera', 'a viewer password long enough', 'viewer');
    const vera = consoleClient(service);
    await vera.signIn('vera', 'a viewer password long enough');
    const list = async (query: string) => (await admin.call('GET', `audit?${query}`)).body;
    const first = await list('action=key.create&actor=ADA');
    expect(first.entries).toHaveLength(50);
    expect(first.entries.every((e: { action: string }) => e.action === 'key.create')).toBe(true);
    const second = await list(`action=key.create&actor=ada&before=${first.next_before}`);
    expect(second.entries).toHaveLength(5);
    expect(second.next_before).toBeNull();
    // Days are UTC and both included: the keys were made on the 21st, vera signed in on the 22nd.
    expect(
      (await list('start=2026-11-22&end=2026-11-22')).entries.map((e: { actor: string }) => e.actor),
    ).toEqual(['vera', 'ada']);
    expect((await list('actor=vera&end=2026-11-21')).entries).toEqual([]);
    expect((await admin.call('GET', 'audit?start=yesterday')).status).toBe(400);
    const refused = await vera.call('GET', 'audit');
    expect(refused).toMatchObject({ status: 403, body: { code: 'admin_only' } });
  });

  // The filters are the address's: whatever is typed there is a 400 at worst, never the
  // database's error as a 500 (a `before` beyond bigint, or a NUL, was one).
  it.each(sqlEngines().map((e) => [e.name, e] as const))(
    'takes hostile filters on %s',
    async (_, engine) => {
      const { admin } = await withConsole({ storage: await openSqlStores(await engine.client()) });
      const status = async (query: string) => (await admin.call('GET', `audit?${query}`)).status;
      for (const before of ['1e21', '99999999999999999999', '-1e300', '1.5', 'x', 'Infinity'])
        expect([before, await status(`before=${before}`)]).toEqual([before, 400]);
      expect(await status('before=-1')).toBe(200);
      for (const value of ["' OR 1=1 --", '%', '_', 'a'.repeat(200)]) {
        const query = new URLSearchParams({ actor: value, action: value, project_id: value });
        expect((await admin.call('GET', `audit?${query}`)).body.entries).toEqual([]);
      }
      expect(await status(`actor=${'a'.repeat(201)}`)).toBe(400);
      for (const name of ['actor', 'action', 'project_id'])
        expect(await admin.call('GET', `audit?${name}=ada%00`)).toMatchObject({
          status: 400,
          body: { code: 'invalid_request' },
        });
    },
    60_000,
  );
});
