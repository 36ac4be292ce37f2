import { describe, expect, it } from 'vitest';
import { withConsole } from '../../../fixtures/console.js';
import { BASE, PROJECT } from '../../../fixtures/service.js';

describe('console projects', () => {
  it('creates, renames and deletes a project (only with its id as confirmation), and the agent API follows at once', async () => {
    const { admin, call } = await withConsole();
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
});
