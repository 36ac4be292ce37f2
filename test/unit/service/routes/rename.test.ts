import { describe, expect, it } from 'vitest';
import { AGENT, makeService, chatRecords } from '../../../fixtures/service.js';

describe('§10 rename', () => {
  it('renames a thread, trimmed, without changing the list order', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const older = (await chatRecords(ctx, token, { message: 'first' })).records[0].content
      .thread_id as string;
    ctx.clock.advance(1000);
    const newer = (await chatRecords(ctx, token, { message: 'second' })).records[0].content
      .thread_id as string;
    const response = await ctx.call('PATCH', `${AGENT}/threads/${older}/`, {
      token,
      body: { title: '  My   pricing notes ' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: older,
      title: 'My pricing notes',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const list = await (await ctx.call('GET', `${AGENT}/threads/`, { token })).json();
    expect(list.threads.map((t: { id: string }) => t.id)).toEqual([newer, older]);
  });

  it.each([
    ['empty', '   '],
    ['81 characters', 'x'.repeat(81)],
    ['not a string', 7],
  ])('rejects a title that is %s', async (_label, title) => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const id = (await chatRecords(ctx, token, { message: 'first' })).records[0].content.thread_id as string;
    expect((await ctx.call('PATCH', `${AGENT}/threads/${id}/`, { token, body: { title } })).status).toBe(400);
  });

  it("answers 404 for another owner's thread and 403 without owner", async () => {
    const ctx = makeService();
    const id = (await chatRecords(ctx, await ctx.session('alice'), { message: 'first' })).records[0].content
      .thread_id as string;
    expect(
      (
        await ctx.call('PATCH', `${AGENT}/threads/${id}/`, {
          token: await ctx.session('bob'),
          body: { title: 'mine' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await ctx.call('PATCH', `${AGENT}/threads/${id}/`, {
          token: await ctx.session(),
          body: { title: 'mine' },
        })
      ).status,
    ).toBe(403);
  });
});
