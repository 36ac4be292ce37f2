/** The retention purge's batches (decision 603) and `agent-chat-service erase-owner` (decision 601). */
import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../../../contract/owner-key.js';
import { PURGE_BATCH, PURGE_BATCHES, purgeConversations } from '../../../../service/duties.js';
import { eraseOwnerCommand } from '../../../../service/erase-cli.js';
import { memoryStores } from '../../../../service/index.js';
import type { Stores } from '../../../../service/storage/types.js';
import { DAY, T0, message, thread } from '../../../fixtures/records.js';

describe('the retention purge', () => {
  it('deletes a backlog in batches of PURGE_BATCH, at most PURGE_BATCHES a run, leaving the rest for the next', async () => {
    const store = memoryStores();
    const total = PURGE_BATCH * PURGE_BATCHES + 5;
    for (let i = 0; i < total; i++) await store.conversations.createThread(thread(`t${i}`, 'alice', T0 + i));
    const batches: number[] = [];
    const counted = {
      conversations: {
        ...store.conversations,
        purgeThreads: async (before: number, limit: number) => {
          const n = await store.conversations.purgeThreads(before, limit);
          batches.push(n);
          return n;
        },
      },
    } as Pick<Stores, 'conversations'>;
    expect(await purgeConversations(counted, T0 + DAY)).toBe(PURGE_BATCH * PURGE_BATCHES);
    expect(batches).toEqual(Array(PURGE_BATCHES).fill(PURGE_BATCH));
    batches.length = 0;
    expect(await purgeConversations(counted, T0 + DAY)).toBe(5);
    expect(batches).toEqual([5]);
  });
});

describe('agent-chat-service erase-owner', () => {
  async function seeded() {
    const store = memoryStores();
    await store.directory.createProject({ id: 'p', name: 'P', ownerSecret: 'secret', createdAt: T0 });
    for (const [id, owner] of [
      ['t1', 'alice'],
      ['t2', 'alice'],
      ['t3', 'bob'],
    ]) {
      await store.conversations.createThread(thread(id, owner));
      await store.conversations.appendMessage(id, message(`m-${id}`));
    }
    await store.directory.putSession({
      tokenHash: 's1',
      projectId: 'p',
      owner: 'alice',
      keyId: null,
      createdAt: T0,
      expiresAt: T0 + DAY,
    });
    return store;
  }

  const run = async (args: string[], options: { project?: string; owner?: string }, store: Stores) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await eraseOwnerCommand(
      args,
      options,
      { dataDir: 'unused' },
      { print: (line) => out.push(line), error: (line) => err.push(line) },
      async () => store,
    );
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it("erases the owner's conversations and sessions, prints what it removed, and leaves an audit entry by cli", async () => {
    const store = await seeded();
    const result = await run([], { project: 'p', owner: 'alice' }, store);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/conversations +2 /);
    expect(result.out).toMatch(/sessions +1\b/);
    const key = await ownerKey('alice', 'secret');
    expect(result.out).toContain(key);
    expect(result.out).not.toContain('alice');
    expect(await store.conversations.countOwnerThreads('p', 'alice')).toBe(0);
    expect(await store.conversations.countOwnerThreads('p', 'bob')).toBe(1);
    expect(await store.directory.getSession('s1')).toBeUndefined();
    const [entry] = await store.accounts.listAudit({ limit: 1 });
    expect([entry.actor, entry.action, entry.projectId, entry.target]).toEqual([
      'cli',
      'owner.erase',
      'p',
      key,
    ]);
  });

  it('refuses a call without --project and --owner (2), and an unknown project (1), erasing nothing', async () => {
    const store = await seeded();
    expect((await run([], { owner: 'alice' }, store)).code).toBe(2);
    expect((await run(['extra'], { project: 'p', owner: 'alice' }, store)).code).toBe(2);
    const unknown = await run([], { project: 'nope', owner: 'alice' }, store);
    expect([unknown.code, unknown.err]).toEqual([1, 'agent-chat-service erase-owner: no project nope.']);
    expect(await store.conversations.countOwnerThreads('p', 'alice')).toBe(2);
  });
});
