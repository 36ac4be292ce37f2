import { messageRecord } from '../../fixtures/records.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageRecord, Stores, ThreadMeta } from '../../../service/index.js';
import { PREVIEW_SOURCE_CHARS } from '../../../service/storage/types.js';
import { backends } from '../../fixtures/storages.js';

const T0 = Date.UTC(2026, 10, 21, 9);

function thread(id: string, owner: string | null = 'alice', updatedAt = T0): ThreadMeta {
  return { id, projectId: 'p', integrationId: 'i', owner, title: `title ${id}`, createdAt: T0, updatedAt };
}

function message(id: string, at = T0, extra: Partial<MessageRecord> = {}): MessageRecord {
  return messageRecord({ id, role: 'user', content: `text ${id}`, createdAt: at, ...extra });
}

describe.each(backends())('storage: $name', { timeout: 30_000 }, (backend) => {
  let store: Stores;
  const open = async () => (store = await backend.open());
  afterEach(async () => store?.close());

  it('keeps sessions with and without owner', async () => {
    await open();
    await store.directory.putSession({
      tokenHash: 's1',
      projectId: 'p',
      owner: 'alice',
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    await store.directory.putSession({
      tokenHash: 's2',
      projectId: 'p',
      owner: null,
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    expect(await store.directory.getSession('s1')).toEqual({
      tokenHash: 's1',
      projectId: 'p',
      owner: 'alice',
      createdAt: T0,
      expiresAt: T0 + 1000,
    });
    expect((await store.directory.getSession('s2'))?.owner).toBeNull();
    expect(await store.directory.getSession('nope')).toBeUndefined();
  });

  it('stores messages in order with their sources, tool calls and activity', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    const answer = message('m2', T0 + 5, {
      role: 'assistant',
      status: 'streaming',
      sources: [{ title: 'A', subtitle: null, source_url: 'https://x.test/a', source_type: 'documentation' }],
    });
    expect(await store.conversations.appendMessage('t1', message('m1', T0 + 5))).toBe(true);
    expect(await store.conversations.appendMessage('t1', answer)).toBe(true);
    const toolCalls = [
      {
        id: 'c1',
        name: 'open_page',
        arguments: { page: 'pricing' },
        round: 1,
        status: 'completed' as const,
        output: { ok: true },
      },
    ];
    const activity = [
      { id: 'a1', name: 'search', status: 'completed' as const, summary: 'found', num_results: 2 },
    ];
    expect(
      await store.conversations.updateMessage('m2', {
        content: 'done',
        status: 'complete',
        toolCalls,
        activity,
        uncertain: true,
      }),
    ).toBe(true);
    const found = await store.conversations.getThread('t1');
    expect(found?.updatedAt).toBe(T0 + 5);
    expect(found?.messages.map((m) => m.id)).toEqual(['m1', 'm2']);
    expect(found?.messages[1]).toEqual({
      ...answer,
      content: 'done',
      status: 'complete',
      toolCalls,
      activity,
      uncertain: true,
    });
    expect((await store.conversations.getMessage('m2'))?.thread.id).toBe('t1');
  });

  it('reads only the newest messages of a thread when asked, still oldest first', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    for (let i = 0; i < 7; i++) await store.conversations.appendMessage('t1', message(`m${i}`, T0 + i));
    expect((await store.conversations.getThread('t1', { newest: 3 }))?.messages.map((m) => m.id)).toEqual([
      'm4',
      'm5',
      'm6',
    ]);
    expect((await store.conversations.getThread('t1', { newest: 50 }))?.messages).toHaveLength(7);
    expect((await store.conversations.getThread('t1'))?.messages).toHaveLength(7);
    expect((await store.conversations.getThread('t1', { newest: 3 }))?.title).toBe('title t1');
    expect(await store.conversations.getThread('nope', { newest: 3 })).toBeUndefined();
  });

  it("pages an owner's threads newest first with a keyset cursor", async () => {
    await open();
    for (let i = 0; i < 5; i++) await store.conversations.createThread(thread(`t${i}`, 'alice', T0 + i));
    await store.conversations.createThread(thread('other', 'bob', T0 + 9));
    const first = await store.conversations.listThreads('p', 'alice', { limit: 2 });
    expect(first.map((t) => t.id)).toEqual(['t4', 't3']);
    const next = await store.conversations.listThreads('p', 'alice', { limit: 10, after: first[1] });
    expect(next.map((t) => t.id)).toEqual(['t2', 't1', 't0']);
  });

  it('lists each thread with the start of its latest answer that has text', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.conversations.createThread(thread('t2', 'alice', T0 + 1));
    await store.conversations.appendMessage('t1', message('q1', T0 + 1));
    await store.conversations.appendMessage(
      't1',
      message('a1', T0 + 2, { role: 'assistant', content: 'First answer' }),
    );
    await store.conversations.appendMessage('t1', message('q2', T0 + 3));
    await store.conversations.appendMessage(
      't1',
      message('a2', T0 + 4, { role: 'assistant', content: `Second answer ${'x'.repeat(500)}` }),
    );
    await store.conversations.appendMessage(
      't1',
      message('a3', T0 + 5, { role: 'assistant', content: '', status: 'streaming' }),
    );
    const listed = await store.conversations.listThreads('p', 'alice', { limit: 10 });
    const preview = new Map(listed.map((t) => [t.id, t.preview]));
    expect(preview.get('t1')).toBe(`Second answer ${'x'.repeat(PREVIEW_SOURCE_CHARS - 14)}`);
    expect(preview.get('t2')).toBe('');
  });

  it('renames without touching updated_at, and not a missing thread', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    expect(await store.conversations.renameThread('t1', 'New name')).toMatchObject({
      title: 'New name',
      updatedAt: T0,
    });
    expect(await store.conversations.renameThread('gone', 'x')).toBeUndefined();
  });

  it('refuses to append to, or update a message of, a deleted thread', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.conversations.appendMessage('t1', message('m1'));
    expect(await store.conversations.deleteThread('t1')).toBe(true);
    expect(await store.conversations.deleteThread('t1')).toBe(false);
    expect(await store.conversations.appendMessage('t1', message('m2'))).toBe(false);
    expect(await store.conversations.updateMessage('m1', { content: 'back from the dead' })).toBe(false);
    expect(await store.conversations.getThread('t1')).toBeUndefined();
    expect(await store.conversations.getMessage('m1')).toBeUndefined();
  });

  it('race: a delete and appends issued together leave the thread deleted and nothing behind', async () => {
    await open();
    for (let round = 0; round < 10; round++) {
      const id = `t${round}`;
      await store.conversations.createThread(thread(id));
      // Deletes land before, between and after the appends, depending on the round.
      const appends = Array.from({ length: 6 }, (_, i) =>
        store.conversations.appendMessage(id, message(`${id}m${i}`)),
      );
      const deleted = store.conversations.deleteThread(id);
      const more = Array.from({ length: 6 }, (_, i) =>
        store.conversations.appendMessage(id, message(`${id}n${i}`)),
      );
      await Promise.all([...appends, deleted, ...more]);
      expect(await store.conversations.getThread(id)).toBeUndefined();
      for (let i = 0; i < 6; i++) expect(await store.conversations.getMessage(`${id}n${i}`)).toBeUndefined();
    }
  });

  it('race: concurrent appends on one thread keep every message', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.conversations.appendMessage('t1', message(`m${i}`, T0 + i))),
    );
    const found = await store.conversations.getThread('t1');
    expect(found?.messages).toHaveLength(40);
    expect(found?.updatedAt).toBe(T0 + 39);
  });

  it('keeps one reaction per voter and message, the latest', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.conversations.appendMessage('t1', message('m1'));
    const base = {
      messageId: 'm1',
      projectId: 'p',
      sessionToken: 's1',
      owner: 'alice',
      integrationId: 'i',
      comment: null,
      at: T0,
    };
    await store.conversations.putFeedback({ ...base, voter: 'owner:alice', reaction: 'upvote' });
    await store.conversations.putFeedback({
      ...base,
      voter: 'owner:alice',
      reaction: 'downvote',
      comment: { issue: 'wrong' },
    });
    await store.conversations.putFeedback({ ...base, voter: 'owner:bob', reaction: 'upvote' });
    await store.conversations.putFeedback({
      ...base,
      messageId: 'missing',
      voter: 'owner:alice',
      reaction: 'upvote',
    });
    expect(await store.conversations.reactions('t1', 'owner:alice')).toEqual(new Map([['m1', 'downvote']]));
    await store.activity.refreshActivity();
    const rows = await store.activity.activity('p', 0, 1e9);
    expect(rows.reduce((n, r) => n + r.upvotes, 0)).toBe(1);
    expect(rows.reduce((n, r) => n + r.downvotes, 0)).toBe(1);
  });

  it('rolls activity up by day, session and integration, as of the last refresh', async () => {
    await open();
    const day = Math.floor(T0 / 86_400_000);
    const e = { projectId: 'p', sessionToken: 's1', owner: 'alice' };
    await store.activity.recordActivity({ ...e, kind: 'session', at: T0, integrationId: null });
    await store.activity.recordActivity({ ...e, kind: 'thread', at: T0, integrationId: 'i' });
    await store.activity.recordActivity({ ...e, kind: 'message', at: T0, integrationId: 'i' });
    await store.activity.recordActivity({ ...e, kind: 'message', at: T0 + 86_400_000, integrationId: 'i' });
    await store.activity.recordActivity({
      ...e,
      projectId: 'q',
      kind: 'message',
      at: T0,
      integrationId: 'i',
    });
    await store.activity.refreshActivity();
    const rows = await store.activity.activity('p', day, day + 1);
    const sorted = rows.sort((a, b) => a.day - b.day || a.integrationId.localeCompare(b.integrationId));
    expect(sorted).toEqual([
      {
        day,
        sessionToken: 's1',
        owner: 'alice',
        integrationId: '',
        sessions: 1,
        threads: 0,
        messages: 0,
        upvotes: 0,
        downvotes: 0,
        promptTokens: 0,
        completionTokens: 0,
      },
      {
        day,
        sessionToken: 's1',
        owner: 'alice',
        integrationId: 'i',
        sessions: 0,
        threads: 1,
        messages: 1,
        upvotes: 0,
        downvotes: 0,
        promptTokens: 0,
        completionTokens: 0,
      },
      {
        day: day + 1,
        sessionToken: 's1',
        owner: 'alice',
        integrationId: 'i',
        sessions: 0,
        threads: 0,
        messages: 1,
        upvotes: 0,
        downvotes: 0,
        promptTokens: 0,
        completionTokens: 0,
      },
    ]);
  });

  it("keeps an answer's token usage and rolls usage events up per day", async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.conversations.appendMessage(
      't1',
      message('a1', T0, { role: 'assistant', status: 'streaming' }),
    );
    expect((await store.conversations.getThread('t1'))?.messages[0].usage).toBeUndefined();
    expect(
      await store.conversations.updateMessage('a1', {
        usage: { promptTokens: 1200, completionTokens: 85 },
        status: 'complete',
      }),
    ).toBe(true);
    expect((await store.conversations.getThread('t1'))?.messages[0].usage).toEqual({
      promptTokens: 1200,
      completionTokens: 85,
    });
    const day = Math.floor(T0 / 86_400_000);
    const e = { projectId: 'p', sessionToken: 's1', owner: 'alice', integrationId: 'i' };
    await store.activity.recordActivity({ ...e, kind: 'message', at: T0 });
    await store.activity.recordActivity({
      ...e,
      kind: 'usage',
      at: T0,
      promptTokens: 1000,
      completionTokens: 60,
    });
    await store.activity.recordActivity({
      ...e,
      kind: 'usage',
      at: T0 + 1,
      promptTokens: 200,
      completionTokens: 25,
    });
    await store.activity.recordActivity({
      ...e,
      kind: 'usage',
      at: T0 + 86_400_000,
      promptTokens: 7,
      completionTokens: 3,
    });
    await store.activity.refreshActivity();
    const rows = (await store.activity.activity('p', day, day + 1)).sort((a, b) => a.day - b.day);
    // Usage events add tokens and nothing else: one message, not three.
    expect(rows.map((r) => [r.day - day, r.messages, r.promptTokens, r.completionTokens])).toEqual([
      [0, 1, 1200, 85],
      [1, 0, 7, 3],
    ]);
  });

  it('purges expired sessions and events past retention', async () => {
    await open();
    await store.directory.putSession({
      tokenHash: 'old',
      projectId: 'p',
      owner: null,
      createdAt: T0,
      expiresAt: T0 + 10,
    });
    await store.directory.putSession({
      tokenHash: 'live',
      projectId: 'p',
      owner: null,
      createdAt: T0,
      expiresAt: T0 + 10_000,
    });
    await store.activity.recordActivity({
      kind: 'session',
      projectId: 'p',
      at: T0,
      sessionToken: 'old',
      owner: null,
      integrationId: null,
    });
    await store.activity.recordActivity({
      kind: 'session',
      projectId: 'p',
      at: T0 + 5000,
      sessionToken: 'live',
      owner: null,
      integrationId: null,
    });
    expect(await store.directory.purgeSessions(T0 + 100)).toBe(1);
    expect(await store.activity.purgeEvents(T0 + 1000)).toBe(1);
    expect(await store.directory.getSession('old')).toBeUndefined();
    expect(await store.directory.getSession('live')).toBeDefined();
    await store.activity.refreshActivity();
    expect((await store.activity.activity('p', 0, 1e9)).map((r) => r.sessionToken)).toEqual(['live']);
  });

  it('stops answers a crash left streaming', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.conversations.appendMessage(
      't1',
      message('old', T0, { role: 'assistant', status: 'streaming' }),
    );
    await store.conversations.appendMessage(
      't1',
      message('fresh', T0 + 5000, { role: 'assistant', status: 'streaming' }),
    );
    expect(await store.ledger.stopStale(T0 + 1000)).toBe(1);
    expect((await store.conversations.getThread('t1'))?.messages.map((m) => m.status)).toEqual([
      'stopped',
      'streaming',
    ]);
  });
});

