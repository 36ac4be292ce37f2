import { describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import { ownerKeyOf, referenceBackend } from '../../../msw/reference.js';
import { DemoAgent } from '../../../../service/index.js';
import {
  fixtureChat,
  lastAnswerText,
  messagesOf,
  nextAnswerEnd,
  settled,
  textareaOf,
  typeMessage,
} from '../../../helpers/chat-fixture.js';
import { holdDevice, storedMemory } from '../../../helpers/idb.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const QUESTION = 'How do I theme it?';
const requestsOf = (backend: ReturnType<typeof referenceBackend>) =>
  backend.sessionRequests.length + backend.serviceRequests.length;
const answerOf = (el: AgentChat) =>
  messagesOf(el)
    .filter((m) => m.message?.role === 'assistant')
    .at(-1)?.message;

/**
 * The Quickstart setup: a session endpoint made by createSessionHandler and no `owner-key` on the
 * page. `header` is what the endpoint says of the owner: a key, `-` (anonymous), or nothing.
 */
const SETUPS = [
  { label: 'an anonymous visitor (the endpoint sends -)', owner: null, namesOwner: true, confirms: false },
  { label: 'an endpoint that sends no owner key', owner: 'alice', namesOwner: false, confirms: false },
  {
    label: 'a signed-in visitor (the endpoint sends her key)',
    owner: 'alice',
    namesOwner: true,
    confirms: true,
  },
] as const;

describe('<agent-chat> reload with the Quickstart setup (no owner-key attribute)', () => {
  for (const setup of SETUPS) {
    test(`${setup.label}: the conversation, the draft and the panel come back${setup.confirms ? ' after one session confirms her' : ' within 1 s, with no request'}`, async ({
      backend,
    }) => {
      backend.signIn(setup.owner);
      backend.namingOwner(setup.namesOwner);
      const el = await fixtureChat({ mode: 'launcher' });
      await el.open();
      await el.send(QUESTION);
      await typeMessage(el, 'and the dark theme?');
      await expect
        .poll(async () => Object.values((await storedMemory())?.drafts ?? {}))
        .toEqual(['and the dark theme?']);
      await el.updateComplete;
      el.remove();

      const [sessionsBefore, serviceBefore] = [
        backend.sessionRequests.length,
        backend.serviceRequests.length,
      ];
      const started = performance.now();
      const again = await fixtureChat({ mode: 'launcher' });
      expect(again.opened).toBe(true);
      await expect.poll(() => messagesOf(again).length, { timeout: 1000 }).toBe(2);
      const shownAfter = performance.now() - started;
      await settled(again);
      expect(lastAnswerText(again)).toContain('Style the widget from your page');
      expect(textareaOf(again).value).toBe('and the dark theme?');
      if (setup.confirms) {
        // One session, to confirm who is here; no chat, no history request.
        expect(backend.sessionRequests.length - sessionsBefore).toBe(1);
        expect(backend.serviceRequests.length - serviceBefore).toBe(0);
      } else {
        expect(shownAfter).toBeLessThan(1000);
        expect(backend.sessionRequests.length - sessionsBefore).toBe(0);
        expect(
          backend.serviceRequests.slice(serviceBefore).map((r) => `${r.method} ${new URL(r.url).pathname}`),
        ).toEqual([]);
      }
    });
  }

  test('a visitor with nothing on record mints no session on load, whatever the endpoint says', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat();
    await settled(el);
    await typeMessage(el, 'a first draft');
    await new Promise((resolve) => setTimeout(resolve, 300));
    el.remove();
    const again = await fixtureChat();
    await settled(again);
    expect(textareaOf(again).value).toBe('a first draft');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requestsOf(backend)).toBe(0);
  });

  test("a widget removed before it has read the device mints no session for a signed-in visitor's conversation it finds there", async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat();
    await el.send('Alice private question');
    await expect.poll(async () => (await storedMemory())?.messages.length).toBe(2);
    el.remove();
    const sessions = backend.sessionRequests.length;

    // In the page (inline: its conversation could be seen), and gone again before IndexedDB
    // answers its read: the record it then finds waits for a session that nobody would see.
    const release = await holdDevice();
    const gone = el.cloneNode() as AgentChat;
    document.body.append(gone);
    await vi.waitFor(() => expect(gone.shadowRoot?.querySelector('#panel')).toBeTruthy());
    gone.remove();
    release();
    // A widget that stays reads the same record and confirms her with one session of its own;
    // by the time it shows her conversation the removed one's read (started first) is over.
    const again = await fixtureChat();
    await expect.poll(() => messagesOf(again).length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(backend.sessionRequests.length - sessions).toBe(1);
  });

  test('the endpoint now names another owner: the remembered conversation is wiped unseen', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat();
    await el.send('Alice private question');
    await typeMessage(el, 'Alice private draft');
    await expect.poll(async () => JSON.stringify(await storedMemory())).toContain('Alice private draft');
    el.remove();

    backend.signIn('bob');
    const again = await fixtureChat();
    await expect.poll(() => backend.sessionRequests.length).toBe(2);
    await settled(again);
    await expect
      .poll(async () => JSON.stringify((await storedMemory()) ?? {}))
      .not.toContain('Alice private');
    expect(messagesOf(again)).toHaveLength(0);
    expect(textareaOf(again).value).toBe('');
  });
});

