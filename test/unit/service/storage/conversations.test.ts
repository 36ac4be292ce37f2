/** The conversations role on every engine: threads, messages, reactions, the console's search; and the races between them through the service. */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationFilter, Stores } from '../../../../service/index.js';
import { textMatches } from '../../../../service/storage/summaries.js';
import { PREVIEW_SOURCE_CHARS } from '../../../../service/storage/types.js';
import { DAY, T0, answerWith, message, thread, threadWith } from '../../../fixtures/records.js';
import { AGENT, allRecords, makeService, readRecords, scriptedAgent } from '../../../fixtures/service.js';
import { sqlEngines, storageSuite } from '../../../fixtures/storages.js';
import { MIGRATIONS } from '../../../../service/storage/migrations.js';
import { openSqlStores } from '../../../../service/storage/sql/index.js';

storageSuite('conversations', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

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

  it('lists each thread with the start of its first answer that has text (the answer to the question in its title)', async () => {
    await open();
    await store.conversations.createThread(thread('t1'));
    await store.conversations.createThread(thread('t2', 'alice', T0 + 1));
    await store.conversations.createThread(thread('t3', 'alice', T0 + 2));
    await store.conversations.appendMessage('t1', message('q1', T0 + 1));
    await store.conversations.appendMessage(
      't1',
      message('a1', T0 + 2, { role: 'assistant', content: `First answer ${'x'.repeat(500)}` }),
    );
    await store.conversations.appendMessage('t1', message('q2', T0 + 3));
    await store.conversations.appendMessage(
      't1',
      message('a2', T0 + 4, { role: 'assistant', content: 'Second answer' }),
    );
    // A first answer that failed before any text: the first one with text stands in.
    await store.conversations.appendMessage('t3', message('q1b', T0 + 3));
    await store.conversations.appendMessage(
      't3',
      message('a1b', T0 + 4, { role: 'assistant', content: '', status: 'error' }),
    );
    await store.conversations.appendMessage('t3', message('q2b', T0 + 5));
    await store.conversations.appendMessage(
      't3',
      message('a2b', T0 + 6, { role: 'assistant', content: 'Answered on the retry' }),
    );
    const listed = await store.conversations.listThreads('p', 'alice', { limit: 10 });
    const preview = new Map(listed.map((t) => [t.id, t.preview]));
    expect(preview.get('t1')).toBe(`First answer ${'x'.repeat(PREVIEW_SOURCE_CHARS - 13)}`);
    expect(preview.get('t2')).toBe('');
    expect(preview.get('t3')).toBe('Answered on the retry');
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

  it('finds threads across owners by flag, integration, date and text, newest first, in pages', async () => {
    await open();
    await store.conversations.createThread(
      threadWith('t1', { owner: 'alice', title: 'Theming the widget', updatedAt: T0 + 1 }),
    );
    await store.conversations.appendMessage(
      't1',
      answerWith('m1', { role: 'user', content: 'How do I change the accent colour?', createdAt: T0 + 1 }),
    );
    await store.conversations.appendMessage('t1', answerWith('m2', { uncertain: true, createdAt: T0 + 1 }));
    await store.conversations.createThread(
      threadWith('t2', { owner: 'bob', integrationId: 'app', title: 'Keys', updatedAt: T0 + 2 }),
    );
    await store.conversations.appendMessage(
      't2',
      answerWith('m3', { status: 'error', content: 'Rotating API keys safely', createdAt: T0 + 2 }),
    );
    await store.conversations.createThread(
      threadWith('t3', { owner: null, title: 'Tools', updatedAt: T0 + 3 * DAY }),
    );
    await store.conversations.appendMessage(
      't3',
      answerWith('m4', {
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

  it("finds the threads whose answers cite a page of the project's docs changed or gone since, and flags them", async () => {
    await open();
    const SITE = 'https://docs.test/';
    const page = (path: string, status: 'new' | 'changed' | 'unchanged') => ({
      url: `${SITE}${path}`,
      title: path,
      etag: null,
      lastModified: null,
      hash: `${path}:${status}`,
      links: [],
      status,
      sections: [
        { url: `${SITE}${path}`, pageUrl: `${SITE}${path}`, title: path, headings: [], text: status },
      ],
    });
    const crawl = (at: number, pages: ReturnType<typeof page>[]) => ({
      sourceId: 'a',
      startedAt: at,
      finishedAt: at + 10,
      nextCrawlAt: at + DAY,
      pages,
      complete: true,
      truncated: false,
      failures: [],
    });
    await store.docs.addDocSource({
      id: 'a',
      projectId: 'p',
      location: SITE,
      kind: 'site',
      publicUrl: null,
      exclude: [],
      createdAt: T0,
      lastCrawlAt: null,
      nextCrawlAt: T0,
    });
    await store.docs.applyDocCrawl(
      crawl(T0, [page('one', 'new'), page('two', 'new'), page('three', 'new'), page('four', 'new')]),
    );
    // A second source holds page four too: it has not left the site while that one keeps it.
    await store.docs.addDocSource({
      id: 'b',
      projectId: 'p',
      location: `${SITE}four`,
      kind: 'site',
      publicUrl: null,
      exclude: [],
      createdAt: T0,
      lastCrawlAt: null,
      nextCrawlAt: T0,
    });
    await store.docs.applyDocCrawl({ ...crawl(T0, [page('four', 'new')]), sourceId: 'b' });
    const cites = (path: string) => [
      { title: path, subtitle: null, source_url: new URL(path, SITE).href, source_type: 'documentation' },
    ];
    const answered = async (id: string, at: number, path: string, projectId = 'p') => {
      await store.conversations.createThread(threadWith(id, { projectId, updatedAt: at }));
      await store.conversations.appendMessage(
        id,
        answerWith(`${id}m`, { createdAt: at, sources: cites(path) }),
      );
    };
    await answered('changed', T0 + 100, 'one#install');
    await answered('removed', T0 + 101, 'two');
    await answered('unchanged', T0 + 102, 'three');
    await answered('elsewhere', T0 + 103, 'https://elsewhere.test/one');
    await answered('after', T0 + 1000, 'one');
    await answered('other-project', T0 + 104, 'one', 'q');
    await answered('held', T0 + 105, 'four');
    // One changed, one gone, one as it was.
    await store.docs.applyDocCrawl(
      crawl(T0 + 200, [
        page('one', 'changed'),
        { ...page('three', 'new'), status: 'unchanged', sections: [] },
      ]),
    );

    const stale = await store.conversations.searchThreads('p', { staleSources: true }, { limit: 10 });
    expect(stale.map((t) => t.id)).toEqual(['removed', 'changed']);
    const all = await store.conversations.searchThreads('p', {}, { limit: 10 });
    expect(Object.fromEntries(all.map((t) => [t.id, t.staleSources]))).toEqual({
      after: false,
      held: false,
      elsewhere: false,
      unchanged: false,
      removed: true,
      changed: true,
    });
    expect(
      (await store.conversations.searchThreads('q', { staleSources: true }, { limit: 10 })).map((t) => t.id),
    ).toEqual([]);
    // Counted for the Sources page, up to a cap.
    expect(await store.conversations.countStaleThreads('p', 10)).toBe(2);
    expect(await store.conversations.countStaleThreads('p', 1)).toBe(1);
    expect(await store.conversations.countStaleThreads('q', 10)).toBe(0);

    // Sources given after the answer began count from the answer's time, and new ones replace them.
    await store.conversations.createThread(threadWith('late', { projectId: 'p', updatedAt: T0 + 106 }));
    await store.conversations.appendMessage(
      'late',
      answerWith('latem', { createdAt: T0 + 106, sources: [] }),
    );
    await store.conversations.updateMessage('latem', { sources: cites('one#later') });
    expect(await store.conversations.countStaleThreads('p', 10)).toBe(3);
    await store.conversations.updateMessage('latem', { sources: cites('three') });
    expect(await store.conversations.countStaleThreads('p', 10)).toBe(2);
    // A deleted thread, one the retention period purged, is not counted or listed.
    await store.conversations.deleteThread('changed');
    expect(await store.conversations.countStaleThreads('p', 10)).toBe(1);
    expect(await store.conversations.purgeThreads(T0 + 102, 10)).toBe(1);
    expect(await store.conversations.countStaleThreads('p', 10)).toBe(0);
    expect(await store.conversations.searchThreads('p', { staleSources: true }, { limit: 10 })).toEqual([]);
  });
});

/** The citations table the stale sources read (decision 747), filled for the answers before it. */
describe.each(sqlEngines().map((e) => [e.name, e] as const))('citations on %s', (_name, engine) => {
  const SITE = 'https://docs.test/';
  it('the migration that adds the citations fills them from the answers stored before it', async () => {
    const db = await engine.client();
    try {
      // Every migration but the last, then a thread answered as a build before it stored it.
      await db.query('CREATE TABLE schema_migrations (version int PRIMARY KEY, applied_at bigint NOT NULL)');
      for (const [index, sql] of MIGRATIONS.slice(0, -1).entries()) {
        for (const statement of sql.split(/;\s*\n/)) if (statement.trim()) await db.query(statement);
        await db.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 0)', [index + 1]);
      }
      await db.query(
        `INSERT INTO threads (id, project_id, integration_id, owner, title, created_at, updated_at)
         VALUES ('t', 'p', 'i', NULL, 'q', $1, $1)`,
        [T0],
      );
      const sources = [`${SITE}one#a`, `${SITE}one#b`, `${SITE}two`].map((url) => ({
        title: 'x',
        subtitle: null,
        source_url: url,
        source_type: 'documentation',
      }));
      await db.query(
        `INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain)
         VALUES ('m', 't', 'assistant', 'a', $1::jsonb, $2, $2, 'complete', '[]', '[]', false)`,
        [JSON.stringify(sources), T0],
      );
      await openSqlStores(db);
      const { rows } = await db.query(
        'SELECT message_id, url, project_id, thread_id, created_at FROM citations ORDER BY url',
      );
      expect(rows.map((r) => ({ ...r, created_at: Number(r.created_at) }))).toEqual([
        { message_id: 'm', url: `${SITE}one`, project_id: 'p', thread_id: 't', created_at: T0 },
        { message_id: 'm', url: `${SITE}two`, project_id: 'p', thread_id: 't', created_at: T0 },
      ]);
    } finally {
      await db.close();
    }
  });
});

/**
 * The interleavings that lost data when threads were rewritten whole, forced at the service
 * level on every engine: a scripted agent holds an answer open at a chosen point.
 */
storageSuite('conversations through the service', (suite) => {
  let storage: Stores | undefined;
  afterEach(() => {
    storage = undefined;
  });

  it('two chats answering at once on one thread keep every question and answer', async () => {
    storage = await suite.open();
    // One script per question, so each answer is held open on its own.
    const scripts = { first: scriptedAgent(), second: scriptedAgent(), third: scriptedAgent() };
    const ctx = makeService({
      storage,
      agent: { answer: (input) => scripts[input.message as keyof typeof scripts].agent.answer(input) },
    });
    const token = await ctx.session('alice');
    const send = (message: string, threadId: string | null) =>
      ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: 'int_demo', message, thread_id: threadId },
      });
    const first = await send('first', null);
    const reader = first.body!.getReader();
    const [start] = await readRecords(reader, 1);
    const threadId = start.content.thread_id as string;
    // Both answers are open at the same time, then finish in the opposite order.
    const second = await send('second', threadId);
    const third = await send('third', threadId);
    scripts.third.say('C');
    scripts.third.end();
    scripts.second.say('B');
    scripts.second.end();
    scripts.first.say('A');
    scripts.first.end();
    await Promise.all([readRecords(reader, Number.POSITIVE_INFINITY), allRecords(second), allRecords(third)]);
    const stored = await storage.conversations.getThread(threadId);
    expect(
      stored?.messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .sort(),
    ).toEqual(['first', 'second', 'third']);
    expect(
      stored?.messages
        .filter((m) => m.role === 'assistant')
        .map((m) => [m.content, m.status])
        .sort(),
    ).toEqual([
      ['A', 'complete'],
      ['B', 'complete'],
      ['C', 'complete'],
    ]);
  });

  it('a thread deleted while its answer streams stays deleted, and the answer stops', async () => {
    storage = await suite.open();
    const script = scriptedAgent();
    const ctx = makeService({ storage, agent: script.agent });
    const token = await ctx.session('alice');
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi' },
    });
    const reader = response.body!.getReader();
    script.say('Some ');
    const [start] = await readRecords(reader, 2);
    const threadId = start.content.thread_id as string;
    const answerId = start.content.question_answer_id as string;
    expect((await ctx.call('DELETE', `${AGENT}/threads/${threadId}/`, { token })).status).toBe(204);
    await readRecords(reader, Number.POSITIVE_INFINITY);
    expect(await storage.conversations.getThread(threadId)).toBeUndefined();
    expect(await storage.conversations.getMessage(answerId)).toBeUndefined();
    expect((await ctx.call('GET', `${AGENT}/threads/${threadId}/`, { token })).status).toBe(404);
    expect((await ctx.chat(token, 'again', threadId)).response.status).toBe(404);
  });

  it('a chat racing a delete either lands before it (and goes with it) or answers 404', async () => {
    storage = await suite.open();
    const ctx = makeService({ storage });
    const token = await ctx.session('alice');
    for (let round = 0; round < 5; round++) {
      const { threadId } = await ctx.chat(token, 'start');
      const [chat] = await Promise.all([
        ctx
          .call('POST', `${AGENT}/chat/`, {
            token,
            body: { integration_id: 'int_demo', message: 'racing', thread_id: threadId },
          })
          .then(async (r) => (await r.text(), r.status)),
        ctx.call('DELETE', `${AGENT}/threads/${threadId}/`, { token }),
      ]);
      expect([200, 404]).toContain(chat);
      expect(await storage.conversations.getThread(threadId!)).toBeUndefined();
    }
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
