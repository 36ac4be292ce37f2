import { describe, expect, it } from 'vitest';
import { AGENT, errorBody, makeService } from '../../../fixtures/service.js';
import { PREVIEW_CHARS, previewText } from '../../../../service/routes/history.js';

describe('history (§5)', () => {
  it('lists threads newest first and pages through next_cursor without gaps or repeats', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const created: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      ctx.clock.advance(1_000);
      created.push((await ctx.chat(token, `question ${i}`)).threadId!);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `${AGENT}/threads/?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await (await ctx.call('GET', url, { token })).json();
      expect(page.threads.length).toBeLessThanOrEqual(3);
      seen.push(...page.threads.map((t: { id: string }) => t.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...created].reverse());
  });

  it('moves a continued thread to the top', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = await ctx.chat(token, 'first');
    ctx.clock.advance(1_000);
    await ctx.chat(token, 'second');
    ctx.clock.advance(1_000);
    await ctx.chat(token, 'again', first.threadId);
    const { threads } = await (await ctx.call('GET', `${AGENT}/threads/`, { token })).json();
    expect(threads[0]).toMatchObject({ id: first.threadId, title: 'first' });
    expect(Object.keys(threads[0]).sort()).toEqual(['created_at', 'id', 'preview', 'title', 'updated_at']);
  });

  it('gives each listed thread a one-line preview of its first answer, as plain words', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const { threadId } = await ctx.chat(token, 'How do I theme it?');
    const { threads } = await (await ctx.call('GET', `${AGENT}/threads/`, { token })).json();
    const thread = threads.find((t: { id: string }) => t.id === threadId);
    // The demo agent's answer holds Markdown (a code block); the preview is its words.
    expect(thread.preview).toMatch(/^Style the widget from your page/);
    // Its fence marks go; a colour in the code (`#7c3aed`) is a word of the answer.
    expect(thread.preview).not.toMatch(/`|\*\*/);
    expect(thread.preview.length).toBeLessThanOrEqual(PREVIEW_CHARS + 1);
  });
});

describe('previewText', () => {
  it('folds Markdown into one line of words', () => {
    expect(
      previewText(
        '### Theming\n\nSet **CSS** custom properties, see [the docs](https://x.test/d).\n\n```css\nagent-chat {}\n```',
      ),
    ).toBe('Theming Set CSS custom properties, see the docs. agent-chat {}');
    expect(previewText('- one\n- two\n> quoted _word_ and snake_case')).toBe(
      'one two quoted word and snake_case',
    );
    expect(previewText('')).toBe('');
  });

  it('cuts a long answer at a word, with an ellipsis', () => {
    const text = previewText('word '.repeat(100));
    expect(text.endsWith('word…')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(PREVIEW_CHARS + 1);
  });
});

describe('history (§5): paging, resume and delete', () => {
  it.each(['0', '101', 'ten'])('rejects limit=%s with 400', async (limit) => {
    const ctx = makeService();
    const response = await ctx.call('GET', `${AGENT}/threads/?limit=${limit}`, {
      token: await ctx.session('alice'),
    });
    expect(response.status).toBe(400);
  });

  it('rejects a cursor it did not issue with 400', async () => {
    const ctx = makeService();
    const response = await ctx.call('GET', `${AGENT}/threads/?cursor=bogus!!`, {
      token: await ctx.session('alice'),
    });
    expect(response.status).toBe(400);
  });

  it('resumes a thread with messages oldest first, sources and status', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const { threadId } = await ctx.chat(token, 'theming with CSS');
    const detail = await (await ctx.call('GET', `${AGENT}/threads/${threadId}/`, { token })).json();
    expect(detail).toMatchObject({ id: threadId, title: 'theming with CSS' });
    expect(detail.messages[0]).toMatchObject({
      role: 'user',
      content: 'theming with CSS',
      sources: [],
      status: 'complete',
    });
    expect(detail.messages[1].sources[0]).toMatchObject({ source_url: expect.stringContaining('theming') });
    expect(detail.messages[1].created_at).toMatch(/\.\d{6}Z$/);
  });

  it('deletes a thread everywhere: list, resume and chat', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const { threadId } = await ctx.chat(token, 'hello');
    const deleted = await ctx.call('DELETE', `${AGENT}/threads/${threadId}/`, { token });
    expect(deleted.status).toBe(204);
    expect((await (await ctx.call('GET', `${AGENT}/threads/`, { token })).json()).threads).toEqual([]);
    expect((await ctx.call('GET', `${AGENT}/threads/${threadId}/`, { token })).status).toBe(404);
    expect((await ctx.chat(token, 'more', threadId)).response.status).toBe(404);
    expect((await ctx.call('DELETE', `${AGENT}/threads/${threadId}/`, { token })).status).toBe(404);
  });
});

describe('ownership', () => {
  async function aliceThread() {
    const ctx = makeService();
    const alice = await ctx.session('alice');
    const { threadId } = await ctx.chat(alice, 'alice secret plan');
    return { ctx, alice, threadId: threadId!, bob: await ctx.session('bob') };
  }

  it("never lists another owner's threads", async () => {
    const { ctx, bob } = await aliceThread();
    expect((await (await ctx.call('GET', `${AGENT}/threads/`, { token: bob })).json()).threads).toEqual([]);
  });

  it.each([
    ['resume', 'GET'],
    ['delete', 'DELETE'],
  ])("answers 404 (not 403) when owner B tries to %s owner A's thread", async (_label, method) => {
    const { ctx, bob, alice, threadId } = await aliceThread();
    const response = await ctx.call(method, `${AGENT}/threads/${threadId}/`, { token: bob });
    expect(response.status).toBe(404);
    expect(await errorBody(response)).toEqual({ detail: 'No such thread.', code: 'not_found' });
    expect((await ctx.call('GET', `${AGENT}/threads/${threadId}/`, { token: alice })).status).toBe(200);
  });

  it("answers 404 when owner B tries to continue owner A's thread, and leaves it untouched", async () => {
    const { ctx, bob, alice, threadId } = await aliceThread();
    expect((await ctx.chat(bob, 'let me in', threadId)).response.status).toBe(404);
    const detail = await (await ctx.call('GET', `${AGENT}/threads/${threadId}/`, { token: alice })).json();
    expect(detail.messages).toHaveLength(2);
  });

  it('shares threads between sessions of the same owner', async () => {
    const { ctx, threadId } = await aliceThread();
    const aliceAgain = await ctx.session('alice');
    expect((await ctx.call('GET', `${AGENT}/threads/${threadId}/`, { token: aliceAgain })).status).toBe(200);
  });

  it.each([
    ['list', 'GET', (_id: string) => `${AGENT}/threads/`],
    ['resume', 'GET', (id: string) => `${AGENT}/threads/${id}/`],
    ['delete', 'DELETE', (id: string) => `${AGENT}/threads/${id}/`],
  ])('answers 403 session_without_owner to %s from a session without owner', async (_label, method, url) => {
    const { ctx, threadId } = await aliceThread();
    const anonymous = await ctx.session();
    const response = await ctx.call(method, url(threadId), { token: anonymous });
    expect(response.status).toBe(403);
    expect((await errorBody(response)).code).toBe('session_without_owner');
  });

  it("lets a session without owner chat and continue its own thread, but not an owner's", async () => {
    const { ctx, threadId: aliceId } = await aliceThread();
    const anonymous = await ctx.session();
    const first = await ctx.chat(anonymous, 'hello');
    expect(first.events.at(-1)?.type).toBe('end');
    expect((await ctx.chat(anonymous, 'more', first.threadId)).events.at(-1)?.type).toBe('end');
    // After a token refresh the anonymous visitor keeps the conversation going.
    expect((await ctx.chat(await ctx.session(), 'still me', first.threadId)).response.status).toBe(200);
    expect((await ctx.chat(anonymous, 'sneak', aliceId)).response.status).toBe(404);
    // And an owner cannot pick up an anonymous thread.
    expect((await ctx.chat(await ctx.session('alice'), 'mine?', first.threadId)).response.status).toBe(404);
  });
});
