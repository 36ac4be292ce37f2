/** The notifications role on every engine: webhooks, one delivery per event and webhook, claims, attempts, purges. */
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../../../service/storage/open.js';
import { openSqlStores } from '../../../../service/storage/sql/index.js';
import type { NotificationInput, Stores, WebhookRecord } from '../../../../service/storage/types.js';
import { T0, thread } from '../../../fixtures/records.js';
import { freshPostgresSchema, sqlEngines, storageSuite } from '../../../fixtures/storages.js';

const project = (id: string) => ({ id, name: `Project ${id}`, ownerSecret: `secret-${id}`, createdAt: T0 });
const webhook = (id: string, extra: Partial<WebhookRecord> = {}): WebhookRecord => ({
  id,
  projectId: 'p',
  url: `https://hooks.test/${id}`,
  events: ['handoff', 'downvote'],
  secret: `whsec_${id}`,
  createdAt: T0,
  ...extra,
});
const event = (extra: Partial<NotificationInput> = {}): NotificationInput => ({
  projectId: 'p',
  event: 'handoff',
  threadId: 't1',
  dedupe: 'handoff:t1',
  body: '{"n":1}',
  at: T0,
  notBefore: T0,
  ...extra,
});

storageSuite('notifications', (suite) => {
  let store: Stores;
  const open = async () => {
    store = await suite.open();
    await store.directory.createProject(project('p'));
    await store.directory.createProject(project('q'));
  };

  it('keeps webhooks per project; another project cannot delete one; a project delete takes them', async () => {
    await open();
    expect(await store.notifications.createWebhook(webhook('w1'))).toBe(true);
    expect(await store.notifications.createWebhook(webhook('w2', { projectId: 'q' }))).toBe(true);
    expect(await store.notifications.createWebhook(webhook('w3', { projectId: 'gone' }))).toBe(false);
    expect((await store.notifications.listWebhooks('p')).map((w) => w.id)).toEqual(['w1']);
    expect(await store.notifications.deleteWebhook('p', 'w2')).toBe(false);
    expect(await store.directory.deleteProject('q')).toBe(true);
    expect(await store.notifications.listWebhooks('q')).toEqual([]);
    expect((await store.notifications.listWebhooks('p'))[0]).toEqual(webhook('w1'));
  });

  it('forgets the deliveries that quote a conversation when it is deleted or purged, sent or not (decision 621)', async () => {
    await open();
    await store.notifications.createWebhook(webhook('w1'));
    for (const id of ['t1', 't2', 't3']) await store.conversations.createThread(thread(id));
    for (const id of ['t1', 't2', 't3'])
      await store.notifications.enqueue(event({ threadId: id, dedupe: `handoff:${id}` }));
    const [first] = await store.notifications.claimDeliveries(T0, 30_000, 1);
    await store.notifications.recordAttempt(first.id, {
      at: T0,
      code: 200,
      error: null,
      sent: true,
      nextAt: null,
    });
    const left = async () => (await store.notifications.listDeliveries('p', 'w1', 10)).length;
    expect(await left()).toBe(3);
    expect(await store.conversations.deleteThread('t1')).toBe(true);
    expect(await store.conversations.deleteThread('t2')).toBe(true);
    expect(await left()).toBe(1);
    // The retention's purge deletes as a delete does.
    expect(await store.conversations.purgeThreads(T0 + 1, 10)).toBe(1);
    expect(await left()).toBe(0);
  });

  it('writes a delivery to each webhook that wants the event; the same key replaces a body not yet attempted', async () => {
    await open();
    await store.notifications.createWebhook(webhook('w1'));
    await store.notifications.createWebhook(webhook('w2', { events: ['answer_failed'] }));
    await store.notifications.createWebhook(webhook('w3', { projectId: 'q' }));
    expect(await store.notifications.enqueue(event())).toBe(1);
    expect(await store.notifications.enqueue(event({ body: '{"n":2}' }))).toBe(1);
    const [claimed] = await store.notifications.claimDeliveries(T0, 30_000, 10);
    expect(claimed).toMatchObject({
      url: 'https://hooks.test/w1',
      secret: 'whsec_w1',
      body: '{"n":2}',
      attempts: 0,
    });
    await store.notifications.recordAttempt(claimed.id, {
      at: T0,
      code: 200,
      error: null,
      sent: true,
      nextAt: null,
    });
    // Sent: the same key writes nothing more (a thread's handoff notifies once).
    expect(await store.notifications.enqueue(event({ body: '{"n":3}' }))).toBe(0);
    expect(await store.notifications.listDeliveries('p', 'w1', 10)).toEqual([
      expect.objectContaining({
        id: claimed.id,
        event: 'handoff',
        status: 'sent',
        attempts: 1,
        lastCode: 200,
      }),
    ]);
    expect(await store.notifications.listDeliveries('q', 'w1', 10)).toEqual([]);
    expect(await store.notifications.listDeliveries('p', 'w2', 10)).toEqual([]);
  });

  it('withdraws the key’s deliveries not yet attempted nor held, of its project only (decision 629)', async () => {
    await open();
    await store.notifications.createWebhook(webhook('w1'));
    await store.notifications.createWebhook(webhook('w2'));
    await store.notifications.createWebhook(webhook('w3', { projectId: 'q' }));
    const vote = (dedupe: string, projectId = 'p') =>
      event({ projectId, event: 'downvote', dedupe, notBefore: T0 + 60_000 });
    expect(await store.notifications.enqueue(vote('down:a1'))).toBe(2);
    expect(await store.notifications.enqueue(vote('down:a2'))).toBe(2);
    expect(await store.notifications.enqueue(vote('down:a1', 'q'))).toBe(1);
    // Another project's key, and another key, stay.
    expect(await store.notifications.withdraw('p', 'down:a1', T0 + 1_000)).toBe(2);
    expect(await store.notifications.withdraw('p', 'down:a1', T0 + 1_000)).toBe(0);
    expect((await store.notifications.listDeliveries('q', 'w3', 10)).map((d) => d.status)).toEqual([
      'pending',
    ]);
    // One being sent stays (its attempt is recorded as it goes), and so does one attempted.
    const claimed = await store.notifications.claimDeliveries(T0 + 60_000, 30_000, 10);
    expect(claimed.map((c) => c.url).sort()).toEqual([
      'https://hooks.test/w1',
      'https://hooks.test/w2',
      'https://hooks.test/w3',
    ]);
    expect(await store.notifications.withdraw('p', 'down:a2', T0 + 60_001)).toBe(0);
    const w1 = claimed.find((c) => c.url.endsWith('/w1'))!;
    await store.notifications.recordAttempt(w1.id, {
      at: T0 + 60_002,
      code: 500,
      error: null,
      sent: false,
      nextAt: T0 + 120_000,
    });
    expect(await store.notifications.withdraw('p', 'down:a2', T0 + 100_000)).toBe(1);
    expect(await store.notifications.listDeliveries('p', 'w1', 10)).toEqual([
      expect.objectContaining({ id: w1.id, attempts: 1, status: 'pending' }),
    ]);
    expect(await store.notifications.listDeliveries('p', 'w2', 10)).toEqual([]);
  });

  it('claims a due delivery for one caller at a time; a failed attempt comes back at its next time, then gives up', async () => {
    await open();
    await store.notifications.createWebhook(webhook('w1'));
    await store.notifications.enqueue(event({ event: 'downvote', dedupe: 'd1', notBefore: T0 + 60_000 }));
    expect(await store.notifications.claimDeliveries(T0, 30_000, 10)).toEqual([]);
    const claims = await Promise.all(
      [1, 2, 3, 4].map(() => store.notifications.claimDeliveries(T0 + 60_000, 30_000, 10)),
    );
    expect(claims.flat()).toHaveLength(1);
    const id = claims.flat()[0].id;
    // Held until the claim runs out (its instance died): then another caller takes it.
    expect(await store.notifications.claimDeliveries(T0 + 89_999, 30_000, 10)).toEqual([]);
    expect(await store.notifications.claimDeliveries(T0 + 90_000, 30_000, 10)).toHaveLength(1);
    await store.notifications.recordAttempt(id, {
      at: T0 + 90_000,
      code: 500,
      error: 'busy',
      sent: false,
      nextAt: T0 + 150_000,
    });
    expect(await store.notifications.claimDeliveries(T0 + 149_999, 30_000, 10)).toEqual([]);
    const [again] = await store.notifications.claimDeliveries(T0 + 150_000, 30_000, 10);
    expect(again).toMatchObject({ id, attempts: 1 });
    await store.notifications.recordAttempt(id, {
      at: T0 + 150_000,
      code: null,
      error: 'timeout',
      sent: false,
      nextAt: null,
    });
    expect(await store.notifications.claimDeliveries(T0 + 10 * 86_400_000, 30_000, 10)).toEqual([]);
    expect(await store.notifications.listDeliveries('p', 'w1', 10)).toEqual([
      expect.objectContaining({
        status: 'failed',
        attempts: 2,
        lastCode: null,
        lastError: 'timeout',
        lastAt: T0 + 150_000,
      }),
    ]);
  });

  it('a test delivery is claimed by its caller at once; purges take old deliveries that are over, and a webhook takes its own', async () => {
    await open();
    await store.notifications.createWebhook(webhook('w1'));
    await store.notifications.createWebhook(webhook('w2', { projectId: 'q' }));
    expect(await store.notifications.enqueueTest('p', 'w2', '{}', T0, 20_000)).toBeUndefined();
    const test = await store.notifications.enqueueTest('p', 'w1', '{"test":1}', T0, 20_000);
    expect(test).toMatchObject({ url: 'https://hooks.test/w1', body: '{"test":1}', attempts: 0 });
    expect(await store.notifications.claimDeliveries(T0, 30_000, 10)).toEqual([]);
    await store.notifications.recordAttempt(test!.id, {
      at: T0,
      code: 204,
      error: null,
      sent: true,
      nextAt: null,
    });
    await store.notifications.enqueue(event({ at: T0 + 1 }));
    expect(await store.notifications.purgeDeliveries(T0 + 10)).toBe(1);
    expect((await store.notifications.listDeliveries('p', 'w1', 10)).map((d) => d.status)).toEqual([
      'pending',
    ]);
    expect(await store.notifications.deleteWebhook('p', 'w1')).toBe(true);
    expect(await store.notifications.claimDeliveries(T0 + 10, 30_000, 10)).toEqual([]);
  });
});

/** Two instances on one database (PGlite: two bundles on one client; PostgreSQL: two pools on one schema). */
async function twoInstances(
  name: string,
  client: () => Promise<import('../../../../service/storage/sql/index.js').SqlClient>,
): Promise<Stores[]> {
  if (name === 'postgresql') {
    const url = await freshPostgresSchema();
    return Promise.all([openStorage({ databaseUrl: url }), openStorage({ databaseUrl: url })]);
  }
  const db = await client();
  return [await openSqlStores(db), await openSqlStores(db)];
}

describe.each(sqlEngines())('notifications in a fleet: $name', { timeout: 30_000 }, (engine) => {
  it('two instances claiming together take each delivery once', async () => {
    const [a, b] = await twoInstances(engine.name, engine.client);
    try {
      await a.directory.createProject(project('p'));
      await a.notifications.createWebhook(webhook('w1'));
      for (let n = 0; n < 12; n++) await b.notifications.enqueue(event({ dedupe: `handoff:t${n}` }));
      const rounds = await Promise.all(
        [a, b, a, b].map((s) => s.notifications.claimDeliveries(T0, 30_000, 5)),
      );
      const ids = rounds.flat().map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(12);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
