/** The directory on every engine: projects, integrations, API keys, sessions, and a project's delete. */
import { expect, it } from 'vitest';
import type { ApiKeyRecord, Stores } from '../../../../service/index.js';
import { DAY, T0, answerWith, threadWith } from '../../../fixtures/records.js';
import { storageSuite } from '../../../fixtures/storages.js';

const project = (id: string) => ({ id, name: `Project ${id}`, ownerSecret: `secret-${id}`, createdAt: T0 });
const key = (id: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id,
  projectId: 'p',
  name: `key ${id}`,
  prefix: 'ack_1234',
  hash: `hash-${id}`,
  createdAt: T0,
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  sessionsEndedAt: null,
  ...extra,
});

storageSuite('directory', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  it('keeps sessions with and without owner', async () => {
    await open();
    await store.directory.putSession({
      tokenHash: 's1',
      projectId: 'p',
      owner: 'alice',
      keyId: null,
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    await store.directory.putSession({
      tokenHash: 's2',
      projectId: 'p',
      owner: null,
      keyId: null,
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    expect(await store.directory.getSession('s1')).toEqual({
      tokenHash: 's1',
      projectId: 'p',
      owner: 'alice',
      keyId: null,
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    expect((await store.directory.getSession('s2'))?.owner).toBeNull();
    expect(await store.directory.getSession('nope')).toBeUndefined();
  });

  it('purges expired sessions', async () => {
    await open();
    await store.directory.putSession({
      tokenHash: 'old',
      projectId: 'p',
      owner: null,
      keyId: null,
      createdAt: T0,
      expiresAt: T0 + 10,
    });
    await store.directory.putSession({
      tokenHash: 'live',
      projectId: 'p',
      owner: null,
      keyId: null,
      createdAt: T0,
      expiresAt: T0 + 10_000,
    });
    expect(await store.directory.purgeSessions(T0 + 100)).toBe(1);
    expect(await store.directory.getSession('old')).toBeUndefined();
    expect(await store.directory.getSession('live')).toBeDefined();
  });

  it('ends the sessions one key minted, once, and says when on the key', async () => {
    await open();
    await store.directory.createProject(project('p'));
    await store.directory.createApiKey(key('k1'));
    await store.directory.createApiKey(key('k2'));
    const session = (tokenHash: string, keyId: string | null) =>
      store.directory.putSession({
        tokenHash,
        projectId: 'p',
        owner: null,
        keyId,
        createdAt: T0,
        expiresAt: T0 + DAY,
      });
    await session('a', 'k1');
    await session('b', 'k1');
    await session('c', 'k2');
    await session('d', null);
    // Read once, so a store that remembers sessions has them in hand.
    expect((await store.directory.getSession('a'))?.keyId).toBe('k1');
    expect(await store.directory.endKeySessions('p', 'k1', T0 + 5)).toBe(2);
    expect(await store.directory.getSession('a')).toBeUndefined();
    expect(await store.directory.getSession('b')).toBeUndefined();
    expect((await store.directory.getSession('c'))?.keyId).toBe('k2');
    expect(await store.directory.getSession('d')).toBeDefined();
    const keys = await store.directory.listApiKeys('p');
    expect(keys.map((k) => [k.id, k.sessionsEndedAt])).toEqual(
      expect.arrayContaining([
        ['k1', T0 + 5],
        ['k2', null],
      ]),
    );
    // Again later: the first time stays the key's.
    expect(await store.directory.endKeySessions('p', 'k1', T0 + 9)).toBe(0);
    expect((await store.directory.listApiKeys('p')).find((k) => k.id === 'k1')?.sessionsEndedAt).toBe(T0 + 5);
    expect(await store.directory.endKeySessions('p', 'nope', T0)).toBeUndefined();
    expect(await store.directory.endKeySessions('other', 'k2', T0)).toBeUndefined();
  });

  it('creates each project once and keeps integrations with their allowed origins', async () => {
    await open();
    expect(await store.directory.createProject(project('p'))).toBe(true);
    expect(await store.directory.createProject({ ...project('p'), name: 'again' })).toBe(false);
    expect((await store.directory.getProject('p'))?.name).toBe('Project p');
    expect(
      await store.directory.createIntegration({
        projectId: 'nope',
        id: 'web',
        name: 'Web',
        allowedOrigins: [],
        createdAt: T0,
      }),
    ).toBe(false);
    expect(
      await store.directory.createIntegration({
        projectId: 'p',
        id: 'web',
        name: 'Web',
        allowedOrigins: ['https://a.test'],
        createdAt: T0,
      }),
    ).toBe(true);
    expect(
      await store.directory.createIntegration({
        projectId: 'p',
        id: 'web',
        name: 'Dup',
        allowedOrigins: [],
        createdAt: T0,
      }),
    ).toBe(false);
    const updated = await store.directory.updateIntegration('p', 'web', {
      allowedOrigins: ['https://a.test', 'https://b.test'],
    });
    expect(updated).toMatchObject({ name: 'Web', allowedOrigins: ['https://a.test', 'https://b.test'] });
    expect(await store.directory.updateIntegration('p', 'missing', { name: 'x' })).toBeUndefined();
    expect(await store.directory.renameProject('p', 'Docs')).toBe(true);
    expect((await store.directory.listProjects()).map((p) => p.name)).toEqual(['Docs']);
  });

  it('keeps API keys as records with a hash, and moves last use only forward', async () => {
    await open();
    await store.directory.createProject(project('p'));
    expect(await store.directory.createApiKey(key('k1'))).toBe(true);
    expect(await store.directory.createApiKey(key('k2', { hash: 'hash-k1' }))).toBe(false);
    expect(await store.directory.updateApiKey('p', 'k1', { lastUsedAt: T0 + 50 })).toMatchObject({
      lastUsedAt: T0 + 50,
    });
    expect(await store.directory.updateApiKey('p', 'k1', { lastUsedAt: T0 + 10 })).toMatchObject({
      lastUsedAt: T0 + 50,
    });
    expect(await store.directory.updateApiKey('p', 'k1', { revokedAt: T0 + 60, name: 'old' })).toMatchObject({
      revokedAt: T0 + 60,
      name: 'old',
    });
    expect(await store.directory.listApiKeys('p')).toEqual([
      key('k1', { lastUsedAt: T0 + 50, revokedAt: T0 + 60, name: 'old' }),
    ]);
  });

  it('deletes a project with everything in it, and nothing of another project', async () => {
    await open();
    for (const id of ['p', 'q']) {
      await store.directory.createProject(project(id));
      await store.directory.createIntegration({
        projectId: id,
        id: 'web',
        name: 'Web',
        allowedOrigins: [],
        createdAt: T0,
      });
      await store.directory.createApiKey(key(`k-${id}`, { projectId: id }));
      await store.conversations.createThread(threadWith(`t-${id}`, { projectId: id }));
      await store.conversations.appendMessage(`t-${id}`, answerWith(`m-${id}`));
      await store.directory.putSession({
        tokenHash: `s-${id}`,
        projectId: id,
        owner: 'alice',
        keyId: null,
        createdAt: T0,
        expiresAt: T0 + DAY,
      });
      await store.activity.recordActivity({
        kind: 'session',
        projectId: id,
        at: T0,
        sessionToken: `s-${id}`,
        owner: 'alice',
        integrationId: null,
      });
    }
    expect(await store.directory.deleteProject('p')).toBe(true);
    expect(await store.directory.deleteProject('p')).toBe(false);
    expect(await store.directory.getProject('p')).toBeUndefined();
    expect(await store.directory.listIntegrations('p')).toEqual([]);
    expect(await store.directory.listApiKeys('p')).toEqual([]);
    expect(await store.conversations.getThread('t-p')).toBeUndefined();
    expect(await store.directory.getSession('s-p')).toBeUndefined();
    expect(await store.conversations.getThread('t-q')).toBeDefined();
    expect(await store.directory.listApiKeys('q')).toHaveLength(1);
    await store.activity.refreshActivity();
    expect(await store.activity.activity('p', 0, 1e6)).toEqual([]);
    expect(await store.activity.activity('q', 0, 1e6)).toHaveLength(1);
  });
});
