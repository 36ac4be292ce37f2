/** The files role on every engine: quotas, links to the thread of the question that uses them, purges, settings. */
import { describe, expect, it } from 'vitest';
import type { AnswerStart, FileQuota, StoredFile, Stores } from '../../../../service/storage/types.js';
import { T0, answerOf, message, thread } from '../../../fixtures/records.js';
import { openStorage } from '../../../../service/storage/open.js';
import { freshPostgresSchema, sqlBatchSuite, storageSuite } from '../../../fixtures/storages.js';

const QUOTA: FileQuota = { uploaderFiles: 3, uploaderBytes: 100, integrationBytes: 150, publicDayBytes: 120 };

function file(id: string, extra: Partial<StoredFile> = {}): StoredFile {
  const bytes = extra.bytes ?? new TextEncoder().encode(`bytes of ${id}`);
  return {
    id,
    projectId: 'p',
    integrationId: 'i',
    uploader: 'owner:alice',
    name: `${id}.txt`,
    contentType: 'text/plain; charset=utf-8',
    kind: 'text',
    size: bytes.byteLength,
    createdAt: T0,
    threadId: null,
    ...extra,
    bytes,
  };
}

/** A question with files on a new thread `t<n>`. */
const startWith = (n: string, fileIds: string[]): AnswerStart => ({
  thread: thread(`t${n}`),
  newThread: true,
  question: message(`q${n}`, T0, {
    attachments: fileIds.map((id) => ({
      id,
      name: `${id}.txt`,
      size: 10,
      contentType: 'text/plain',
      kind: 'text',
    })),
  }),
  answer: answerOf(`a${n}`),
  instanceId: 'inst_a',
  events: [],
});

/** The directory the files' foreign keys need (project p, integration i). */
async function seeded(store: Stores): Promise<Stores> {
  await store.directory.createProject({ id: 'p', name: 'P', ownerSecret: 's', createdAt: T0 });
  await store.directory.createIntegration({
    projectId: 'p',
    id: 'i',
    name: 'I',
    allowedOrigins: [],
    createdAt: T0,
  });
  return store;
}

