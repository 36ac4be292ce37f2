import { afterEach, describe, expect, it } from 'vitest';
import type { MessageRecord, Storage, ThreadMeta } from '../../../service/index.js';
import { PREVIEW_SOURCE_CHARS } from '../../../service/storage/types.js';
import { backends } from '../../fixtures/storages.js';

const T0 = Date.UTC(2026, 10, 21, 9);

function thread(id: string, owner: string | null = 'alice', updatedAt = T0): ThreadMeta {
  return { id, projectId: 'p', integrationId: 'i', owner, title: `title ${id}`, createdAt: T0, updatedAt };
}

function message(id: string, at = T0, extra: Partial<MessageRecord> = {}): MessageRecord {
  return { id, role: 'user', content: `text ${id}`, sources: [], createdAt: at, updatedAt: at, status: 'complete', toolCalls: [], activity: [], uncertain: false, ...extra };
}

describe.each(backends())('storage: $name', { timeout: 30_000 }, (backend) => {
  let store: Storage;
  const open = async () => (store = await backend.open());
  afterEach(async () => store?.close());

  it('keeps sessions with and without owner', async () => {
    await open();
    await store.putSession({ token: 's1', projectId: 'p', owner: 'alice', createdAt: T0, expiresAt: T0 + 1000 });
    await store.putSession({ token: 's2', projectId: 'p', owner: null, createdAt: T0, expiresAt: T0 + 1000 });
    expect(await store.getSession('s1')).toEqual({ token: 's1', projectId: 'p', owner: 'alice', createdAt: T0, expiresAt: T0 + 1000 });
    expect((await store.getSession('s2'))?.owner).toBeNull();
    expect(await store.getSession('nope')).toBeUndefined();
  });

  it('stores messages in order with their sources, tool calls and activity', async () => {
    await open();
    await store.createThread(thread('t1'));
    const answer = message('m2', T0 + 5, {
      role: 'assistant', status: 'streaming', sources: [{ title: 'A', subtitle: null, source_url: 'https://x.test/a', source_type: 'documentation' }],
    });
    expect(await store.appendMessage('t1', message('m1', T0 + 5))).toBe(true);
    expect(await store.appendMessage('t1', answer)).toBe(true);
    const toolCalls = [{ id: 'c1', name: 'open_page', arguments: { page: 'pricing' }, round: 1, status: 'completed' as const, output: { ok: true } }];
    const activity = [{ id: 'a1', name: 'search', status: 'completed' as const, summary: 'found', num_results: 2 }];
    expect(await store.updateMessage('m2', { content: 'done', status: 'complete', toolCalls, activity, uncertain: true })).toBe(true);
    const found = await store.getThread('t1');
    expect(found?.updatedAt).toBe(T0 + 5);
    expect(found?.messages.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(found?.messages[1]).toEqual({ ...answer, content: 'done', status: 'complete', toolCalls, activity, uncertain: true });
    expect((await store.getMessage('m2'))?.thread.id).toBe('t1');
  });

  it('pages an owner\'s threads newest first with a keyset cursor', async () => {
    await open();
    for (let i = 0; i < 5; i++) await store.createThread(thread(`t${i}`, 'alice', T0 + i));
    await store.createThread(thread('other', 'bob', T0 + 9));
    const first = await store.listThreads('p', 'alice', { limit: 2 });
    expect(first.map((t) => t.id)).toEqual(['t4', 't3']);
    const next = await store.listThreads('p', 'alice', { limit: 10, after: first[1] });
    expect(next.map((t) => t.id)).toEqual(['t2', 't1', 't0']);
  });

  it('lists each thread with the start of its latest answer that has text', async () => {
    await open();
    await store.createThread(thread('t1'));
    await store.createThread(thread('t2', 'alice', T0 + 1));
    await store.appendMessage('t1', message('q1', T0 + 1));
    await store.appendMessage('t1', message('a1', T0 + 2, { role: 'assistant', content: 'First answer' }));
    await store.appendMessage('t1', message('q2', T0 + 3));
    await store.appendMessage('t1', message('a2', T0 + 4, { role: 'assistant', content: `Second answer ${'x'.repeat(500)}` }));
    await store.appendMessage('t1', message('a3', T0 + 5, { role: 'assistant', content: '', status: 'streaming' }));
    const listed = await store.listThreads('p', 'alice', { limit: 10 });
    const preview = new Map(listed.map((t) => [t.id, t.preview]));
    expect(preview.get('t1')).toBe(`Second answer ${'x'.repeat(PREVIEW_SOURCE_CHARS - 14)}`);
    expect(preview.get('t2')).toBe('');
  });

  it('renames without touching updated_at, and not a missing thread', async () => {
    await open();
    await store.createThread(thread('t1'));
    expect(await store.renameThread('t1', 'New name')).toMatchObject({ title: 'New name', updatedAt: T0 });
    expect(await store.renameThread('gone', 'x')).toBeUndefined();
  });

  it('refuses to append to, or update a message of, a deleted thread', async () => {
    await open();
    await store.createThread(thread('t1'));
    await store.appendMessage('t1', message('m1'));
    expect(await store.deleteThread('t1')).toBe(true);
    expect(await store.deleteThread('t1')).toBe(false);
    expect(await store.appendMessage('t1', message('m2'))).toBe(false);
    expect(await store.updateMessage('m1', { content: 'back from the dead' })).toBe(false);
    expect(await store.getThread('t1')).toBeUndefined();
    expect(await store.getMessage('m1')).toBeUndefined();
  });

  it('race: a delete and appends issued together leave the thread deleted and nothing behind', async () => {
    await open();
    for (let round = 0; round < 10; round++) {
      const id = `t${round}`;
      await store.createThread(thread(id));
      // Deletes land before, between and after the appends, depending on the round.
      const appends = Array.from({ length: 6 }, (_, i) => store.appendMessage(id, message(`${id}m${i}`)));
      const deleted = store.deleteThread(id);
      const more = Array.from({ length: 6 }, (_, i) => store.appendMessage(id, message(`${id}n${i}`)));
      await Promise.all([...appends, deleted, ...more]);
      expect(await store.getThread(id)).toBeUndefined();
      for (let i = 0; i < 6; i++) expect(await store.getMessage(`${id}n${i}`)).toBeUndefined();
    }
  });

  it('race: concurrent appends on one thread keep every message', async () => {
    await open();
    await store.createThread(thread('t1'));
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.appendMessage('t1', message(`m${i}`, T0 + i))));
    const found = await store.getThread('t1');
    expect(found?.messages).toHaveLength(40);
    expect(found?.updatedAt).toBe(T0 + 39);
  });

  it('keeps one reaction per voter and message, the latest', async () => {
    await open();
    await store.createThread(thread('t1'));
    await store.appendMessage('t1', message('m1'));
    const base = { messageId: 'm1', projectId: 'p', sessionToken: 's1', owner: 'alice', integrationId: 'i', comment: null, at: T0 };
    await store.putFeedback({ ...base, voter: 'owner:alice', reaction: 'upvote' });
    await store.putFeedback({ ...base, voter: 'owner:alice', reaction: 'downvote', comment: { issue: 'wrong' } });
    await store.putFeedback({ ...base, voter: 'owner:bob', reaction: 'upvote' });
    await store.putFeedback({ ...base, messageId: 'missing', voter: 'owner:alice', reaction: 'upvote' });
    expect(await store.reactions('t1', 'owner:alice')).toEqual(new Map([['m1', 'downvote']]));
    await store.refreshActivity();
    const rows = await store.activity('p', 0, 1e9);
    expect(rows.reduce((n, r) => n + r.upvotes, 0)).toBe(1);
    expect(rows.reduce((n, r) => n + r.downvotes, 0)).toBe(1);
  });

  it('rolls activity up by day, session and integration, as of the last refresh', async () => {
    await open();
    const day = Math.floor(T0 / 86_400_000);
    const e = { projectId: 'p', sessionToken: 's1', owner: 'alice' };
    await store.recordActivity({ ...e, kind: 'session', at: T0, integrationId: null });
    await store.recordActivity({ ...e, kind: 'thread', at: T0, integrationId: 'i' });
    await store.recordActivity({ ...e, kind: 'message', at: T0, integrationId: 'i' });
    await store.recordActivity({ ...e, kind: 'message', at: T0 + 86_400_000, integrationId: 'i' });
    await store.recordActivity({ ...e, projectId: 'q', kind: 'message', at: T0, integrationId: 'i' });
    await store.refreshActivity();
    const rows = await store.activity('p', day, day + 1);
    const sorted = rows.sort((a, b) => a.day - b.day || a.integrationId.localeCompare(b.integrationId));
    expect(sorted).toEqual([
      { day, sessionToken: 's1', owner: 'alice', integrationId: '', sessions: 1, threads: 0, messages: 0, upvotes: 0, downvotes: 0, promptTokens: 0, completionTokens: 0 },
      { day, sessionToken: 's1', owner: 'alice', integrationId: 'i', sessions: 0, threads: 1, messages: 1, upvotes: 0, downvotes: 0, promptTokens: 0, completionTokens: 0 },
      { day: day + 1, sessionToken: 's1', owner: 'alice', integrationId: 'i', sessions: 0, threads: 0, messages: 1, upvotes: 0, downvotes: 0, promptTokens: 0, completionTokens: 0 },
    ]);
  });

  it('keeps an answer\'s token usage and rolls usage events up per day', async () => {
    await open();
    await store.createThread(thread('t1'));
    await store.appendMessage('t1', message('a1', T0, { role: 'assistant', status: 'streaming' }));
    expect((await store.getThread('t1'))?.messages[0].usage).toBeUndefined();
    expect(await store.updateMessage('a1', { usage: { promptTokens: 1200, completionTokens: 85 }, status: 'complete' })).toBe(true);
    expect((await store.getThread('t1'))?.messages[0].usage).toEqual({ promptTokens: 1200, completionTokens: 85 });
    const day = Math.floor(T0 / 86_400_000);
    const e = { projectId: 'p', sessionToken: 's1', owner: 'alice', integrationId: 'i' };
    await store.recordActivity({ ...e, kind: 'message', at: T0 });
    await store.recordActivity({ ...e, kind: 'usage', at: T0, promptTokens: 1000, completionTokens: 60 });
    await store.recordActivity({ ...e, kind: 'usage', at: T0 + 1, promptTokens: 200, completionTokens: 25 });
    await store.recordActivity({ ...e, kind: 'usage', at: T0 + 86_400_000, promptTokens: 7, completionTokens: 3 });
    await store.refreshActivity();
    const rows = (await store.activity('p', day, day + 1)).sort((a, b) => a.day - b.day);
    // Usage events add tokens and nothing else: one message, not three.
    expect(rows.map((r) => [r.day - day, r.messages, r.promptTokens, r.completionTokens])).toEqual([[0, 1, 1200, 85], [1, 0, 7, 3]]);
  });

  it('purges expired sessions and events past retention', async () => {
    await open();
    await store.putSession({ token: 'old', projectId: 'p', owner: null, createdAt: T0, expiresAt: T0 + 10 });
    await store.putSession({ token: 'live', projectId: 'p', owner: null, createdAt: T0, expiresAt: T0 + 10_000 });
    await store.recordActivity({ kind: 'session', projectId: 'p', at: T0, sessionToken: 'old', owner: null, integrationId: null });
    await store.recordActivity({ kind: 'session', projectId: 'p', at: T0 + 5000, sessionToken: 'live', owner: null, integrationId: null });
    expect(await store.purge({ sessionsBefore: T0 + 100, eventsBefore: T0 + 1000 })).toEqual({ sessions: 1, events: 1 });
    expect(await store.getSession('old')).toBeUndefined();
    expect(await store.getSession('live')).toBeDefined();
    await store.refreshActivity();
    expect((await store.activity('p', 0, 1e9)).map((r) => r.sessionToken)).toEqual(['live']);
  });

  it('stops answers a crash left streaming', async () => {
    await open();
    await store.createThread(thread('t1'));
    await store.appendMessage('t1', message('old', T0, { role: 'assistant', status: 'streaming' }));
    await store.appendMessage('t1', message('fresh', T0 + 5000, { role: 'assistant', status: 'streaming' }));
    expect(await store.stopStale(T0 + 1000)).toBe(1);
    expect((await store.getThread('t1'))?.messages.map((m) => m.status)).toEqual(['stopped', 'streaming']);
  });
});