describe('<agent-chat> the first seconds of an answer', () => {
  describe('with a demo agent that writes a word every 15 ms', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 15 }) }));

    test('the question, its thread and the answer id are on the device at stream_start; a reload 100 ms later reattaches and shows the answer once', async ({
      backend,
    }) => {
      backend.signIn(null);
      const el = await fixtureChat();
      const started = new Promise<void>((resolve) =>
        el.addEventListener('agent-chat-answer-start', () => resolve(), { once: true }),
      );
      void el.send(QUESTION);
      await started;
      await new Promise((resolve) => setTimeout(resolve, 100));
      // No pagehide: the page may die without one. What the device holds 100 ms in:
      const stored = await storedMemory();
      expect(stored?.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(stored?.messages[0].content).toBe(QUESTION);
      expect(stored?.activeThreadId).toMatch(/^th_/);
      const qa = stored?.messages[1].questionAnswerId;
      expect(qa).toBeTruthy();
      el.remove();

      const again = await fixtureChat();
      const ended = await nextAnswerEnd(again);
      expect(ended.outcome).toBe('complete');
      await settled(again);
      expect(answerOf(again)?.questionAnswerId).toBe(qa);
      expect(messagesOf(again).map((m) => m.message?.role)).toEqual(['user', 'assistant']);
      expect(lastAnswerText(again).match(/Style the widget from your page/g)).toHaveLength(1);
      expect(backend.chatRequests()).toHaveLength(1);
      expect(
        backend.serviceRequests.filter((r) => r.url.includes('/answers/') && r.url.endsWith('/stream/')),
      ).toHaveLength(1);
    });
  });
});

describe('<agent-chat> on a shared device', () => {
  describe('with a demo agent that writes a word every 15 ms', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 15 }) }));

    test('a new page owner-key shows and sends nothing of the previous owner: draft, queued follow-up, outbox', async ({
      backend,
    }) => {
      backend.signIn('alice');
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      void el.send(QUESTION);
      await expect.poll(() => answerOf(el)?.questionAnswerId).toBeTruthy();
      await el.send('Alice queued follow-up');
      await typeMessage(el, 'Alice private draft');
      await expect.poll(async () => (await storedMemory())?.outbox.length).toBe(1);
      el.remove(); // Alice's tab closes without clearSession()

      backend.signIn('bob');
      const chatsBefore = backend.chatRequests().length;
      const bob = await fixtureChat({ ownerKey: ownerKeyOf('bob') });
      await settled(bob);
      expect(messagesOf(bob)).toHaveLength(0);
      expect(textareaOf(bob).value).toBe('');
      expect(bob.shadowRoot!.querySelector('.outbox')).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(backend.chatRequests()).toHaveLength(chatsBefore);
      await expect.poll(async () => JSON.stringify((await storedMemory()) ?? {})).not.toContain('Alice');

      // Bob's own first message goes alone; Alice's follow-up never becomes Bob's thread.
      await bob.send('Bob question');
      await settled(bob);
      const bodies = await Promise.all(
        backend
          .chatRequests()
          .slice(chatsBefore)
          .map((r) => r.clone().json()),
      );
      expect(bodies.map((b) => b.message)).toEqual(['Bob question']);
    });
  });

  test('a new page owner-key drops a tool call waiting for approval: nothing runs, nothing is sent for it', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    const execute = vi.fn(async () => ({ opened: true }));
    el.tools = [
      {
        name: 'open_page',
        displayName: 'Open a page',
        description: 'Opens a page.',
        parameters: { type: 'object', properties: { page: { type: 'string' } } },
        execute,
        needsApproval: true,
      },
    ];
    void el.send('Open the pricing page');
    await expect
      .poll(() =>
        messagesOf(el).at(-1)?.shadowRoot?.querySelector('[role="group"][aria-label="Open a page"]'),
      )
      .toBeTruthy();
    const chats = backend.chatRequests().length;

    backend.signIn('bob');
    el.ownerKey = ownerKeyOf('bob');
    await expect.poll(() => messagesOf(el).length).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(execute).not.toHaveBeenCalled();
    expect(backend.chatRequests()).toHaveLength(chats);
    await expect.poll(async () => JSON.stringify((await storedMemory()) ?? {})).not.toContain('pricing');
  });
});
