/**
 * The chat call's Idempotency-Key (decision 453): a question sent again with its key is answered
 * with the answer it began, on whichever instance, never asked twice. Runs on memory, and under
 * `npm run test:postgres` on PostgreSQL with two instances taking requests in turn.
 */
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_WINDOW_MS } from '../../../../contract/limits.js';
import {
  AGENT,
  allRecords,
  errorBody,
  makeService,
  readRecords,
  scriptedAgent,
  textOf,
  threadJson,
} from '../../../fixtures/service.js';

type Ctx = ReturnType<typeof makeService>;

const KEY = 'b3f1c2d4e5a60718293a4b5c6d7e8f90';

/** A question with its key (none: no header), as the widget sends it. */
function ask(ctx: Ctx, token: string, message: string, key?: string, threadId: string | null = null) {
  return ctx.call('POST', `${AGENT}/chat/`, {
    token,
    body: { integration_id: 'int_demo', message, thread_id: threadId },
    ...(key && { headers: { 'Idempotency-Key': key } }),
  });
}

const startOf = (records: { type: string; content: Record<string, unknown> }[]) =>
  records.find((r) => r.type === 'stream_start')?.content as {
    thread_id: string;
    question_answer_id: string;
  };

/** A service with a scripted agent, and alice's `message` asked under KEY and answered: its stream_start. */
async function answeredOnce(message: string) {
  const script = scriptedAgent();
  const ctx = makeService({ agent: script.agent });
  const token = await ctx.session('alice');
  const response = await ask(ctx, token, message, KEY);
  script.end();
  return { script, ctx, token, first: startOf(await allRecords(response)) };
}

