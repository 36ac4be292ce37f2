import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../../../contract/owner-key.js';
import { withConsole } from '../../../fixtures/console.js';
import { AGENT, PROJECT } from '../../../fixtures/service.js';
import { messageRecord } from '../../../fixtures/records.js';

describe('console conversations', () => {
  it('conversations across owners show opaque owner keys, filter, search, and open with every reaction', async () => {
    const { admin, session, chat, call, service, clock } = await withConsole();
    const alice = await session('alice');
    const bob = await session('bob');
    const first = await chat(alice, 'How do I theme the widget?');
    clock.advance(1_000);
    const second = await chat(bob, 'Is the widget safe against XSS?');
    const detailForBob = await (
      await call('GET', `${AGENT}/threads/${second.threadId}/`, { token: bob })
    ).json();
    const answer = detailForBob.messages[1].id as string;
    await call('POST', `${AGENT}/feedback/`, {
      token: bob,
      body: {
        question_answer_id: answer,
        reaction: 'downvote',
        comment: { irrelevant: true, issue: 'Not what I asked' },
      },
    });

    const list = (await admin.call('GET', `projects/${PROJECT.id}/conversations`)).body;
    expect(list.threads.map((t: { id: string }) => t.id)).toEqual([second.threadId, first.threadId]);
    const secret = (await service.storage.directory.getProject(PROJECT.id))!.ownerSecret;
    expect(list.threads[0]).toMatchObject({
      owner_key: await ownerKey('bob', secret),
      downvotes: 1,
      messages: 2,
    });
    expect(JSON.stringify(list)).not.toMatch(/"(alice|bob)"/);
    const ids = async (query: string) =>
      (await admin.call('GET', `projects/${PROJECT.id}/conversations?${query}`)).body.threads.map(
        (t: { id: string }) => t.id,
      );
    expect(await ids('downvoted=1')).toEqual([second.threadId]);
    expect(await ids('q=theme')).toEqual([first.threadId]);
    expect(await ids('integration_id=int_other')).toEqual([]);
    expect(await ids('limit=1')).toEqual([second.threadId]);
    const page = (await admin.call('GET', `projects/${PROJECT.id}/conversations?limit=1`)).body;
    expect(await ids(`limit=1&cursor=${encodeURIComponent(page.next_cursor)}`)).toEqual([first.threadId]);

    const thread = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${second.threadId}`)).body;
    expect(thread.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(thread.messages[1].sources.length).toBeGreaterThan(0);
    expect(thread.messages[1].feedback).toEqual([
      {
        reaction: 'downvote',
        comment: { irrelevant: true, issue: 'Not what I asked' },
        at: expect.any(String),
        voter_key: await ownerKey('bob', secret),
      },
    ]);
    expect((await admin.call('GET', `projects/other/conversations/${second.threadId}`)).status).toBe(404);
  });

  it('a handoff the visitor asks for is kept with the thread (first time only) for the Handoff filter', async () => {
    const { admin, session, chat, call, clock } = await withConsole();
    const alice = await session('alice');
    const { threadId } = await chat(alice, 'Can I talk to someone?');
    expect(
      (
        await call('POST', `${AGENT}/handoff/`, {
          token: await session('bob'),
          body: { thread_id: threadId },
        })
      ).status,
    ).toBe(404);
    expect(
      (await call('POST', `${AGENT}/handoff/`, { token: alice, body: { thread_id: 'nope' } })).status,
    ).toBe(400);
    expect(
      (await call('POST', `${AGENT}/handoff/`, { token: alice, body: { thread_id: threadId } })).status,
    ).toBe(204);
    const first = new Date(clock.now()).toISOString();
    clock.advance(60_000);
    expect(
      (await call('POST', `${AGENT}/handoff/`, { token: alice, body: { thread_id: threadId } })).status,
    ).toBe(204);
    const listed = (await admin.call('GET', `projects/${PROJECT.id}/conversations?handoff=1`)).body.threads;
    expect(listed.map((t: { id: string; handoff_at: string }) => [t.id, t.handoff_at])).toEqual([
      [threadId, first.replace('Z', '000Z')],
    ]);
  });

  it('marks and counts the conversations whose answers cite a docs page changed since, whichever instance crawled it', async () => {
    const { admin, services, clock } = await withConsole();
    // On a fleet (test:postgres), one instance crawls and another lists: one database says it.
    const docs = services[services.length - 1].storage.docs;
    const site = 'https://docs.example/';
    const page = (path: string, status: 'new' | 'changed' | 'unchanged') => ({
      url: `${site}${path}`,
      title: path,
      etag: null,
      lastModified: null,
      hash: `${path}:${status}`,
      links: [],
      status,
      sections: [
        { url: `${site}${path}`, pageUrl: `${site}${path}`, title: path, headings: [], text: status },
      ],
    });
    const crawl = (pages: ReturnType<typeof page>[]) => ({
      sourceId: 'src_a',
      startedAt: clock.now(),
      finishedAt: clock.now(),
      nextCrawlAt: clock.now() + 86_400_000,
      pages,
      complete: true,
      truncated: false,
      failures: [],
    });
    await docs.addDocSource({
      id: 'src_a',
      projectId: PROJECT.id,
      location: site,
      kind: 'site',
      publicUrl: null,
      exclude: [],
      createdAt: clock.now(),
      lastCrawlAt: null,
      nextCrawlAt: clock.now(),
    });
    await docs.applyDocCrawl(crawl([page('install', 'new'), page('theme', 'new')]));
    clock.advance(1_000);
    const conversations = services[0].storage.conversations;
    for (const [id, path] of [
      [`th_${'a'.repeat(32)}`, 'install#requirements'],
      [`th_${'b'.repeat(32)}`, 'theme'],
    ]) {
      const at = clock.now();
      await conversations.createThread({
        id,
        projectId: PROJECT.id,
        integrationId: 'int_demo',
        owner: 'alice',
        title: path,
        createdAt: at,
        updatedAt: at,
      });
      await conversations.appendMessage(
        id,
        messageRecord({
          id: `msg_${id.slice(3)}`,
          role: 'assistant',
          content: 'answer',
          createdAt: at,
          sources: [
            { title: path, subtitle: null, source_url: `${site}${path}`, source_type: 'documentation' },
          ],
        }),
      );
      clock.advance(1_000);
    }
    const rows = async (query = '') =>
      (await admin.call('GET', `projects/${PROJECT.id}/conversations${query}`)).body.threads.map(
        (t: { title: string; stale_sources: boolean }) => [t.title, t.stale_sources],
      );
    expect(await rows()).toEqual([
      ['theme', false],
      ['install#requirements', false],
    ]);
    // Install rewritten, theme read as it was.
    await docs.applyDocCrawl(crawl([page('install', 'changed'), page('theme', 'unchanged')]));
    expect(await rows()).toEqual([
      ['theme', false],
      ['install#requirements', true],
    ]);
    expect(await rows('?stale_sources=1')).toEqual([['install#requirements', true]]);
    expect((await admin.call('GET', `projects/${PROJECT.id}/docs/stale`)).body).toEqual({
      conversations: 1,
      at_least: false,
    });
  });
});
