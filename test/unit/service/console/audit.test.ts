import { describe, expect, it } from 'vitest';
import { withConsole } from '../../../fixtures/console.js';
import { PROJECT } from '../../../fixtures/service.js';

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
});
