import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatSession, type ChatSnapshot } from '../../../src/chat/chat-session.js';
import { MISCONFIGURED_HINT } from '../../../src/chat/service-connection.js';
import {
  AGENT,
  BASE,
  PROJECT,
  SESSION_URL,
  backend,
  device,
  keyOf,
  session,
  settle,
  texts,
  type Device,
} from '../../helpers/chat-session.js';
import { encodeRecord } from '../../msw/stream.js';

afterEach(() => vi.restoreAllMocks());

describe('ChatSession', () => {
  it('sends, streams the answer, and keeps the visible list fresh after each answer', async () => {
    const server = backend();
    server.signIn('alice');
    const { chat } = session(server, device());
    chat.threadList.setOpen(true);
    await vi.waitFor(() => expect(chat.snapshot.threadList.status).toBe('ready'));
    expect(chat.snapshot.threadList.threads).toEqual([]);
    await chat.send('How do I theme it?');
    expect(chat.snapshot.conversation.messages.map((m) => m.status)).toEqual(['sent', 'complete']);
    await vi.waitFor(() =>
      expect(chat.snapshot.threadList.threads.map((t) => t.title)).toEqual(['How do I theme it?']),
    );
  });

  describe('feedback (wire §8)', () => {
    it('round trip against the reference service: sent, reported, and restored when the thread is resumed', async () => {
      const server = backend();
      server.signIn('alice');
      const { chat, feedback, errors } = session(server, device(), { ownerKey: keyOf('alice') });
      await chat.send('How do I theme it?');
      const answer = chat.snapshot.conversation.messages[1];
      expect(answer.questionAnswerId).toEqual(expect.any(String));
      expect(
        await chat.conversation.react(answer.id, 'downvote', { incorrect: true, issue: 'Wrong colour name' }),
      ).toBe(true);
      expect(chat.snapshot.conversation.messages[1].reaction).toBe('downvote');
      expect(feedback).toEqual([{ questionAnswerId: answer.questionAnswerId, reaction: 'downvote' }]);
      expect(server.requests).toContain(`POST /agent/v1/projects/${PROJECT.id}/agent/feedback/`);
      // A second reaction replaces the first (§8): the resumed thread shows the latest.
      expect(await chat.conversation.react(answer.id, 'upvote')).toBe(true);
      const threadId = chat.snapshot.conversation.threadId!;
      chat.newConversation();
      await chat.openThread(threadId);
      const resumed = chat.snapshot.conversation.messages[1];
      expect(resumed.questionAnswerId).toBe(answer.questionAnswerId);
      expect(resumed.reaction).toBe('upvote');
      expect(errors).toEqual([]);
    });

    it('a refused reaction is taken back and reported in plain words', async () => {
      const server = backend();
      const { chat, feedback, errors } = session(server, device());
      await chat.send('hello');
      const answer = chat.snapshot.conversation.messages[1];
      server.override(async (request) =>
        request.url.endsWith('/feedback/') ? new Response('{"detail":"nope"}', { status: 500 }) : undefined,
      );
      expect(await chat.conversation.react(answer.id, 'upvote')).toBe(false);
      expect(chat.snapshot.conversation.messages[1].reaction ?? null).toBeNull();
      expect(feedback).toEqual([]);
      expect(errors.map((e) => [e.code, e.status, e.key])).toEqual([
        [expect.any(String), 500, 'errorGeneric'],
      ]);
      expect(errors[0].message).not.toMatch(/500|HTTP/);
    });

    it('regenerate replaces the last answer with a new one', async () => {
      const server = backend();
      const { chat } = session(server, device());
      await chat.send('hello');
      const first = chat.snapshot.conversation.messages[1];
      await chat.conversation.regenerate();
      const messages = chat.snapshot.conversation.messages;
      expect(messages.map((m) => [m.role, m.status])).toEqual([
        ['user', 'sent'],
        ['assistant', 'complete'],
      ]);
      expect(messages[1].id).not.toBe(first.id);
      expect(messages[1].questionAnswerId).not.toBe(first.questionAnswerId);
    });
  });

  describe('owner binding', () => {
    async function aliceRemembered(memory: Device, ownerKey = '') {
      const server = backend();
      server.signIn('alice');
      const { chat } = session(server, memory, { ownerKey });
      await chat.send('Alice private question');
      chat.threadList.setOpen(true);
      await vi.waitFor(() => expect(chat.snapshot.threadList.threads).toHaveLength(1));
      await settle(chat);
      chat.disconnect();
      expect(memory.dump()).toContain('Alice private question');
      return server;
    }

    it('with a matching page owner-key, shows what the device remembers with zero requests', async () => {
      const memory = device();
      const server = await aliceRemembered(memory, keyOf('alice'));
      const before = server.requests.length;
      const { chat } = session(server, memory, { ownerKey: keyOf('alice') });
      await chat.memory.hydrated;
      expect(texts(chat.snapshot)).toEqual(['Alice private question', expect.any(String)]);
      expect(chat.snapshot.threadList.threads).toHaveLength(1);
      expect(server.requests.length).toBe(before);
    });

    for (const next of ['bob', null] as const) {
      it(`with another page owner-key (${keyOf(next)}), wipes it before anything is shown`, async () => {
        const memory = device();
        const server = await aliceRemembered(memory, keyOf('alice'));
        server.signIn(next);
        const seen: ChatSnapshot[] = [];
        const chat = new ChatSession(
          {
            config: () => ({
              projectId: PROJECT.id,
              integrationId: 'int_demo',
              baseUrl: BASE,
              sessionEndpoint: SESSION_URL,
              ownerKey: keyOf(next),
            }),
            scope: () => 'proj_demo:int_demo',
            openStore: memory.open,
            fetch: server.fetch,
            saveDelayMs: 0,
          },
          { onChange: (s) => seen.push(s), onError: () => {} },
        );
        chat.connect();
        await settle(chat);
        expect(
          seen.every((s) => s.conversation.messages.length === 0 && s.threadList.threads.length === 0),
        ).toBe(true);
        expect(memory.dump()).not.toContain('Alice');
      });
    }

    it('without a page owner-key, shows nothing remembered until a session confirms the same owner', async () => {
      const memory = device();
      const server = await aliceRemembered(memory);
      const before = server.requests.length;
      const { chat } = session(server, memory);
      await chat.memory.hydrated;
      expect(chat.snapshot.conversation.messages).toEqual([]);
      expect(chat.snapshot.threadList.threads).toEqual([]);
      expect(chat.snapshot.threadListOpen).toBe(false); // remembered open, but it has nothing it may show
      expect(server.requests).toHaveLength(before);
      chat.threadList.setOpen(true); // the first moment the widget may ask: the session says alice
      await vi.waitFor(() =>
        expect(texts(chat.snapshot)).toEqual(['Alice private question', expect.any(String)]),
      );
    });

    for (const next of ['bob', null] as const) {
      it(`without a page owner-key, a session for ${keyOf(next)} wipes alice's conversations unseen`, async () => {
        const memory = device();
        const server = await aliceRemembered(memory);
        server.signIn(next);
        const { chat } = session(server, memory);
        await chat.send('Next visitor question');
        await settle(chat);
        expect(texts(chat.snapshot)).toEqual(['Next visitor question', expect.any(String)]);
        expect(memory.dump()).not.toContain('Alice');
      });
    }

    it("anonymous → alice with the header: the anonymous conversation is not alice's", async () => {
      const memory = device();
      const server = backend();
      const anonymous = session(server, memory).chat;
      await anonymous.send('Anonymous question');
      await settle(anonymous);
      anonymous.disconnect();
      server.signIn('alice');
      const { chat } = session(server, memory);
      chat.threadList.setOpen(true);
      await vi.waitFor(() => expect(chat.snapshot.threadList.status).toBe('ready'));
      await settle(chat);
      expect(chat.snapshot.conversation.messages).toEqual([]);
      expect(memory.dump()).not.toContain('Anonymous question');
    });

    it("a new page owner-key drops the previous visitor's token, list and conversation, and reloads an open list", async () => {
      const server = backend();
      server.signIn('alice');
      const { chat, config } = session(server, device(), { ownerKey: keyOf('alice') });
      await chat.send('Alice private question');
      chat.threadList.setOpen(true);
      await vi.waitFor(() => expect(chat.snapshot.threadList.threads).toHaveLength(1));
      server.signIn('bob');
      config.ownerKey = keyOf('bob');
      chat.syncConfig();
      expect(chat.snapshot.conversation.messages).toEqual([]);
      expect(chat.snapshot.threadList.status).toBe('loading');
      await vi.waitFor(() => expect(chat.snapshot.threadList.status).toBe('ready'));
      expect(chat.snapshot.threadList.threads).toEqual([]);
      expect(server.requests.filter((r) => r.endsWith('/api/session'))).toHaveLength(2);
    });
  });

  it("forget() while a thread is opening: the old owner's thread is never shown or stored", async () => {
    const server = backend();
    server.signIn('alice');
    const memory = device();
    const { chat } = session(server, memory);
    await chat.send('Alice private question');
    const threadId = chat.snapshot.conversation.threadId!;
    chat.newConversation();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.override(async (request) => {
      if (request.method !== 'GET' || !request.url.endsWith(`/threads/${threadId}/`)) return undefined;
      await held;
      return undefined;
    });
    const opening = chat.openThread(threadId);
    await vi.waitFor(() => expect(server.requests.at(-1)).toContain(threadId));
    await chat.forget('sign-out');
    release();
    await opening;
    await settle(chat);
    expect(chat.snapshot.conversation.messages).toEqual([]);
    expect(memory.dump()).not.toContain('Alice');
  });

  it('a thread chosen but not had: a question sent while it was read goes nowhere, and what was typed for it stays in the box (decision 659)', async () => {
    const server = backend();
    server.signIn('alice');
    const { chat, errors } = session(server, device());
    await chat.send('First question');
    const chosen = chat.snapshot.conversation.threadId!;
    chat.newConversation();
    await chat.send('Second question');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.override(async (request) => {
      if (request.method !== 'GET' || !request.url.endsWith(`/threads/${chosen}/`)) return undefined;
      await held;
      return new Response('{"detail":"down"}', { status: 500 });
    });
    const chats = server.requests.filter((r) => r.endsWith('/chat/')).length;
    const opening = chat.openThread(chosen);
    // From the choice, the box is the chosen thread's.
    chat.composer.setDraft('And the dark mode?');
    expect(chat.composer.drafts).toEqual({ [chosen]: 'And the dark mode?' });
    const files = vi.fn(() => []);
    const sent = chat.send('And the dark mode?', files);
    release();
    await opening;
    expect(await sent).toBe(false);
    // Nothing taken from the composer's tray: its files stay there with the text (decision 664).
    expect(files).not.toHaveBeenCalled();
    expect(server.requests.filter((r) => r.endsWith('/chat/'))).toHaveLength(chats);
    expect(texts(chat.snapshot)).toEqual(['Second question', expect.any(String)]);
    expect(chat.snapshot.draft).toBe('And the dark mode?');
    expect(errors.map((e) => e.status)).toEqual([500]);
  });

  it('forget() abandons a deletion under way: no error, nothing applied', async () => {
    const server = backend();
    server.signIn('alice');
    const { chat, errors } = session(server, device());
    await chat.send('Question');
    const threadId = chat.snapshot.conversation.threadId!;
    let aborted = false;
    server.override(async (request) => {
      if (request.method !== 'DELETE') return undefined;
      await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve()));
      aborted = true;
      return undefined;
    });
    const deleting = chat.deleteThread(threadId);
    await vi.waitFor(() => expect(server.requests.at(-1)).toMatch(/^DELETE/));
    await chat.forget('sign-out');
    await deleting;
    expect(aborted).toBe(true);
    expect(errors).toEqual([]);
  });

  it('stop() cancels the answer on the service by its id, then aborts', async () => {
    const server = backend();
    const cancels: string[] = [];
    server.override(async (request) => {
      if (request.url.endsWith('/cancel/')) {
        cancels.push(new URL(request.url).pathname);
        return new Response(null, { status: 204 });
      }
      if (!request.url.endsWith('/agent/chat/')) return undefined;
      const start = encodeRecord('stream_start', { thread_id: 'th_1', question_answer_id: 'qa_9' });
      const body = new ReadableStream<Uint8Array>({
        start: (c) =>
          c.enqueue(new TextEncoder().encode(start + encodeRecord('partial_answer', { text: 'Partial' }))),
        pull: () => new Promise(() => {}),
      });
      request.signal.addEventListener('abort', () => body.cancel().catch(() => {}));
      return new Response(body, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
    });
    const { chat } = session(server, device());
    const sending = chat.send('Long question');
    await vi.waitFor(() => expect(chat.snapshot.conversation.messages.at(-1)?.content).toBe('Partial'));
    chat.conversation.stop();
    await sending;
    expect(cancels).toEqual([`${new URL(AGENT).pathname}/answers/qa_9/cancel/`]);
    expect(chat.snapshot.conversation.messages.at(-1)).toMatchObject({
      status: 'stopped',
      content: 'Partial',
      questionAnswerId: 'qa_9',
    });
  });

  it.each([
    ['an HTML page', () => new Response('<html>Portal</html>', { headers: { 'Content-Type': 'text/html' } })],
    ['an empty stream', () => new Response('', { headers: { 'Content-Type': 'text/plain' } })],
    ['a 204', () => new Response(null, { status: 204 })],
  ])('a chat answered 200 with %s fails the question with Retry and an error', async (_label, answer) => {
    const server = backend();
    server.override(async (request) => (request.url.endsWith('/agent/chat/') ? answer() : undefined));
    const { chat, errors } = session(server, device());
    await chat.send('Anyone there?');
    expect(chat.snapshot.conversation.messages).toMatchObject([
      { status: 'failed', error: { code: 'invalid_response', recoverable: true } },
    ]);
    expect(chat.snapshot.conversation.streaming).toBe(false);
    expect(errors.map((e) => e.code)).toEqual(['invalid_response']);
  });

  it('a thread list of the wrong shape is an error state, and nothing of it is stored', async () => {
    const server = backend();
    server.signIn('alice');
    server.override(async (request) =>
      request.url.includes('/threads/?')
        ? Response.json({ threads: [{ id: 1, title: '<b>x</b>' }] })
        : undefined,
    );
    const memory = device();
    const { chat } = session(server, memory, { ownerKey: keyOf('alice') });
    chat.threadList.setOpen(true);
    await vi.waitFor(() => expect(chat.snapshot.threadList.status).toBe('error'));
    expect(chat.snapshot.threadList.error?.code).toBe('invalid_response');
    await settle(chat);
    expect(memory.dump()).not.toContain('<b>x</b>');
  });

  it('reports a missing token source once, with the fix, and fails a send without retrying forever', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const server = backend();
    const { chat, errors } = session(server, device(), { sessionEndpoint: '' });
    chat.checkConfigured();
    chat.checkConfigured();
    expect(chat.snapshot.configured).toBe(false);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged.mock.calls[0][0]).toContain(MISCONFIGURED_HINT);
    await chat.send('Hello?');
    expect(errors.map((e) => e.code)).toEqual(['misconfigured', 'misconfigured']);
    expect(chat.snapshot.conversation.messages).toMatchObject([
      { status: 'failed', error: { recoverable: false } },
    ]);
    expect(server.requests).toEqual([]);
  });

  it("another tab's wipe empties this one and drops its token", async () => {
    const server = backend();
    server.signIn('alice');
    const memory = device();
    const first = session(server, memory, { ownerKey: keyOf('alice') }).chat;
    const second = session(server, memory, { ownerKey: keyOf('alice') }).chat;
    await second.send('Shared computer question');
    await first.forget('sign-out');
    await vi.waitFor(() => expect(second.snapshot.conversation.messages).toEqual([]));
    await second.send('Next');
    expect(server.requests.filter((r) => r.endsWith('/api/session'))).toHaveLength(2);
  });
});
