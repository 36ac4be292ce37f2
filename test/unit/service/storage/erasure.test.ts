/** What deleting a conversation, erasing an owner and the retention purge remove, on every engine (decisions 599-603). */
import { describe, expect, it } from 'vitest';
import type { FeedbackRecord, StoredFile, Stores } from '../../../../service/storage/types.js';
import { openStorage } from '../../../../service/storage/open.js';
import { DAY, T0, answerOf, message, thread } from '../../../fixtures/records.js';
import { freshPostgresSchema, storageSuite } from '../../../fixtures/storages.js';

const QUOTA = { uploaderFiles: 10, uploaderBytes: 10_000, integrationBytes: 10_000, publicDayBytes: 10_000 };

const file = (id: string, uploader = 'owner:alice'): StoredFile => ({
  id,
  projectId: 'p',
  integrationId: 'i',
  uploader,
  name: `${id}.txt`,
  contentType: 'text/plain',
  kind: 'text',
  size: 3,
  createdAt: T0,
  threadId: null,
  bytes: new Uint8Array([1, 2, 3]),
});

const reaction = (messageId: string, owner: string | null = 'alice'): FeedbackRecord => ({
  messageId,
  projectId: 'p',
  voter: owner ? `owner:${owner}` : 'session:s',
  sessionToken: `s-${owner}`,
  owner,
  integrationId: 'i',
  reaction: 'downvote',
  comment: { issue: 'my words' },
  at: T0,
});

/** Project p with integration i (the files' foreign keys), and thread `id` of `owner`: a question with file `f-<id>`, and an answer. */
async function seed(store: Stores) {
  await store.directory.createProject({ id: 'p', name: 'P', ownerSecret: 's', createdAt: T0 });
  await store.directory.createIntegration({
    projectId: 'p',
    id: 'i',
    name: 'I',
    allowedOrigins: [],
    createdAt: T0,
  });
}

async function conversation(store: Stores, id: string, owner: string | null = 'alice', at = T0) {
  const uploader = owner ? `owner:${owner}` : 'session:s';
  expect(await store.files.putFile(file(`f-${id}`, uploader), QUOTA)).toBe('stored');
  const begun = await store.ledger.beginAnswer({
    thread: thread(id, owner, at),
    newThread: true,
    question: message(`q-${id}`, at, {
      attachments: [{ id: `f-${id}`, name: 'f.txt', size: 3, contentType: 'text/plain', kind: 'text' }],
    }),
    answer: answerOf(`a-${id}`, at),
    instanceId: 'inst',
    events: [],
  });
  expect(begun).toBe('begun');
  await store.ledger.endAnswer({
    id: `a-${id}`,
    instanceId: 'inst',
    patch: {
      content: 'answer',
      sources: [],
      activity: [],
      uncertain: false,
      toolCalls: [],
      status: 'complete',
      updatedAt: at,
    },
    events: [],
  });
  await store.conversations.putFeedback(reaction(`a-${id}`, owner));
}

