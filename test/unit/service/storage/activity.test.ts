/** The activity on every engine: events, the rollup and its refresh, the console's summary. */
import { expect, it } from 'vitest';
import type { Stores } from '../../../../service/index.js';
import { summarizeActivity } from '../../../../service/storage/summaries.js';
import { DAY, T0, answerWith, message, thread, threadWith } from '../../../fixtures/records.js';
import { storageSuite } from '../../../fixtures/storages.js';

storageSuite('activity', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  it('rolls activity up by day, session and integration, as of the last refresh', async () => {
    await open();
    const day = Math.floor(T0 / 86_400_000);
    const e = { projectId: 'p', sessionToken: 's1', owner: 'alice' };
    await store.activity.recordActivity({ ...e, kind: 'session', at: T0, integrationId: null });
    await store.activity.recordActivity({ ...e, kind: 'thread', at: T0, integrationId: 'i' });
    await store.activity.recordActivity({ ...e, kind: 'message', at: T0, integrationId: 'i' });
    await store.activity.recordActivity({ ...e, kind: 'message', at: T0 + 86_400_000, integrationId: 'i' });
    // That answer failed: counted apart, for the console (decision 497), and not as another message.
    await store.activity.recordActivity({ ...e, kind: 'failed', at: T0 + 86_400_000, integrationId: 'i' });
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
        prompt_tokens: 0,
        completion_tokens: 0,
        failed_answers: 0,
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
        prompt_tokens: 0,
        completion_tokens: 0,
        failed_answers: 0,
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
        prompt_tokens: 0,
        completion_tokens: 0,
        failed_answers: 1,
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
    expect(rows.map((r) => [r.day - day, r.messages, r.prompt_tokens, r.completion_tokens])).toEqual([
      [0, 1, 1200, 85],
      [1, 0, 7, 3],
    ]);
  });

  it('purges events past retention', async () => {
    await open();
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
    expect(await store.activity.purgeEvents(T0 + 1000)).toBe(1);
    await store.activity.refreshActivity();
    expect((await store.activity.activity('p', 0, 1e9)).map((r) => r.sessionToken)).toEqual(['live']);
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
    const live = suite.engine.name === 'memory';
    expect(first.filter(Boolean)).toHaveLength(live ? 0 : 1);
    expect(await store.activity.activityAsOf(T0 + 5)).toBe(live ? T0 + 5 : T0);
    expect(await store.activity.refreshActivityOnce(30_000, T0 + 29_999)).toBe(false);
    expect(await store.activity.refreshActivityOnce(30_000, T0 + 30_000)).toBe(!live);
    expect((await store.activity.activity('p', 0, 1e9)).map((r) => r.sessions)).toEqual([1]);
  });

  it('summarizes activity per day, per integration and in total, as the query API counts it', async () => {
    await open();
    const day0 = Math.floor(T0 / DAY);
    const event = (
      kind: 'session' | 'thread' | 'message' | 'failed',
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
    await event('failed', T0 + DAY, 's2', null, 'app');
    await event('session', T0 + DAY, 's3', 'bob', null);
    await store.conversations.createThread(threadWith('t1'));
    await store.conversations.appendMessage('t1', answerWith('m1'));
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
        prompt_tokens: 0,
        completion_tokens: 0,
        failed_answers: 0,
      },
      {
        day: day0 + 1,
        sessions: 2,
        threads: 0,
        messages: 2,
        upvotes: 0,
        downvotes: 1,
        prompt_tokens: 0,
        completion_tokens: 0,
        failed_answers: 1,
      },
    ]);
    expect(all.totals).toMatchObject({
      sessions: 3,
      threads: 1,
      messages: 3,
      downvotes: 1,
      failed_answers: 1,
      uniqueOwners: 2,
    });
    expect(all.byIntegration.map((i) => [i.integrationId, i.sessions, i.messages, i.failed_answers])).toEqual(
      [
        ['app', 1, 1, 1],
        ['web', 1, 2, 0],
      ],
    );
    const web = await store.activity.activitySummary('p', day0, day0 + 1, 'web');
    expect(web.totals).toMatchObject({
      sessions: 1,
      threads: 1,
      messages: 2,
      downvotes: 1,
      failed_answers: 0,
      uniqueOwners: 1,
    });
    // The SQL grouping sets and the memory store's twin agree, row for row.
    expect(summarizeActivity(await store.activity.activity('p', day0, day0 + 1), 'web')).toEqual(web);
    expect(summarizeActivity(await store.activity.activity('p', day0, day0 + 1))).toEqual(all);
  });
});