describe('chat with an Idempotency-Key (decision 453)', () => {
  it('asks a question once: the same key again streams the same answer, one question stored, one model call', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const token = await ctx.session('alice');
    const first = await ask(ctx, token, 'How do I theme it?', KEY);
    script.say('Use the ');
    script.say('CSS properties.');
    script.end();
    const firstRecords = await allRecords(first);
    const again = await ask(ctx, token, 'How do I theme it?', KEY);
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    const againRecords = await allRecords(again);
    expect(startOf(againRecords)).toEqual(startOf(firstRecords));
    expect(textOf(againRecords)).toBe('Use the CSS properties.');
    expect(againRecords.at(-1)?.type).toBe('identifiers');
    expect(script.inputs()).toHaveLength(1);
    const thread = await threadJson(ctx, token, startOf(firstRecords).thread_id);
    expect(thread.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
  });

  it('attaches a resend to the answer still generating: what it has so far, then the live records to its end', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const token = await ctx.session('alice');
    const first = await ask(ctx, token, 'Tell me more', KEY);
    const reader = first.body!.getReader();
    const [start] = await readRecords(reader, 1);
    script.say('So far. ');
    await readRecords(reader, 1);
    // The first response was lost (the network dropped); the widget sends the question again.
    await reader.cancel();
    const again = await ask(ctx, token, 'Tell me more', KEY);
    const againReader = again.body!.getReader();
    const replayed = await readRecords(againReader, 2);
    expect(replayed[0]).toEqual(start);
    expect(replayed[1]).toMatchObject({ type: 'partial_answer', content: { text: 'So far. ' } });
    script.say('And the rest.');
    script.end();
    const rest = await readRecords(againReader, Number.POSITIVE_INFINITY);
    expect(textOf(rest)).toBe('And the rest.');
    expect(rest.at(-1)?.type).toBe('identifiers');
    expect(script.inputs()).toHaveLength(1);
  });

  it("attaches a resend to its answer when the owner's answers are at their cap, its own among them", async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent, maxConcurrentAnswers: 1 });
    const token = await ctx.session('alice');
    const first = await ask(ctx, token, 'Tell me more', KEY);
    const [start] = await readRecords(first.body!.getReader(), 1);
    // The one slot is the answer's own: a new question waits (429), its resend is attached.
    expect((await ask(ctx, token, 'Something else')).status).toBe(429);
    const again = await ask(ctx, token, 'Tell me more', KEY);
    expect(again.status).toBe(200);
    const againReader = again.body!.getReader();
    expect((await readRecords(againReader, 1))[0]).toEqual(start);
    script.end();
    await readRecords(againReader, Number.POSITIVE_INFINITY);
    expect(script.inputs()).toHaveLength(1);
  });

  it('refuses the same key with another message or thread (422), and asks nothing', async () => {
    const { script, ctx, token, first } = await answeredOnce('First question');
    const threadId = first.thread_id;
    for (const [message, thread] of [
      ['Another question', null],
      ['First question', threadId],
    ] as const) {
      const refused = await ask(ctx, token, message, KEY, thread);
      expect(refused.status).toBe(422);
      const body = await errorBody(refused);
      expect(body.code).toBe('idempotency_key_reused');
      expect(body.detail).toContain('another question or thread');
    }
    expect(script.inputs()).toHaveLength(1);
  });

  it('makes one answer of two requests with one key that arrive together (two instances under a fleet)', async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const [one, two] = await Promise.all([
      ask(ctx, token, 'Both at once?', KEY),
      ask(ctx, token, 'Both at once?', KEY),
    ]);
    const [a, b] = await Promise.all([allRecords(one), allRecords(two)]);
    expect(startOf(a)).toEqual(startOf(b));
    expect(textOf(a)).toBe(textOf(b));
    const thread = await threadJson(ctx, token, startOf(a).thread_id);
    expect(thread.messages).toHaveLength(2);
    const list = await (await ctx.call('GET', `${AGENT}/threads/`, { token })).json();
    expect(list.threads).toHaveLength(1);
  });

  it("never honours or reveals another owner's key: theirs is a question of their own", async () => {
    const ctx = makeService();
    const alice = await ctx.session('alice');
    const bob = await ctx.session('bob');
    const hers = await allRecords(await ask(ctx, alice, 'What is my secret plan?', KEY));
    const his = await ask(ctx, bob, 'What is my secret plan?', KEY);
    expect(his.status).toBe(200);
    expect(his.headers.get('Idempotent-Replayed')).toBeNull();
    const records = await allRecords(his);
    expect(startOf(records).question_answer_id).not.toBe(startOf(hers).question_answer_id);
    expect(startOf(records).thread_id).not.toBe(startOf(hers).thread_id);
    // Another message under the same key is no 422 for him either: nothing of hers shows.
    expect((await ask(ctx, (await ctx.session('carol'))!, 'Something else', KEY)).status).toBe(200);
  });

  it('finds an anonymous question again from a new session (a reload), the key being its capability', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const before = await ask(ctx, await ctx.session(), 'Anonymous question', KEY);
    script.end();
    const first = await allRecords(before);
    const after = await allRecords(await ask(ctx, await ctx.session(), 'Anonymous question', KEY));
    expect(startOf(after)).toEqual(startOf(first));
    expect(script.inputs()).toHaveLength(1);
    // An owner's key is not an anonymous visitor's.
    const owned = ask(ctx, await ctx.session('alice'), 'Anonymous question', KEY);
    script.end();
    expect(startOf(await allRecords(await owned))).not.toEqual(startOf(first));
    expect(script.inputs()).toHaveLength(2);
  });

  it('forgets a key after its window: the same key then asks anew, and maintain purges it', async () => {
    const { script, ctx, first: firstStart } = await answeredOnce('Old question');
    ctx.clock.advance(IDEMPOTENCY_WINDOW_MS - 1);
    // Sessions last an hour: a new one, of the same owner.
    const later = await ctx.session('alice');
    expect(startOf(await allRecords(await ask(ctx, later, 'Old question', KEY)))).toEqual(firstStart);
    ctx.clock.advance(2);
    expect((await ctx.service.maintain()).idempotencyKeys).toBe(1);
    const anew = await ask(ctx, later, 'Old question', KEY);
    script.end();
    expect(startOf(await allRecords(anew)).question_answer_id).not.toBe(firstStart.question_answer_id);
    expect(script.inputs()).toHaveLength(2);
  });

  it("forgets a deleted thread's keys: the question is asked anew", async () => {
    const ctx = makeService();
    const token = await ctx.session('alice');
    const first = startOf(await allRecords(await ask(ctx, token, 'Delete me', KEY)));
    expect((await ctx.call('DELETE', `${AGENT}/threads/${first.thread_id}/`, { token })).status).toBe(204);
    const anew = startOf(await allRecords(await ask(ctx, token, 'Delete me', KEY)));
    expect(anew.thread_id).not.toBe(first.thread_id);
  });

  it('refuses a malformed key with 400; without the header every call asks, as before', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const token = await ctx.session('alice');
    for (const bad of ['short', 'with space inside the key!', 'x'.repeat(256)]) {
      const refused = await ask(ctx, token, 'hi', bad);
      expect(refused.status, bad).toBe(400);
      expect((await errorBody(refused)).detail).toContain('Idempotency-Key must be 16 to 255');
    }
    // The draft's quoted form is the same key.
    const quoted = await ask(ctx, token, 'hi', `"${KEY}"`);
    script.end();
    const bare = await ask(ctx, token, 'hi', KEY);
    expect(startOf(await allRecords(bare))).toEqual(startOf(await allRecords(quoted)));
    for (let i = 0; i < 2; i++) {
      const plain = ask(ctx, token, 'hi');
      script.end();
      await allRecords(await plain);
    }
    expect(script.inputs()).toHaveLength(3);
  });
});
