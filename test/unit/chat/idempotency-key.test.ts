/**
 * A question's Idempotency-Key in the conversation core (decisions 453 and 455): made once per
 * question, kept by every resend of it (Retry, the outbox, a resend after a reload), new when
 * the visitor asks again on purpose (Regenerate).
 */
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../../src/api/api-client.js';
import { NetworkError } from '../../../src/api/errors.js';
import type { ChatRequest, StreamEvent } from '../../../src/api/types.js';
import { Conversation } from '../../../src/chat/conversation.js';
import { Outbox } from '../../../src/chat/outbox.js';
import { RESEND_WINDOW_MS, TabHandoff } from '../../../src/chat/tab-handoff.js';
import type { ChatMessage } from '../../../src/chat/types.js';

async function* answered(): AsyncIterable<StreamEvent> {
  yield { type: 'start', threadId: 'th', questionAnswerId: 'qa' };
  yield { type: 'delta', text: 'Answer.' };
  yield { type: 'end', threadId: 'th', questionAnswerId: 'qa' };
}

/** A chat call whose response was lost: the iteration fails as the client's does. */
const lost = (): AsyncIterable<StreamEvent> => ({
  [Symbol.asyncIterator]: () => ({
    next: () => Promise.reject(new NetworkError('Sending the message: the service could not be reached.')),
  }),
});

/** A conversation whose chat calls are recorded; each answers with the next of `replies` (then answers). */
function conversationWith(replies: (() => AsyncIterable<StreamEvent>)[] = []) {
  const requests: ChatRequest[] = [];
  const api = {
    chat: (request: ChatRequest) => (requests.push(request), (replies.shift() ?? answered)()),
    reattach: answered,
    cancelAnswer: async () => {},
  };
  const conversation = new Conversation(() => api as unknown as ApiClient, { onChange: () => {} });
  return { conversation, requests };
}

const KEY = /^[0-9a-f]{32}$/;

describe("a question's Idempotency-Key", () => {
  it('is new for each question, the same for its Retry, and new again for Regenerate', async () => {
    const { conversation, requests } = conversationWith([lost]);
    await conversation.send('First?');
    const [question] = conversation.snapshot.messages;
    expect(question.status).toBe('failed');
    await conversation.retry(question.id);
    await conversation.send('Second?');
    await conversation.regenerate();
    const keys = requests.map((r) => r.idempotencyKey);
    for (const key of keys) expect(key).toMatch(KEY);
    expect(keys[1]).toBe(keys[0]);
    expect(new Set(keys).size).toBe(3);
    expect(requests.map((r) => r.message)).toEqual(['First?', 'First?', 'Second?', 'Second?']);
  });

  it('goes back to the outbox with a question that went offline mid-request, and out with it', async () => {
    const sent: (string | undefined)[] = [];
    const outbox = new Outbox({
      onChange: () => {},
      canSend: () => true,
      send: async (_text, _files, key) => void sent.push(key),
      online: () => outbox.sendNow(),
    });
    outbox.add('Queued?');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent).toEqual([undefined]);
    expect(outbox.takeBack('Queued?', [], 'key-of-the-first-send')).toBe(true);
    expect(outbox.entries[0].idempotencyKey).toBe('key-of-the-first-send');
    outbox.sendNow();
    expect(sent).toEqual([undefined, 'key-of-the-first-send']);
  });
});

describe('a question a navigation cut off, read back after the reload (decision 455)', () => {
  const cut = (extra: Partial<ChatMessage> = {}): ChatMessage => ({
    id: 'q1',
    role: 'user',
    content: 'Cut off?',
    sources: [],
    status: 'failed',
    idempotencyKey: 'a'.repeat(32),
    sentAt: Date.now() - 1000,
    ...extra,
  });

  function restored(message: ChatMessage) {
    const { conversation, requests } = conversationWith();
    conversation.reset(null, [message]);
    const tabs = new TabHandoff({
      scope: () => 'scope',
      connected: () => true,
      conversation,
      memory: { flush: async () => {}, revisit: async () => {}, store: undefined },
      outbox: { entries: [], sendNow: () => false },
    });
    return { conversation, requests, resent: tabs.resendLast() };
  }

  it('is sent again by the page, once, under its key, and answered', async () => {
    const { conversation, requests, resent } = restored(cut());
    expect(resent).toBe(true);
    await expect
      .poll(() => conversation.snapshot.messages.map((m) => m.status))
      .toEqual(['sent', 'complete']);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ message: 'Cut off?', idempotencyKey: 'a'.repeat(32) });
  });

  it('reads as sending from the moment the page resends it, never as not sent first', () => {
    const { conversation } = restored(cut());
    expect(conversation.snapshot.messages.map((m) => m.status)).toEqual(['sending']);
  });

  it('reads sending while another tab holds the answer (it is sending it), and is not sent from here', async () => {
    // Another tab holds the answer's lock until `letGo`; then the device says how it went.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let isHeld = true;
    vi.stubGlobal('navigator', {
      locks: {
        query: async () => ({ held: isHeld ? [{ name: 'agent-chat.answer:scope' }] : [] }),
        request: async (_name: string, then: () => Promise<void>) => {
          await held;
          return then();
        },
      },
    });
    try {
      const { conversation, requests, resent } = restored(cut());
      expect(resent).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(conversation.snapshot.messages.map((m) => m.status)).toEqual(['sending']);
      // That tab went away before its answer came: the device still has the question unsent.
      isHeld = false;
      letGo();
      await expect.poll(() => conversation.snapshot.messages.map((m) => m.status)).toEqual(['failed']);
      expect(conversation.snapshot.messages[0].error).toBeUndefined();
      expect(requests).toHaveLength(0);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  for (const [label, message] of [
    ['older than the window', cut({ sentAt: Date.now() - RESEND_WINDOW_MS - 1 })],
    [
      'whose send failed (it has an error)',
      cut({ error: { code: 'x', message: 'x', key: 'errorGeneric', recoverable: true } }),
    ],
    ['without a key (an older version wrote it)', cut({ idempotencyKey: undefined })],
    ['sent already', cut({ status: 'sent' })],
  ] as const)
    it(`stays as it is, not sent, when ${label}`, async () => {
      const { conversation, requests, resent } = restored(message);
      expect(resent).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(requests).toHaveLength(0);
      expect(conversation.snapshot.messages[0].status).toBe(message.status);
    });
});