storageSuite('erasure', (suite) => {
  it("a deleted conversation takes its messages, files and the reactions on it; events and other threads' stay", async () => {
    const store = await suite.open();
    await seed(store);
    await conversation(store, 't1');
    await conversation(store, 't2');
    await store.conversations.putFeedback(reaction('a-t1', 'bob'));
    expect(await store.conversations.deleteThread('t1')).toBe(true);
    expect(await store.conversations.threadFeedback('t1')).toEqual([]);
    expect(await store.files.getFile('f-t1')).toBeUndefined();
    expect(await store.conversations.getMessage('a-t1')).toBeUndefined();
    // A late reaction on the deleted answer finds nothing to land on.
    await store.conversations.putFeedback(reaction('a-t1', 'carol'));
    expect(await store.conversations.threadFeedback('t1')).toEqual([]);
    expect((await store.conversations.threadFeedback('t2')).map((f) => f.voter)).toEqual(['owner:alice']);
    expect(await store.files.getFile('f-t2')).toBeDefined();
    // The reactions themselves are gone, not just out of sight: t2's alone are counted.
    await store.activity.refreshActivity();
    const day = Math.floor(T0 / DAY);
    const rows = await store.activity.activity('p', day, day);
    expect(rows.reduce((sum, r) => sum + r.downvotes, 0)).toBe(1);
  });

  it('the retention purge takes threads older than the bound, oldest first, a batch at a time, never one generating', async () => {
    const store = await suite.open();
    await seed(store);
    for (let i = 0; i < 5; i++) await conversation(store, `old${i}`, 'alice', T0 + i);
    await conversation(store, 'new', 'alice', T0 + 10 * DAY);
    // An old thread whose answer still generates (a tool wait): endStale ends it first, not the purge.
    await store.ledger.beginAnswer({
      thread: thread('live', 'alice', T0),
      newThread: true,
      question: message('q-live', T0),
      answer: answerOf('a-live', T0),
      instanceId: 'inst',
      events: [],
    });
    const before = T0 + 5 * DAY;
    expect(await store.conversations.purgeThreads(before, 2)).toBe(2);
    expect(await store.conversations.getThread('old0')).toBeUndefined();
    expect(await store.conversations.getThread('old1')).toBeUndefined();
    expect(await store.conversations.getThread('old2')).toBeDefined();
    expect(await store.conversations.purgeThreads(before, 10)).toBe(3);
    expect(await store.conversations.purgeThreads(before, 10)).toBe(0);
    expect(await store.files.getFile('f-old4')).toBeUndefined();
    expect(await store.conversations.threadFeedback('old4')).toEqual([]);
    expect(await store.conversations.getThread('new')).toBeDefined();
    expect(await store.conversations.getThread('live')).toBeDefined();
  });

  it("forgetting an owner takes their sessions, reactions, unused files and keys, and their name off events; no one else's", async () => {
    const store = await suite.open();
    await seed(store);
    await conversation(store, 'bobs', 'bob');
    await store.conversations.putFeedback(reaction('a-bobs', 'alice'));
    await store.files.putFile(file('unused'), QUOTA);
    await store.files.putFile(file('bobs-unused', 'owner:bob'), QUOTA);
    for (const [token, owner, project] of [
      ['s1', 'alice', 'p'],
      ['s2', 'alice', 'p'],
      ['s3', 'bob', 'p'],
      ['s4', 'alice', 'q'],
    ])
      await store.directory.putSession({
        tokenHash: token,
        projectId: project,
        owner,
        keyId: null,
        createdAt: T0,
        expiresAt: T0 + DAY,
      });
    await store.activity.recordActivity({
      kind: 'session',
      projectId: 'p',
      at: T0,
      sessionToken: 's1',
      owner: 'alice',
      integrationId: 'i',
    });
    await store.activity.recordActivity({
      kind: 'session',
      projectId: 'p',
      at: T0,
      sessionToken: 's3',
      owner: 'bob',
      integrationId: 'i',
    });
    expect(await store.conversations.countOwnerThreads('p', 'bob')).toBe(1);
    expect(await store.conversations.countOwnerThreads('p', 'alice')).toBe(0);

    expect(await store.directory.forgetOwner('p', 'alice')).toEqual({
      sessions: 2,
      feedback: 1,
      files: 1,
      events: 1,
    });
    expect(await store.directory.getSession('s1')).toBeUndefined();
    expect(await store.directory.getSession('s3')).toBeDefined();
    expect(await store.directory.getSession('s4')).toBeDefined();
    expect((await store.conversations.threadFeedback('bobs')).map((f) => f.voter)).toEqual(['owner:bob']);
    expect(await store.files.getFile('unused')).toBeUndefined();
    expect(await store.files.getFile('bobs-unused')).toBeDefined();
    await store.activity.refreshActivity();
    const day = Math.floor(T0 / DAY);
    const rows = await store.activity.activity('p', day, day);
    // The figures stay (decision 12); only the name went.
    const counted = rows.filter((r) => r.sessions).map((r) => [r.sessionToken, r.owner, r.sessions]);
    expect(counted.sort((x, y) => String(x[0]).localeCompare(String(y[0])))).toEqual([
      ['s1', null, 1],
      ['s3', 'bob', 1],
    ]);
  });
});

/** Two instances of a fleet on one PostgreSQL schema, purging at once: each thread goes once, none is left. */
describe.each(process.env.DATABASE_URL ? ['postgresql'] : [])('erasure across a fleet: %s', () => {
  it('two purges at once take different threads and leave none behind', { timeout: 30_000 }, async () => {
    const url = await freshPostgresSchema();
    const [a, b] = [await openStorage({ databaseUrl: url }), await openStorage({ databaseUrl: url })];
    try {
      await seed(a);
      for (let i = 0; i < 60; i++) await a.conversations.createThread(thread(`t${i}`, 'alice', T0 + i));
      const before = T0 + DAY;
      const counts = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).conversations.purgeThreads(before, 10)),
      );
      expect(counts.reduce((x, y) => x + y, 0)).toBe(60);
      expect(await a.conversations.countOwnerThreads('p', 'alice')).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