describe.each(backends())('storage for a fleet: $name', { timeout: 30_000 }, (backend) => {
  let store: Stores;
  const open = async () => (store = await backend.open());
  afterEach(async () => store?.close());
  const answerOf = (id: string, at = T0) =>
    message(id, at, { role: 'assistant', status: 'streaming', content: '' });

  it('begins an answer in one write: a new thread, the question, the answer and their events', async () => {
    await open();
    const events = [
      {
        kind: 'thread' as const,
        projectId: 'p',
        at: T0,
        sessionToken: 'h1',
        owner: 'alice',
        integrationId: 'i',
      },
      {
        kind: 'message' as const,
        projectId: 'p',
        at: T0,
        sessionToken: 'h1',
        owner: 'alice',
        integrationId: 'i',
      },
    ];
    expect(
      await store.ledger.beginAnswer({
        thread: thread('t1'),
        newThread: true,
        question: message('q1'),
        answer: answerOf('a1'),
        instanceId: 'inst_a',
        events,
      }),
    ).toBe('begun');
    const found = await store.conversations.getThread('t1');
    expect(found?.messages.map((m) => [m.id, m.role, m.status])).toEqual([
      ['q1', 'user', 'complete'],
      ['a1', 'assistant', 'streaming'],
    ]);
    expect(await store.ledger.answerHost('a1', 60_000)).toEqual({ instanceId: 'inst_a', alive: false });
    await store.activity.refreshActivity();
    expect((await store.activity.activity('p', 0, 1e9)).reduce((n, r) => n + r.threads + r.messages, 0)).toBe(
      2,
    );
    // On an existing thread only the messages and the message event; on a deleted one nothing.
    const more = {
      thread: thread('t1'),
      newThread: false,
      question: message('q2', T0 + 5),
      answer: answerOf('a2', T0 + 5),
      instanceId: 'inst_a',
      events: [events[1]],
    };
    expect(await store.ledger.beginAnswer(more)).toBe('begun');
    expect((await store.conversations.getThread('t1'))?.updatedAt).toBe(T0 + 5);
    await store.conversations.deleteThread('t1');
    expect(
      await store.ledger.beginAnswer({
        ...more,
        question: message('q3'),
        answer: answerOf('a3'),
        slot: { key: 'k', cap: 1 },
      }),
    ).toBe('thread_gone');
    expect(await store.conversations.getMessage('q3')).toBeUndefined();
    // The slot of an answer that could not begin is free again.
    expect(await store.ledger.takeAnswerSlot('k', 1, 'a4', 'inst_a', T0)).toBe('taken');
  });

  it('begins an answer only with a free concurrent-answer slot, under concurrent starts', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    const starts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.ledger.beginAnswer({
          thread: thread(`n${i}`),
          newThread: true,
          question: message(`q${i}`),
          answer: answerOf(`a${i}`),
          instanceId: 'inst_a',
          events: [],
          slot: { key: 'owner:alice', cap: 2 },
        }),
      ),
    );
    expect(starts.filter((r) => r === 'begun')).toHaveLength(2);
    expect(starts.filter((r) => r === 'cap_reached')).toHaveLength(4);
    // Nothing of a refused start was written.
    const refused = starts.map((r, i) => (r === 'cap_reached' ? i : -1)).filter((i) => i >= 0);
    for (const i of refused) expect(await store.conversations.getThread(`n${i}`)).toBeUndefined();
  });

  it('saves and ends an answer only while its instance generates it', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q1'),
      answer: answerOf('a1'),
      instanceId: 'inst_a',
      events: [],
    });
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q2'),
      answer: answerOf('a2'),
      instanceId: 'inst_a',
      events: [],
    });
    const save = (id: string, content: string) => ({
      id,
      content,
      sources: [],
      activity: [],
      uncertain: false,
      updatedAt: T0 + 1,
    });
    expect(
      await store.ledger.saveAnswers([save('a1', 'one'), save('a2', 'two'), save('missing', 'x')], 'inst_a'),
    ).toEqual(new Set(['a1', 'a2']));
    expect(await store.ledger.saveAnswers([save('a1', 'stolen')], 'inst_b')).toEqual(new Set());
    expect((await store.conversations.getMessage('a1'))?.message.content).toBe('one');
    const end = {
      content: 'one!',
      sources: [],
      activity: [],
      uncertain: false,
      toolCalls: [],
      status: 'complete' as const,
      updatedAt: T0 + 2,
    };
    expect(await store.ledger.endAnswer({ id: 'a1', instanceId: 'inst_b', patch: end, events: [] })).toBe(
      false,
    );
    expect(await store.ledger.endAnswer({ id: 'a1', instanceId: 'inst_a', patch: end, events: [] })).toBe(
      true,
    );
    expect((await store.conversations.getMessage('a1'))?.message).toMatchObject({
      content: 'one!',
      status: 'complete',
    });
    // Ended: no instance holds it, so later saves change nothing.
    expect(await store.ledger.saveAnswers([save('a1', 'late')], 'inst_a')).toEqual(new Set());
    expect(await store.ledger.answerHost('a1', 60_000)).toEqual({ instanceId: null, alive: false });
  });

  it('ends many answers at once, each only for its own instance, with the events of those it stored', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    for (let i = 0; i < 12; i++) {
      await store.ledger.beginAnswer({
        thread: thread('t1'),
        newThread: false,
        question: message(`q${i}`),
        answer: answerOf(`a${i}`),
        instanceId: 'inst_a',
        events: [],
        slot: { key: `k${i}`, cap: 1 },
      });
    }
    const event = {
      kind: 'message' as const,
      projectId: 'p',
      at: T0 + 2,
      sessionToken: 'h1',
      owner: 'alice',
      integrationId: 'i',
    };
    const usage = {
      kind: 'usage' as const,
      projectId: 'p',
      at: T0 + 2,
      sessionToken: 'h1',
      owner: 'alice',
      integrationId: 'i',
      promptTokens: 10,
      completionTokens: 3,
    };
    // Called together, as answers ending in one turn are (a SQL store sends them as one statement);
    // every third from an instance that does not hold the answer.
    const ended = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        store.ledger.endAnswer({
          id: `a${i}`,
          instanceId: i % 3 === 0 ? 'inst_b' : 'inst_a',
          events: [event, usage],
          patch: {
            content: `answer ${i}`,
            sources: [],
            activity: [],
            uncertain: false,
            toolCalls: [],
            status: 'complete',
            updatedAt: T0 + 2,
            usage: { promptTokens: 10, completionTokens: 3 },
          },
        }),
      ),
    );
    expect(ended).toEqual(Array.from({ length: 12 }, (_, i) => i % 3 !== 0));
    const messages = (await store.conversations.getThread('t1'))!.messages.filter(
      (m) => m.role === 'assistant',
    );
    expect(messages.map((m) => [m.content, m.status])).toEqual(
      Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? ['', 'streaming'] : [`answer ${i}`, 'complete'])),
    );
    expect(messages[1].usage).toEqual({ promptTokens: 10, completionTokens: 3 });
    await store.activity.refreshActivity();
    const rows = await store.activity.activity('p', 0, 1e9);
    expect(rows.reduce((n, r) => n + r.messages, 0)).toBe(8);
    expect(rows.reduce((n, r) => n + r.promptTokens, 0)).toBe(80);
    // Every slot is free again, those of the answers another instance ended too.
    for (let i = 0; i < 12; i++)
      expect(await store.ledger.takeAnswerSlot(`k${i}`, 1, `b${i}`, 'inst_a', T0)).toBe('taken');
  });

  it('lets exactly one of many callers resume a paused answer', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q1'),
      answer: answerOf('a1'),
      instanceId: 'inst_a',
      events: [],
    });
    const pending = [{ id: 'c1', name: 'open_page', arguments: {}, round: 1, status: 'pending' as const }];
    const pause = {
      content: '',
      sources: [],
      activity: [],
      uncertain: false,
      toolCalls: pending,
      status: 'streaming' as const,
      updatedAt: T0,
    };
    expect(await store.ledger.endAnswer({ id: 'a1', instanceId: 'inst_a', patch: pause, events: [] })).toBe(
      true,
    );
    const done = [{ ...pending[0], status: 'completed' as const, output: 1 }];
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.ledger.resumeAnswer('a1', pending, done, T0 + 1, `inst_${i}`),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await store.conversations.getMessage('a1'))?.message.toolCalls).toEqual(done);
    // Stale expectations (the calls changed) never claim it again.
    expect(await store.ledger.resumeAnswer('a1', pending, done, T0 + 2, 'inst_x')).toBe(false);
  });

  it('holds a cap of concurrent-answer slots per key under concurrent takers, and frees them', async () => {
    await open();
    const taken = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.ledger.takeAnswerSlot('owner:alice', 3, `a${i}`, 'inst_a', T0),
      ),
    );
    expect(taken.filter((t) => t === 'taken')).toHaveLength(3);
    expect(taken.filter((t) => t === 'cap_reached')).toHaveLength(5);
    expect(await store.ledger.takeAnswerSlot('owner:bob', 3, 'b1', 'inst_a', T0)).toBe('taken');
    const holder = taken.indexOf('taken');
    // One answer, one slot: a second taker for it learns it is held.
    expect(await store.ledger.takeAnswerSlot('owner:bob', 3, 'b1', 'inst_a', T0)).toBe('held');
    await store.ledger.releaseAnswerSlot(`a${holder}`);
    expect(await store.ledger.takeAnswerSlot('owner:alice', 3, 'a9', 'inst_a', T0 + 1)).toBe('taken');
    expect(await store.ledger.takeAnswerSlot('owner:alice', 3, 'a10', 'inst_a', T0 + 1)).toBe('cap_reached');
    // Slots an end never freed are purged by age.
    expect(await store.ledger.purgeAnswerSlots(T0 + 1)).toBe(3);
    expect(await store.ledger.takeAnswerSlot('owner:alice', 3, 'a11', 'inst_a', T0 + 2)).toBe('taken');
  });

  it('counts requests in fixed windows, restarts an expired one, and keeps the table bounded by evicting the oldest', async () => {
    await open();
    const counts = await Promise.all(
      Array.from({ length: 5 }, () => store.rates.countRequest('k', 1000, T0)),
    );
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(counts[0].resetAt).toBe(T0 + 1000);
    expect(await store.rates.countRequest('k', 1000, T0 + 1000)).toEqual({ count: 1, resetAt: T0 + 2000 });
    for (let i = 0; i < 6; i++) await store.rates.countRequest(`other${i}`, 1000, T0 + 1100 + i);
    // Nothing expired at T0 + 1500: the 7 windows are cut to the 3 youngest.
    expect(await store.rates.purgeRateWindows(T0 + 1500, 3)).toBe(3);
    expect((await store.rates.countRequest('other5', 1000, T0 + 1500)).count).toBe(2);
    expect((await store.rates.countRequest('k', 1000, T0 + 1500)).count).toBe(1);
    expect(await store.rates.purgeRateWindows(T0 + 10_000, 100)).toBe(0);
  });

  it('ends the streaming answers of instances whose lease ran out, and frees their slots', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.fleet.heartbeat('inst_dead');
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q1'),
      answer: answerOf('a1'),
      instanceId: 'inst_dead',
      events: [],
    });
    expect(await store.ledger.takeAnswerSlot('owner:alice', 1, 'a1', 'inst_dead', T0)).toBe('taken');
    await new Promise((resolve) => setTimeout(resolve, 250));
    await store.fleet.heartbeat('inst_live');
    await store.ledger.beginAnswer({
      thread: thread('t1'),
      newThread: false,
      question: message('q2'),
      answer: answerOf('a2'),
      instanceId: 'inst_live',
      events: [],
    });
    expect(await store.ledger.answerHost('a1', 200)).toEqual({ instanceId: 'inst_dead', alive: false });
    expect(await store.ledger.answerHost('a2', 200)).toEqual({ instanceId: 'inst_live', alive: true });
    expect(await store.fleet.reapInstances(200, T0 + 9)).toBe(1);
    expect((await store.conversations.getMessage('a1'))?.message).toMatchObject({
      status: 'error',
      updatedAt: T0 + 9,
    });
    expect((await store.conversations.getMessage('a2'))?.message.status).toBe('streaming');
    expect(await store.ledger.takeAnswerSlot('owner:alice', 1, 'a3', 'inst_live', T0)).toBe('taken');
    expect(await store.fleet.reapInstances(200, T0 + 10)).toBe(0);
    // A live host's answer is not an orphan; once it is gone, it is.
    expect(await store.ledger.endOrphan('a2', 'stopped', T0 + 11, 200)).toBe(false);
    await store.fleet.retireInstance('inst_live');
    expect(await store.ledger.endOrphan('a2', 'stopped', T0 + 11, 200)).toBe(true);
    expect((await store.conversations.getMessage('a2'))?.message.status).toBe('stopped');
  });

  it('refreshes the rollup at most once per interval, under concurrent callers', async () => {
    await open();
    await store.activity.recordActivity({
      kind: 'session',
      projectId: 'p',
      at: T0,
      sessionToken: 'h',
      owner: null,
      integrationId: null,
    });
    const first = await Promise.all([
      store.activity.refreshActivityOnce(30_000, T0),
      store.activity.refreshActivityOnce(30_000, T0),
      store.activity.refreshActivityOnce(30_000, T0),
    ]);
    const live = backend.name === 'memory';
    expect(first.filter(Boolean)).toHaveLength(live ? 0 : 1);
    expect(await store.activity.activityAsOf(T0 + 5)).toBe(live ? T0 + 5 : T0);
    expect(await store.activity.refreshActivityOnce(30_000, T0 + 29_999)).toBe(false);
    expect(await store.activity.refreshActivityOnce(30_000, T0 + 30_000)).toBe(!live);
    expect((await store.activity.activity('p', 0, 1e9)).map((r) => r.sessions)).toEqual([1]);
  });

  it('delivers published signals to every subscriber in order, long ones whole', async () => {
    await open();
    const got: string[][] = [[], []];
    const off = await Promise.all(got.map((list) => store.fleet.subscribe((m) => list.push(m))));
    const long = `recs\n${'é✓ '.repeat(9_000)}𝄞`;
    await store.fleet.publish(['one', long]);
    await store.fleet.publish(['three']);
    await expect.poll(() => got.map((l) => l.length)).toEqual([3, 3]);
    for (const list of got) expect(list).toEqual(['one', long, 'three']);
    await Promise.all(off.map((o) => o()));
    await store.fleet.publish(['after']);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(got[0]).toHaveLength(3);
  });
});
