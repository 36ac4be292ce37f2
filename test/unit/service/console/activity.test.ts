import { describe, expect, it } from 'vitest';
import { withConsole } from '../../../fixtures/console.js';
import { PROJECT } from '../../../fixtures/service.js';

describe('console activity', () => {
  it('activity per day (zeros included), per integration and as CSV', async () => {
    const { admin, session, chat, clock, service } = await withConsole();
    await chat(await session('alice'), 'How do I theme it?');
    clock.advance(86_400_000);
    const bob = await session('bob');
    await chat(bob, 'Is it safe?');
    await chat(bob, 'And React?');
    // A console session lasts 12 hours: a day later, the admin signs in again.
    expect((await admin.call('GET', 'projects')).status).toBe(401);
    await admin.signIn();
    // What the fleet's timer does: the rollup (and the summaries after it) are rebuilt off the request path.
    await service.refreshActivity();
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const yesterday = new Date(clock.now() - 86_400_000).toISOString().slice(0, 10);
    const before = new Date(clock.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const query = `start=${before}&end=${today}`;
    const json = (await admin.call('GET', `projects/${PROJECT.id}/activity?${query}`)).body;
    expect(json.by_day, JSON.stringify(json)).toBeDefined();
    expect(
      json.by_day.map((d: { date: string; sessions: number; threads: number; messages: number }) => [
        d.date,
        d.sessions,
        d.threads,
        d.messages,
      ]),
    ).toEqual([
      [before, 0, 0, 0],
      [yesterday, 1, 1, 2],
      [today, 1, 2, 4],
    ]);
    expect(json.totals).toEqual({
      sessions: 2,
      threads: 3,
      messages: 6,
      upvotes: 0,
      downvotes: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      failed_answers: 0,
      unique_owners: 2,
    });
    expect(json.by_integration).toEqual([
      expect.objectContaining({ integration_id: 'int_demo', sessions: 2, threads: 3 }),
    ]);
    const csv = await admin.call('GET', `projects/${PROJECT.id}/activity?${query}&format=csv`);
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('Content-Disposition')).toBe(
      `attachment; filename="activity-${PROJECT.id}-${before}-${today}.csv"`,
    );
    expect(csv.body).toBe(
      `date,sessions,threads,messages,upvotes,downvotes,prompt_tokens,completion_tokens,failed_answers\r\n${before},0,0,0,0,0,0,0,0\r\n${yesterday},1,1,2,0,0,0,0,0\r\n${today},1,2,4,0,0,0,0,0\r\n`,
    );
    expect(
      (await admin.call('GET', `projects/${PROJECT.id}/activity?start=${today}&end=${before}`)).status,
    ).toBe(400);
  });

  it('model tokens per day, from the usage the agent reports', async () => {
    const agent = {
      async *answer() {
        yield { type: 'text' as const, text: 'Counted.' };
        yield { type: 'usage' as const, promptTokens: 120, completionTokens: 30 };
      },
    };
    const { admin, session, chat, clock, service } = await withConsole({ agent });
    await chat(await session('alice'), 'One');
    await chat(await session('bob'), 'Two');
    await service.refreshActivity();
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const json = (await admin.call('GET', `projects/${PROJECT.id}/activity?start=${today}&end=${today}`))
      .body;
    expect(json.by_day).toEqual([
      expect.objectContaining({ date: today, prompt_tokens: 240, completion_tokens: 60 }),
    ]);
    expect(json.totals).toMatchObject({ prompt_tokens: 240, completion_tokens: 60 });
    expect(json.by_integration).toEqual([
      expect.objectContaining({ integration_id: 'int_demo', prompt_tokens: 240, completion_tokens: 60 }),
    ]);
  });
});