storageSuite('files', (suite) => {
  const open = async () => seeded(await suite.open());

  it('keeps a file byte for byte and describes it without its bytes', async () => {
    const store = await open();
    const bytes = new Uint8Array([0, 1, 2, 255, 254, 0x89, 0x50]);
    expect(
      await store.files.putFile(file('f1', { bytes, kind: 'image', contentType: 'image/png' }), QUOTA),
    ).toBe('stored');
    const got = await store.files.getFile('f1');
    expect(got && [...got.bytes]).toEqual([...bytes]);
    expect(got).toMatchObject({
      name: 'f1.txt',
      kind: 'image',
      contentType: 'image/png',
      size: 7,
      threadId: null,
    });
    const [meta] = await store.files.describeFiles(['f1', 'missing', 'f1']);
    expect(meta).toMatchObject({ id: 'f1', uploader: 'owner:alice', size: 7 });
    expect(meta).not.toHaveProperty('bytes');
    expect(await store.files.getFile('missing')).toBeUndefined();
    expect(await store.files.describeFiles([])).toEqual([]);
  });

  it("refuses a file past the uploader's count or bytes of unused files, and past the integration's bytes", async () => {
    const store = await open();
    const sized = (id: string, size: number, uploader = 'owner:alice') =>
      file(id, { bytes: new Uint8Array(size), uploader });
    expect(await store.files.putFile(sized('a1', 40), QUOTA)).toBe('stored');
    expect(await store.files.putFile(sized('a2', 40), QUOTA)).toBe('stored');
    // 40 + 40 + 30 > 100 bytes.
    expect(await store.files.putFile(sized('a3', 30), QUOTA)).toBe('uploader_quota');
    expect(await store.files.putFile(sized('a3', 10), QUOTA)).toBe('stored');
    // A fourth file: over the count.
    expect(await store.files.putFile(sized('a4', 1), QUOTA)).toBe('uploader_quota');
    // Another visitor of the integration: 90 bytes are held, 150 allowed.
    expect(await store.files.putFile(sized('b1', 70, 'owner:bob'), QUOTA)).toBe('integration_quota');
    expect(await store.files.putFile(sized('b1', 60, 'owner:bob'), QUOTA)).toBe('stored');
    expect(await store.files.describeFiles(['a4', 'b1'])).toHaveLength(1);
  });

  it("counts a public integration's files of the day, sent or not, against its bytes a day", async () => {
    const store = await open();
    const DAY = T0 + 1_000;
    const at = (id: string, size: number, createdAt: number, uploader = `session:${id}`) =>
      file(id, { bytes: new Uint8Array(size), uploader, createdAt });
    // Yesterday's file counts for nothing today (it still counts as unused: 60 of 150).
    expect(await store.files.putFile(at('old', 60, DAY - 1), QUOTA, DAY)).toBe('stored');
    expect(await store.files.putFile(at('d1', 70, DAY), QUOTA, DAY)).toBe('stored');
    // d1 sent with its question: no longer unused, still uploaded today.
    expect(await store.ledger.beginAnswer(startWith('1', ['d1']))).toBe('begun');
    expect(await store.files.putFile(at('d2', 40, DAY + 1), QUOTA, DAY)).toBe('stored');
    // 70 + 40 + 20 > 120 bytes today (unused: 60 + 40 + 20, within 150).
    expect(await store.files.putFile(at('d3', 20, DAY + 2), QUOTA, DAY)).toBe('public_day_quota');
    expect(await store.files.describeFiles(['d3'])).toEqual([]);
    expect(await store.files.putFile(at('d3', 10, DAY + 2), QUOTA, DAY)).toBe('stored');
    // Without a day (an integration that is not public), only the unused bytes count.
    expect(await store.files.putFile(at('k1', 30, DAY + 3, 'owner:carol'), QUOTA)).toBe('stored');
  });

  it('takes concurrent uploads of one visitor up to the count and no further', async () => {
    const store = await open();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.files.putFile(file(`c${i}`, { bytes: new Uint8Array(5) }), QUOTA),
      ),
    );
    expect(results.filter((r) => r === 'stored')).toHaveLength(3);
    expect(results.filter((r) => r === 'uploader_quota')).toHaveLength(3);
  });

  it("takes concurrent uploads of many visitors up to the integration's bytes and no further", async () => {
    const store = await open();
    expect(await uploadsAtOnce([store])).toBe(QUOTA.integrationBytes);
  });

  it("links a question's files to its thread, which then no longer counts them as unused, and deletes them with it", async () => {
    const store = await open();
    for (const id of ['f1', 'f2', 'f3']) await store.files.putFile(file(id), QUOTA);
    expect(await store.ledger.beginAnswer(startWith('1', ['f1', 'f2']))).toBe('begun');
    const byId = new Map(
      (await store.files.describeFiles(['f1', 'f2', 'f3'])).map((f) => [f.id, f.threadId]),
    );
    expect(Object.fromEntries(byId)).toEqual({ f1: 't1', f2: 't1', f3: null });
    // The question lists its files.
    const stored = await store.conversations.getThread('t1');
    expect(stored?.messages[0].attachments?.map((a) => a.id)).toEqual(['f1', 'f2']);
    expect(stored?.messages[1].attachments).toBeUndefined();
    // A file another thread holds stays where it is.
    expect(await store.ledger.beginAnswer(startWith('2', ['f1', 'f3']))).toBe('begun');
    expect((await store.files.describeFiles(['f1']))[0].threadId).toBe('t1');
    // Linked files are no longer unused: the purge leaves them, and the quota has room again.
    expect(await store.files.purgeUnusedFiles(T0 + 1)).toBe(0);
    expect(await store.conversations.deleteThread('t1')).toBe(true);
    expect(await store.files.getFile('f1')).toBeUndefined();
    expect(await store.files.getFile('f2')).toBeUndefined();
    expect(await store.files.getFile('f3')).toBeDefined();
  });

  it('purges only files no question used, uploaded before the cut', async () => {
    const store = await open();
    await store.files.putFile(file('old', { createdAt: T0 }), QUOTA);
    await store.files.putFile(file('young', { createdAt: T0 + 10 }), QUOTA);
    await store.files.putFile(file('used', { createdAt: T0 }), QUOTA);
    await store.ledger.beginAnswer(startWith('1', ['used']));
    expect(await store.files.purgeUnusedFiles(T0 + 5)).toBe(1);
    expect((await store.files.describeFiles(['old', 'young', 'used'])).map((f) => f.id).sort()).toEqual([
      'used',
      'young',
    ]);
  });

  it('keeps settings per integration, refuses them for an unknown one, and forgets them with it', async () => {
    const store = await open();
    const settings = {
      kinds: ['image' as const],
      maxBytes: { image: 1000, text: 10, pdf: 10 },
      perQuestion: 2,
    };
    expect(await store.files.fileSettings('p', 'i')).toBeUndefined();
    expect(await store.files.putFileSettings('p', 'i', settings)).toBe(true);
    expect(await store.files.putFileSettings('p', 'nope', settings)).toBe(false);
    expect(await store.files.fileSettings('p', 'i')).toEqual(settings);
    expect(await store.files.putFileSettings('p', 'i', { ...settings, perQuestion: 0 })).toBe(true);
    expect((await store.files.fileSettings('p', 'i'))?.perQuestion).toBe(0);
    expect(await store.directory.deleteIntegration('p', 'i')).toBe(true);
    expect(await store.files.fileSettings('p', 'i')).toBeUndefined();
  });

  it("deletes a project's files, used and unused, with the project", async () => {
    const store = await open();
    await store.files.putFile(file('unused'), QUOTA);
    await store.files.putFile(file('used'), QUOTA);
    await store.ledger.beginAnswer(startWith('1', ['used']));
    expect(await store.directory.deleteProject('p')).toBe(true);
    expect(await store.files.describeFiles(['unused', 'used'])).toEqual([]);
  });
});

