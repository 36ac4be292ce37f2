import { messageRecord } from '../../fixtures/records.js';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  ApiKeyRecord,
  ConversationFilter,
  MessageRecord,
  Stores,
  ThreadMeta,
} from '../../../service/index.js';
import { summarizeActivity, textMatches } from '../../../service/storage/summaries.js';
import { backends } from '../../fixtures/storages.js';

const T0 = Date.UTC(2026, 10, 21, 9);
const DAY = 86_400_000;

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
  ...extra,
});
const thread = (id: string, extra: Partial<ThreadMeta> = {}): ThreadMeta => ({
  id,
  projectId: 'p',
  integrationId: 'web',
  owner: 'alice',
  title: `title ${id}`,
  createdAt: T0,
  updatedAt: T0,
  ...extra,
});
const message = (id: string, extra: Partial<MessageRecord> = {}): MessageRecord =>
  messageRecord({ id, role: 'assistant', content: `text ${id}`, createdAt: T0, ...extra });

describe.each(backends())('console storage: $name', { timeout: 30_000 }, (backend) => {
  let store: Stores;
  const open = async () => (store = await backend.open());
  afterEach(async () => store?.close());

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
      await store.conversations.createThread(thread(`t-${id}`, { projectId: id }));
      await store.conversations.appendMessage(`t-${id}`, message(`m-${id}`));
      await store.directory.putSession({
        tokenHash: `s-${id}`,
        projectId: id,
        owner: 'alice',
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

  it('finds threads across owners by flag, integration, date and text, newest first, in pages', async () => {
    await open();
    await store.conversations.createThread(
      thread('t1', { owner: 'alice', title: 'Theming the widget', updatedAt: T0 + 1 }),
    );
    await store.conversations.appendMessage(
      't1',
      message('m1', { role: 'user', content: 'How do I change the accent colour?', createdAt: T0 + 1 }),
    );
    await store.conversations.appendMessage('t1', message('m2', { uncertain: true, createdAt: T0 + 1 }));
    await store.conversations.createThread(
      thread('t2', { owner: 'bob', integrationId: 'app', title: 'Keys', updatedAt: T0 + 2 }),
    );
    await store.conversations.appendMessage(
      't2',
      message('m3', { status: 'error', content: 'Rotating API keys safely', createdAt: T0 + 2 }),
    );
    await store.conversations.createThread(
      thread('t3', { owner: null, title: 'Tools', updatedAt: T0 + 3 * DAY }),
    );
    await store.conversations.appendMessage(
      't3',
      message('m4', {
        toolCalls: [{ id: 'c1', name: 'open_page', arguments: {}, round: 1, status: 'completed', output: 1 }],
        createdAt: T0 + 3 * DAY,
      }),
    );
    await store.conversations.putFeedback({
      messageId: 'm2',
      projectId: 'p',
      voter: 'owner:alice',
      sessionToken: 's',
      owner: 'alice',
      integrationId: 'web',
      reaction: 'downvote',
      comment: { incorrect: true, issue: 'wrong colour' },
      at: T0,
    });
    await store.conversations.putFeedback({
      messageId: 'm2',
      projectId: 'p',
      voter: 'owner:carol',
      sessionToken: 's2',
      owner: 'carol',
      integrationId: 'web',
      reaction: 'upvote',
      comment: null,
      at: T0 + 5,
    });
    expect(await store.conversations.markHandoff('t2', T0 + 9)).toBe(true);
    expect(await store.conversations.markHandoff('missing', T0)).toBe(false);

    const ids = async (filter: ConversationFilter) =>
      (await store.conversations.searchThreads('p', filter, { limit: 10 })).map((t) => t.id);
    expect(await ids({})).toEqual(['t3', 't2', 't1']);
    expect(await ids({ downvoted: true })).toEqual(['t1']);
    expect(await ids({ uncertain: true })).toEqual(['t1']);
    expect(await ids({ error: true })).toEqual(['t2']);
    expect(await ids({ toolUsed: true })).toEqual(['t3']);
    expect(await ids({ handoff: true })).toEqual(['t2']);
    expect(await ids({ integrationId: 'app' })).toEqual(['t2']);
    expect(await ids({ from: T0 + DAY })).toEqual(['t3']);
    expect(await ids({ to: T0 + DAY })).toEqual(['t2', 't1']);
    expect(await ids({ q: 'accent colour' })).toEqual(['t1']);
    expect(await ids({ q: 'theming' })).toEqual(['t1']);
    expect(await ids({ q: 'rotating keys' })).toEqual(['t2']);
    expect(await ids({ q: 'nothing-like-this' })).toEqual([]);
    expect(await ids({ q: 'accent', downvoted: true, integrationId: 'web' })).toEqual(['t1']);

    const [first] = await store.conversations.searchThreads('p', { threadId: 't1' }, { limit: 1 });
    expect(first).toMatchObject({
      id: 't1',
      owner: 'alice',
      messages: 2,
      upvotes: 1,
      downvotes: 1,
      uncertain: true,
      error: false,
      toolUsed: false,
      handoffAt: null,
    });
    const page1 = await store.conversations.searchThreads('p', {}, { limit: 2 });
    expect(
      (await store.conversations.searchThreads('p', {}, { limit: 2, after: page1[1] })).map((t) => t.id),
    ).toEqual(['t1']);
    expect(await store.conversations.searchThreads('other', {}, { limit: 10 })).toEqual([]);
    const reactions = await store.conversations.threadFeedback('t1');
    expect(reactions.map((f) => [f.voter, f.reaction, f.comment])).toEqual([
      ['owner:alice', 'downvote', { incorrect: true, issue: 'wrong colour' }],
      ['owner:carol', 'upvote', null],
    ]);
  });

  it('summarizes activity per day, per integration and in total, as the query API counts it', async () => {
    await open();
    const day0 = Math.floor(T0 / DAY);
    const event = (
      kind: 'session' | 'thread' | 'message',
      at: number,
      sessionToken: string,
      owner: string | null,
      integrationId: string | null,
    ) => store.activity.recordActivity({ kind, projectId: 'p', at, sessionToken, owner, integrationId });
    await event('session', T0, 's1', 'alice', null);
    await event('thread', T0, 's1', 'alice', 'web');
    await event('message', T0, 's1', 'alice', 'web');
    await event('message', T0 + DAY, 's1', 'alice', 'web');
    await event('session', T0 + DAY, 's2', null, null);
    await event('message', T0 + DAY, 's2', null, 'app');
    await event('session', T0 + DAY, 's3', 'bob', null);
    await store.conversations.createThread(thread('t1'));
    await store.conversations.appendMessage('t1', message('m1'));
    await store.conversations.putFeedback({
      messageId: 'm1',
      projectId: 'p',
      voter: 'owner:alice',
      sessionToken: 's1',
      owner: 'alice',
      integrationId: 'web',
      reaction: 'downvote',
      comment: null,
      at: T0 + DAY,
    });
    await store.activity.refreshActivity();

    const all = await store.activity.activitySummary('p', day0, day0 + 1);
    expect(all.days).toEqual([
      {
        day: day0,
        sessions: 1,
        threads: 1,
        messages: 1,
        upvotes: 0,
        downvotes: 0,
        promptTokens: 0,
        completionTokens: 0,
      },
      {
        day: day0 + 1,
        sessions: 2,
        threads: 0,
        messages: 2,
        upvotes: 0,
        downvotes: 1,
        promptTokens: 0,
        completionTokens: 0,
      },
    ]);
    expect(all.totals).toMatchObject({ sessions: 3, threads: 1, messages: 3, downvotes: 1, uniqueOwners: 2 });
    expect(all.byIntegration.map((i) => [i.integrationId, i.sessions, i.messages])).toEqual([
      ['app', 1, 1],
      ['web', 1, 2],
    ]);
    const web = await store.activity.activitySummary('p', day0, day0 + 1, 'web');
    expect(web.totals).toMatchObject({ sessions: 1, threads: 1, messages: 2, downvotes: 1, uniqueOwners: 1 });
    // The SQL grouping sets and the memory store's twin agree, row for row.
    expect(summarizeActivity(await store.activity.activity('p', day0, day0 + 1), 'web')).toEqual(web);
    expect(summarizeActivity(await store.activity.activity('p', day0, day0 + 1))).toEqual(all);
  });
});

describe("textMatches (the memory store's search)", () => {
  it('needs every word, keeps quoted phrases whole, excludes -words, ignores case and accents', () => {
    expect(textMatches(['Thème du widget', 'accent colour'], 'theme ACCENT')).toBe(true);
    expect(textMatches(['accent colour'], '"colour accent"')).toBe(false);
    expect(textMatches(['accent colour'], 'accent -colour')).toBe(false);
    expect(textMatches(['accent colour'], 'accent -purple')).toBe(true);
  });
});
