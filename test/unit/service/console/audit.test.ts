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
});
