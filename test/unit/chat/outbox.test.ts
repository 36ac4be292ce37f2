import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_OUTBOX, MAX_SEND_ATTEMPTS } from '../../../src/chat/outbox.js';
import { backend, device, session, type Backend } from '../../helpers/chat-session.js';

/** The page's window as far as the session listens to it: `online` and `offline`. */
let page: EventTarget;
let online: boolean;

beforeEach(() => {
  page = new EventTarget();
  online = true;
  vi.stubGlobal('addEventListener', page.addEventListener.bind(page));
  vi.stubGlobal('removeEventListener', page.removeEventListener.bind(page));
  vi.stubGlobal('navigator', {
    get onLine() {
      return online;
    },
  });
});

afterEach(() => vi.unstubAllGlobals());

/** Chat requests fail as fetch does without a network while `down()` says so; `each` runs first. */
function network(server: Backend, down: () => boolean, each: () => void = () => {}) {
  const chats: string[] = [];
  server.override(async (request) => {
    if (!request.url.endsWith('/agent/chat/')) return undefined;
    chats.push(((await request.clone().json()) as { message: string }).message);
    each();
    if (down()) throw new TypeError('Failed to fetch');
    return undefined;
  });
  return chats;
}

const backOnline = () => {
  online = true;
  page.dispatchEvent(new Event('online'));
};

describe('ChatSession outbox', () => {
  it('keeps an offline send in the outbox, sends it once when back online; online but unreachable, it fails with Retry', async () => {
    const server = backend();
    let reachable = false;
    const chats = network(server, () => !reachable);
    const { chat, errors } = session(server, device());
    online = false;
    page.dispatchEvent(new Event('offline'));
    expect(await chat.send('one')).toBe(true);
    expect(chat.snapshot.outbox.map((q) => q.text)).toEqual(['one']);
    expect(chat.snapshot.offline).toBe(true);
    expect(chat.snapshot.conversation.messages).toEqual([]);
    expect(chats).toEqual([]);

    // Two `online` events make one attempt, not two; online but unreachable, it fails (Retry).
    backOnline();
    page.dispatchEvent(new Event('online'));
    await vi.waitFor(() =>
      expect(chat.snapshot.conversation.messages.map((m) => m.status)).toEqual(['failed']),
    );
    expect(chats).toEqual(['one']);
    expect(chat.snapshot.outbox).toEqual([]);
    expect(chat.snapshot.offline).toBe(false);
    // The failure the visitor sees is announced too, with the documented code.
    expect(chat.snapshot.conversation.messages[0].error?.code).toBe('network');
    expect(errors.map((e) => e.code)).toEqual(['network']);

    reachable = true;
    await chat.send('two');
    expect(chat.snapshot.conversation.messages.map((m) => m.status)).toEqual(['failed', 'sent', 'complete']);
  });

  it('gives up on a send that keeps going offline mid-request after its last attempt, says so and fires the error', async () => {
    const server = backend();
    // The connection drops during every attempt: the question comes back to the outbox.
    const chats = network(
      server,
      () => true,
      () => (online = false),
    );
    const { chat, errors } = session(server, device());
    await chat.send('one');
    expect(chats).toEqual(['one']);
    for (let attempt = 2; attempt <= MAX_SEND_ATTEMPTS; attempt += 1) {
      await vi.waitFor(() => expect(chat.snapshot.outbox.map((q) => q.text)).toEqual(['one']));
      expect(chat.snapshot.conversation.messages).toEqual([]);
      backOnline();
      await vi.waitFor(() => expect(chats).toHaveLength(attempt));
    }
    await vi.waitFor(() =>
      expect(chat.snapshot.conversation.messages.map((m) => m.status)).toEqual(['failed']),
    );
    expect(chat.snapshot.outbox).toEqual([]);
    expect(chat.snapshot.conversation.messages[0].error?.code).toBe('network');
    expect(errors.map((e) => e.code)).toEqual(['network']);
  });

  it('holds at most MAX_OUTBOX questions, whatever they wait for, and sends them in order, each once', async () => {
    const server = backend();
    const chats = network(server, () => false);
    const { chat } = session(server, device());
    online = false;
    const taken = [];
    for (let i = 1; i <= MAX_OUTBOX + 1; i += 1) taken.push(await chat.send(`question ${i}`));
    expect(taken).toEqual([...Array(MAX_OUTBOX).fill(true), false]);
    // A question refused takes nothing from the composer's tray: its files stay there.
    const files = vi.fn(() => []);
    expect(await chat.send('with a file', files)).toBe(false);
    expect(files).not.toHaveBeenCalled();
    chat.outbox.remove(chat.snapshot.outbox[1].id);
    backOnline();
    await vi.waitFor(() => expect(chat.snapshot.outbox).toEqual([]));
    await vi.waitFor(() => expect(chat.snapshot.conversation.streaming).toBe(false));
    expect(chats).toEqual(['question 1', 'question 3', 'question 4', 'question 5']);
  });
});
