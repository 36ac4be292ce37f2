import { describe, expect, it } from 'vitest';
import { AGENT } from '../../../fixtures/service.js';
import {
  DONE,
  QUESTION,
  SSE,
  answers,
  delta,
  finish,
  setup,
  upstream,
  wait,
} from '../../../fixtures/model-upstream.js';

describe('model agent: a slow model', () => {
  it('tells the visitor it is still working, then ends as an error at the first-token timeout', async () => {
    const model = await upstream(async (res) => {
      res.writeHead(200, SSE);
      await wait(5_000);
      res.end(delta('too late') + finish() + DONE);
    });
    const { ask, logs } = await setup(model.baseUrl, {
      firstTokenTimeoutMs: 1_200,
      stillWorkingAfterMs: 200,
    });
    const started = Date.now();
    const { end, steps, stored, records } = await ask();
    expect(Date.now() - started).toBeLessThan(3_000);
    const wait1 = steps.filter((s) => s.id === 'model-1');
    expect(wait1.map((s) => [s.status, s.summary])).toEqual([
      ['started', 'Still working on it…'],
      ['error', "The answer didn't start in time"],
    ]);
    // The still-working record came before the end, while the visitor waited.
    expect(
      records.findIndex((r) => r.type === 'agent_activity_update' && r.content.id === 'model-1'),
    ).toBeLessThan(records.length - 1);
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The model did not start answering within 1 s.' },
    });
    expect(stored.status).toBe('error');
    expect(stored.activity.find((s) => s.id === 'model-1')?.status).toBe('error');
    expect(logs).toContainEqual(expect.objectContaining({ code: 'model_first_token_timeout' }));
  });

  it('a late but timely first token completes the still-working step and the answer', async () => {
    const model = await upstream(async (res) => {
      res.writeHead(200, SSE);
      await wait(600);
      res.end(delta('Here it is.') + finish() + DONE);
    });
    const { ask } = await setup(model.baseUrl, { stillWorkingAfterMs: 150 });
    const { steps, stored } = await ask();
    expect(steps.filter((s) => s.id === 'model-1').map((s) => s.status)).toEqual(['started', 'completed']);
    expect(stored).toMatchObject({ status: 'complete', content: 'Here it is.' });
  });

  it('a fast model shows no waiting step at all', async () => {
    const model = await upstream(answers(['Quick.']));
    const { ask } = await setup(model.baseUrl);
    expect((await ask()).steps.map((s) => s.id)).toEqual(['search-1', 'search-1']);
  });

  it('a stream that goes silent after it started ends at the stall timeout, text kept', async () => {
    const model = await upstream(async (res) => {
      res.writeHead(200, SSE);
      res.write(delta('Started, then'));
      await wait(5_000);
      res.end(DONE);
    });
    const { ask } = await setup(model.baseUrl, { stallTimeoutMs: 400 });
    const { end, stored } = await ask();
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The answer stopped: the model sent nothing for 1 s.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: 'Started, then' });
  });

  it('a cancel during the wait stops the answer as stopped, not error', async () => {
    const model = await upstream(async (res) => {
      res.writeHead(200, SSE);
      await wait(5_000);
      res.end(DONE);
    });
    const { ctx, token } = await setup(model.baseUrl, { stillWorkingAfterMs: 100 });
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: QUESTION },
    });
    const reader = response.body!.getReader();
    const first = JSON.parse(new TextDecoder().decode((await reader.read()).value).split('\u241E')[0]).chunk;
    await wait(300);
    expect(
      (await ctx.call('POST', `${AGENT}/answers/${first.content.question_answer_id}/cancel/`, { token }))
        .status,
    ).toBe(204);
    const stored = (await ctx.service.storage.conversations.getThread(first.content.thread_id))!.messages.at(
      -1,
    )!;
    expect(stored.status).toBe('stopped');
    await reader.cancel();
  });
});
