import { describe, expect, it } from 'vitest';
import { AGENT, PROJECT, QUERY, makeService, chatRecords, threadJson } from '../../../fixtures/service.js';

type Ctx = ReturnType<typeof makeService>;

describe('§8 feedback', () => {
  async function answered(ctx: Ctx, token: string) {
    const { records } = await chatRecords(ctx, token, { message: 'How do I theme the widget?' });
    return {
      threadId: records[0].content.thread_id as string,
      answerId: records[0].content.question_answer_id as string,
    };
  }

  it("keeps the owner's latest reaction, shown on the resumed thread across sessions", async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const { threadId, answerId } = await answered(ctx, token);
    const send = (t: string, reaction: string, comment: unknown = null) =>
      ctx.call('POST', `${AGENT}/feedback/`, {
        token: t,
        body: { question_answer_id: answerId, reaction, comment },
      });
    expect((await send(token, 'upvote')).status).toBe(204);
    expect((await send(token, 'downvote', { incorrect: true, issue: 'Outdated' })).status).toBe(204);
    const later = await ctx.session('alice');
    const detail = await threadJson(ctx, later, threadId);
    expect(detail.messages[1]).toMatchObject({ question_answer_id: answerId, reaction: 'downvote' });
    expect(detail.messages[0].reaction).toBeUndefined();

    await ctx.service.refreshActivity();
    const report = await (await ctx.call('GET', `${QUERY}/activity/`, { apiKey: PROJECT.apiKey })).json();
    expect(report.totals).toMatchObject({ upvotes: 0, downvotes: 1 });
    expect(report.by_day.at(-1)).toMatchObject({ upvotes: 0, downvotes: 1 });
  });

  it('answers 404 for an answer of another owner and 400 for a bad body', async () => {
    const ctx = makeService();
    const { answerId } = await answered(ctx, await ctx.session('alice'));
    const bob = await ctx.session('bob');
    const other = await ctx.call('POST', `${AGENT}/feedback/`, {
      token: bob,
      body: { question_answer_id: answerId, reaction: 'upvote' },
    });
    expect(other.status).toBe(404);
    for (const body of [
      { question_answer_id: answerId, reaction: 'meh' },
      { question_answer_id: answerId, reaction: 'upvote', comment: { issue: 'x'.repeat(2001) } },
    ]) {
      expect((await ctx.call('POST', `${AGENT}/feedback/`, { token: bob, body })).status).toBe(400);
    }
  });
});
