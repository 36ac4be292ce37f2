/**
 * A question is asked once, whatever the network does (decision 453): every chat call carries
 * the question's Idempotency-Key, a resend of it (Retry, the 401 rule's, after a reload) the
 * same one, and the reference service behind msw answers a resend with the answer it began.
 */
import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE, type ReferenceBackend } from '../../../msw/reference.js';
import { fixtureChat, messagesOf, nextAnswerEnd, settled } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const CHAT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`;
const KEY = /^[0-9a-f]{32}$/;
const statuses = (el: AgentChat) => messagesOf(el).map((m) => m.message?.status);
const retryButton = (el: AgentChat) =>
  messagesOf(el).at(-1)?.shadowRoot?.querySelector<HTMLButtonElement>('button.retry');

/**
 * Records each chat call's key; the first `lose` calls reach the service (which begins the
 * answer) but their response never reaches the page: a network drop (`error`), or a response
 * that never comes (`hang`, the page goes away first). The rest go on to the backend.
 */
function chatCalls(
  worker: { use: (...h: ReturnType<typeof http.post>[]) => void },
  backend: ReferenceBackend,
  lose = 0,
  how: 'error' | 'hang' = 'error',
) {
  const keys: (string | null)[] = [];
  worker.use(
    http.post(CHAT, async ({ request }) => {
      keys.push(request.headers.get('Idempotency-Key'));
      if (lose-- <= 0) return undefined;
      const response = await backend.service.handle(request.clone());
      await response.body?.cancel();
      return how === 'error' ? HttpResponse.error() : new Promise<never>(() => {});
    }),
  );
  return keys;
}

/** The questions the service stored in a thread. */
async function questionsIn(backend: ReferenceBackend, threadId: string): Promise<string[]> {
  const thread = await backend.service.storage.conversations.getThread(threadId);
  return (thread?.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content);
}

describe('<agent-chat> asks each question once (Idempotency-Key)', () => {
  test('a Retry after a lost response sends the same key: the service answers the question it has, once', async ({
    worker,
    backend,
  }) => {
    const keys = chatCalls(worker, backend, 1);
    const el = await fixtureChat();
    await el.send('Did this arrive?');
    await settled(el);
    expect(statuses(el)).toEqual(['failed']);
    const ended = nextAnswerEnd(el);
    retryButton(el)!.click();
    const { threadId } = await ended;
    await settled(el);
    expect(statuses(el)).toEqual(['sent', 'complete']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(KEY);
    expect(keys[1]).toBe(keys[0]);
    expect(await questionsIn(backend, threadId!)).toEqual(['Did this arrive?']);
  });

  test('each new question sends a new key', async ({ worker, backend }) => {
    const keys = chatCalls(worker, backend);
    const el = await fixtureChat();
    await el.send('One?');
    await el.send('Two?');
    await settled(el);
    expect(statuses(el)).toEqual(['sent', 'complete', 'sent', 'complete']);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(KEY);
    expect(keys[1]).not.toBe(keys[0]);
  });

  test("the 401 rule's retry (a new token) keeps the key", async ({ worker, backend }) => {
    const keys: (string | null)[] = [];
    worker.use(
      http.post(CHAT, ({ request }) => {
        keys.push(request.headers.get('Idempotency-Key'));
        if (keys.length > 1) return undefined;
        return HttpResponse.json({ detail: 'expired', code: 'invalid_token' }, { status: 401 });
      }),
    );
    const el = await fixtureChat();
    await el.send('After a refresh?');
    await settled(el);
    expect(statuses(el)).toEqual(['sent', 'complete']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(KEY);
    expect(keys[1]).toBe(keys[0]);
    expect(backend.chatRequests()).toHaveLength(1);
  });

  test('a question the page left before its answer came is sent again by the next load, under its key, and answered once', async ({
    worker,
    backend,
  }) => {
    const keys = chatCalls(worker, backend, 1, 'hang');
    const el = await fixtureChat();
    void el.send('Sent just before a reload');
    await expect.poll(() => keys.length).toBe(1);
    // The navigation: the stash at pagehide, then the element goes with the page.
    window.dispatchEvent(new PageTransitionEvent('pagehide'));
    el.remove();

    const again = await fixtureChat();
    const { threadId, outcome } = await nextAnswerEnd(again);
    expect(outcome).toBe('complete');
    await settled(again);
    expect(statuses(again)).toEqual(['sent', 'complete']);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(await questionsIn(backend, threadId!)).toEqual(['Sent just before a reload']);
  });
});