/**
 * Twenty visitors of one integration upload 10 bytes each at once through `stores` in turn:
 * the integration takes 150, so exactly fifteen may be stored. Returns the bytes stored.
 */
async function uploadsAtOnce(stores: Stores[]): Promise<number> {
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      stores[i % stores.length].files.putFile(
        file(`v${i}`, { bytes: new Uint8Array(10), uploader: `owner:visitor${i}` }),
        QUOTA,
      ),
    ),
  );
  expect(results.filter((r) => r !== 'stored').every((r) => r === 'integration_quota')).toBe(true);
  const ids = Array.from({ length: 20 }, (_, i) => `v${i}`);
  return (await stores[0].files.describeFiles(ids)).reduce((sum, f) => sum + f.size, 0);
}

/** Two instances of a fleet on one PostgreSQL schema, taking visitors' uploads at once. */
describe.each(process.env.DATABASE_URL ? ['postgresql'] : [])('files across a fleet: %s', () => {
  it("holds the integration's bytes across instances", { timeout: 30_000 }, async () => {
    const url = await freshPostgresSchema();
    const [a, b] = [await openStorage({ databaseUrl: url }), await openStorage({ databaseUrl: url })];
    try {
      await seeded(a);
      expect(await uploadsAtOnce([a, b])).toBe(QUOTA.integrationBytes);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

sqlBatchSuite('files, batched begins', ({ open }) => {
  it('begins a question with files alone and the plain ones of the same batch together, each whole', async () => {
    const { store } = await open();
    await seeded(store);
    await store.files.putFile(file('f1'), QUOTA);
    const plain = (n: string): AnswerStart => ({ ...startWith(n, []), question: message(`q${n}`) });
    const results = await Promise.all(
      [plain('1'), startWith('2', ['f1']), plain('3'), plain('4')].map((s) => store.ledger.beginAnswer(s)),
    );
    expect(results).toEqual(['begun', 'begun', 'begun', 'begun']);
    expect((await store.files.describeFiles(['f1']))[0].threadId).toBe('t2');
    for (const n of ['1', '3', '4'])
      expect((await store.conversations.getThread(`t${n}`))?.messages).toHaveLength(2);
  });
});
