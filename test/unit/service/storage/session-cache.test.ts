/**
 * The SQL directory's memory of sessions across instances (decision 630): sessions that end
 * early leave every instance's memory at once by a fleet signal; a missed signal is bounded.
 * Two directory stores on one database, with an in-process signal bus standing for the fleet's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiKeyRecord, SessionRecord } from '../../../../service/index.js';
import { LocalSignals } from '../../../../service/storage/local-signals.js';
import { SIGNALS_LOST } from '../../../../service/storage/records.js';
import { SqlDirectoryStore } from '../../../../service/storage/sql/directory.js';
import { openSqlStores } from '../../../../service/storage/sql/index.js';
import type { FleetStore } from '../../../../service/storage/types.js';
import { DAY, T0 } from '../../../fixtures/records.js';
import { sqlEngines } from '../../../fixtures/storages.js';

type Signals = Pick<FleetStore, 'publish' | 'subscribe'>;

const session = (tokenHash: string, extra: Partial<SessionRecord> = {}): SessionRecord => ({
  tokenHash,
  projectId: 'p',
  owner: 'alice',
  keyId: null,
  createdAt: Date.now(),
  expiresAt: Date.now() + DAY,
  ...extra,
});

const apiKey = (id: string): ApiKeyRecord => ({
  id,
  projectId: 'p',
  name: id,
  prefix: 'ack_1234',
  hash: `hash-${id}`,
  createdAt: T0,
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  sessionsEndedAt: null,
});

/** Signals that go nowhere: an instance whose LISTEN connection is down hears none. */
const deaf: Signals = { subscribe: async () => async () => {}, publish: async () => {} };

describe.each(sqlEngines())('session memory across instances: $name', { timeout: 30_000 }, (engine) => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const close of closing.splice(0)) await close();
  });

  /** Two instances' directories (A, B) on one fresh database, hearing `signals` (each its own when two). */
  async function instances(signalsA: Signals, signalsB = signalsA) {
    const db = await engine.client();
    const bundle = await openSqlStores(db);
    closing.push(() => bundle.close());
    const a = new SqlDirectoryStore(db, signalsA);
    const b = new SqlDirectoryStore(db, signalsB);
    closing.unshift(
      () => a.close(),
      () => b.close(),
    );
    await a.createProject({ id: 'p', name: 'P', ownerSecret: 's', createdAt: T0 });
    return { db, a, b };
  }

  /** B reads the session twice: the first read joins the signals, the second is remembered. */
  async function inHand(b: SqlDirectoryStore, hash: string) {
    await b.getSession(hash);
    expect((await b.getSession(hash))?.tokenHash).toBe(hash);
  }

  it("forgets at once on B the sessions A ends: an owner's erasure, a key's end, a project's delete", async () => {
    const { a, b } = await instances(new LocalSignals());
    await a.createApiKey(apiKey('k1'));
    await a.putSession(session('alice1'));
    await a.putSession(session('bob1', { owner: 'bob' }));
    await a.putSession(session('keyed', { owner: 'carol', keyId: 'k1' }));
    for (const hash of ['alice1', 'bob1', 'keyed']) await inHand(b, hash);

    expect((await a.forgetOwner('p', 'alice')).sessions).toBe(1);
    expect(await b.getSession('alice1')).toBeUndefined();
    expect(await b.getSession('bob1')).toBeDefined();

    expect(await a.endKeySessions('p', 'k1', T0)).toBe(1);
    expect(await b.getSession('keyed')).toBeUndefined();
    expect(await b.getSession('bob1')).toBeDefined();

    expect(await a.deleteProject('p')).toBe(true);
    expect(await b.getSession('bob1')).toBeUndefined();
  });

  it('does not remember a session read just before it ended (the read raced the signal)', async () => {
    const bus = new LocalSignals();
    const { db, a } = await instances(bus);
    let hold: Promise<void> | undefined;
    let read!: () => void;
    const hasRead = new Promise<void>((resolve) => (read = resolve));
    // B's read of the row returns only once `hold` settles: the erasure lands in between.
    const b = new SqlDirectoryStore(
      {
        ...db,
        query: async (sql, params) => {
          const result = await db.query(sql, params);
          if (hold && sql.startsWith('SELECT * FROM sessions')) {
            read();
            await hold;
          }
          return result;
        },
      },
      bus,
    );
    closing.unshift(() => b.close());
    await a.putSession(session('alice1'));
    // Another read first, so B has joined the signals and would remember what it reads next.
    expect(await b.getSession('nobody')).toBeUndefined();
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const reading = b.getSession('alice1');
    await hasRead;
    await a.forgetOwner('p', 'alice');
    release();
    // The read began before the erasure: it answers as of then, but is not kept.
    expect(await reading).toBeDefined();
    hold = undefined;
    expect(await b.getSession('alice1')).toBeUndefined();
  });

  it('forgets everything it remembered when signals were lost (its LISTEN connection dropped)', async () => {
    const heard: ((message: string) => void)[] = [];
    const listening: Signals = {
      subscribe: async (onMessage) => {
        heard.push(onMessage);
        return async () => {};
      },
      publish: async () => {},
    };
    const { db, a, b } = await instances(deaf, listening);
    await a.putSession(session('alice1'));
    await inHand(b, 'alice1');
    // Ended without a signal B hears: B still has it in hand…
    await db.query('DELETE FROM sessions');
    expect(await b.getSession('alice1')).toBeDefined();
    // …until it learns that it missed signals.
    for (const onMessage of heard) onMessage(SIGNALS_LOST);
    expect(await b.getSession('alice1')).toBeUndefined();
  });

  it('an instance that missed the signal accepts an ended session for 5 s at most', async () => {
    const { a, b } = await instances(deaf);
    await a.putSession(session('alice1'));
    await inHand(b, 'alice1');
    await a.forgetOwner('p', 'alice');
    expect(await a.getSession('alice1')).toBeUndefined();
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + 4_000);
    expect(await b.getSession('alice1')).toBeDefined();
    vi.spyOn(Date, 'now').mockReturnValue(now + 5_001);
    expect(await b.getSession('alice1')).toBeUndefined();
  });
});
