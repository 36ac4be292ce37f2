/** The console's webhooks: admins add them (the secret once), list them with their deliveries, test and delete them. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withConsole } from '../../../fixtures/console.js';
import { PROJECT } from '../../../fixtures/service.js';

const SLACK = 'https://hooks.slack.test/services/T000/B000/s3cr3tpath';
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A receiver on this machine answering every request with `status`. */
async function receiver(status: number) {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(status).end(status === 200 ? 'ok' : 'invalid_payload'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

describe('console webhooks', () => {
  it('shows the signing secret once; the list and the audit log show neither it nor the address’s secret path', async () => {
    const { admin, service } = await withConsole();
    const created = await admin.call('POST', `projects/${PROJECT.id}/webhooks`, {
      url: SLACK,
      events: ['downvote', 'handoff', 'downvote'],
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body).toMatchObject({
      url_shown: 'https://hooks.slack.test/services/…',
      events: ['handoff', 'downvote'],
      deliveries: [],
    });
    const listed = await admin.call('GET', `projects/${PROJECT.id}/webhooks`);
    expect(listed.body.webhooks).toEqual([expect.objectContaining({ id: created.body.id })]);
    const audit = await admin.call('GET', 'audit');
    expect(audit.body.entries[0]).toMatchObject({ action: 'webhook.create', target: created.body.id });
    for (const text of [JSON.stringify(listed.body), JSON.stringify(audit.body)]) {
      expect(text).not.toContain(created.body.secret);
      expect(text).not.toContain('s3cr3tpath');
    }
    expect((await service.storage.notifications.listWebhooks(PROJECT.id))[0].url).toBe(SLACK);
  });

  it('says whether its messages link the conversation: only when the service knows its public URL', async () => {
    const known = await withConsole();
    expect((await known.admin.call('GET', `projects/${PROJECT.id}/webhooks`)).body.conversation_links).toBe(
      true,
    );
    // Started without --public-url: the messages' url is null, and the page must say why.
    const unknown = await withConsole({ publicUrl: undefined });
    expect((await unknown.admin.call('GET', `projects/${PROJECT.id}/webhooks`)).body.conversation_links).toBe(
      false,
    );
  });

  it('refuses addresses that are not https, unknown events, and changes without the CSRF token', async () => {
    const { admin } = await withConsole();
    const add = (body: unknown, headers?: Record<string, string>) =>
      admin.call('POST', `projects/${PROJECT.id}/webhooks`, body, headers);
    for (const url of [
      'http://hooks.example.com/x',
      'ftp://example.com/',
      'https://user:pw@example.com/',
      'not a url',
      `https://example.com/${'x'.repeat(2000)}`,
    ])
      expect((await add({ url, events: ['handoff'] })).status).toBe(400);
    expect((await add({ url: SLACK, events: [] })).status).toBe(400);
    expect((await add({ url: SLACK, events: ['handoff', 'upvote'] })).status).toBe(400);
    expect((await add({ url: SLACK, events: ['handoff'] }, { 'X-CSRF-Token': '' })).status).toBe(403);
    expect((await admin.call('GET', 'projects/nope/webhooks')).status).toBe(404);
  });

  it('refuses in words, before saving, an address on the service’s own network; the operator’s setting allows it (decision 628)', async () => {
    const names: Record<string, string[]> = {
      'metadata.example.com': ['169.254.169.254'],
      'mixed.example.com': ['93.184.215.14', '10.1.2.3'],
      'chat.lan': ['192.168.1.20'],
      localhost: ['127.0.0.1'],
    };
    const webhookResolve = async (host: string) =>
      (names[host] ?? []).map((address) => ({ address, family: 4 as const }));
    const { admin, service } = await withConsole({ webhookResolve });
    const add = (url: string) =>
      admin.call('POST', `projects/${PROJECT.id}/webhooks`, { url, events: ['handoff'] });
    const setting = '--allow-private-webhooks (AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS=1)';
    for (const [url, why] of [
      [
        'https://169.254.169.254/latest/meta-data/',
        '169.254.169.254 is not a public address (link-local, where cloud metadata answers)',
      ],
      ['https://2130706433/hook', '127.0.0.1 is not a public address (loopback)'],
      ['https://0x7f.1/hook', '127.0.0.1 is not a public address (loopback)'],
      [
        'https://[::ffff:127.0.0.1]/hook',
        '::ffff:7f00:1 is not a public address (loopback: 127.0.0.1 inside IPv6)',
      ],
      ['https://[fd00::1]/hook', 'fd00::1 is not a public address (unique-local)'],
      ['https://100.64.1.1/hook', 'shared (carrier-grade NAT)'],
      [
        'https://metadata.example.com/x',
        'metadata.example.com resolves to 169.254.169.254, not a public address (link-local',
      ],
      [
        'https://mixed.example.com/x',
        'mixed.example.com resolves to 10.1.2.3, not a public address (private)',
      ],
      ['http://localhost:9/hook', 'http:// is only for a receiver on the service’s own network'],
      ['http://127.0.0.1:9/hook', 'http:// is only for a receiver on the service’s own network'],
    ]) {
      const refused = await add(url);
      expect(refused.status, url).toBe(400);
      expect(refused.body.detail, url).toContain('This address cannot be used: ');
      expect(refused.body.detail, url).toContain(why);
      expect(refused.body.detail, url).toContain(setting);
    }
    expect(await service.storage.notifications.listWebhooks(PROJECT.id)).toEqual([]);

    const local = await withConsole({ webhookResolve, allowPrivateWebhooks: true });
    const addLocal = (url: string) =>
      local.admin.call('POST', `projects/${PROJECT.id}/webhooks`, { url, events: ['handoff'] });
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost:9/hook',
      'http://chat.lan:8065/hooks/x',
      'https://[fd00::1]/hook',
    ])
      expect((await addLocal(url)).status, url).toBe(201);
    // Plain http across the internet stays refused: the body quotes visitors.
    const http = await addLocal('http://mixed.example.com/x');
    expect(http.status).toBe(400);
    expect(http.body.detail).toContain('anywhere else the address must be https://');
  });

  it("another project's webhook is not found under this project: no delete, no test, no deliveries", async () => {
    const { admin } = await withConsole();
    const other = (await admin.call('POST', 'projects', { name: 'Other' })).body;
    const theirs = (
      await admin.call('POST', `projects/${other.id}/webhooks`, { url: SLACK, events: ['handoff'] })
    ).body;
    expect((await admin.call('DELETE', `projects/${PROJECT.id}/webhooks/${theirs.id}`)).status).toBe(404);
    expect((await admin.call('POST', `projects/${PROJECT.id}/webhooks/${theirs.id}/test`, {})).status).toBe(
      404,
    );
    expect((await admin.call('GET', `projects/${PROJECT.id}/webhooks`)).body.webhooks).toEqual([]);
    expect((await admin.call('GET', `projects/${other.id}/webhooks`)).body.webhooks).toHaveLength(1);
    expect((await admin.call('DELETE', `projects/${other.id}/webhooks/${theirs.id}`)).status).toBe(204);
    expect((await admin.call('GET', `projects/${other.id}/webhooks`)).body.webhooks).toEqual([]);
    const actions = (await admin.call('GET', 'audit')).body.entries.map((e: { action: string }) => e.action);
    expect(actions.slice(0, 2)).toEqual(['webhook.delete', 'webhook.create']);
  });

  it('"Send a test" sends at once and answers with the attempt; a refused test is not tried again', async () => {
    // The receivers are on this machine: its operator allows that.
    const { admin, service, clock } = await withConsole({ allowPrivateWebhooks: true });
    const ok = (
      await admin.call('POST', `projects/${PROJECT.id}/webhooks`, {
        url: await receiver(200),
        events: ['handoff'],
      })
    ).body;
    const bad = (
      await admin.call('POST', `projects/${PROJECT.id}/webhooks`, {
        url: await receiver(500),
        events: ['handoff'],
      })
    ).body;
    const sent = await admin.call('POST', `projects/${PROJECT.id}/webhooks/${ok.id}/test`, {});
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      event: 'test',
      status: 'sent',
      attempts: 1,
      status_code: 200,
      error: null,
    });
    const refused = await admin.call('POST', `projects/${PROJECT.id}/webhooks/${bad.id}/test`, {});
    expect(refused.body).toMatchObject({
      status: 'failed',
      attempts: 1,
      status_code: 500,
      error: 'invalid_payload',
    });
    clock.advance(3_600_000);
    expect(await service.deliverNotifications()).toBe(0);
    const listed = (await admin.call('GET', `projects/${PROJECT.id}/webhooks`)).body.webhooks;
    expect(listed.map((w: { deliveries: unknown[] }) => w.deliveries.length)).toEqual([1, 1]);
    expect((await admin.call('GET', 'audit')).body.entries[0]).toMatchObject({
      action: 'webhook.test',
      target: bad.id,
    });
  });
});
