import { afterEach, describe, expect, it } from 'vitest';
import type { Stores } from '../../../service/index.js';
import { AGENT, allRecords, makeService, readRecords, scriptedAgent } from '../../fixtures/service.js';
import { backends } from '../../fixtures/storages.js';

/**
 * The interleavings that lost data when threads were rewritten whole, forced at the service
 * level on every store: a scripted agent holds an answer open at a chosen point.
 */
describe.each(backends())('races on $name', { timeout: 30_000 }, (backend) => {
  let storage: Stores | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
  });

  it('two chats answering at once on one thread keep every question and answer', async () => {
    storage = await backend.open();
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
    storage = await backend.open();
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
    storage = await backend.open();
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
