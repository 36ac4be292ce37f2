/** The outbox: follow-ups asked while an answer streams (also across a reload) and sends while offline. */
import { describe, expect, onTestFinished, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE, ownerKeyOf } from '../../../msw/reference.js';
import { DemoAgent } from '../../../../service/index.js';
import { holdDevice, storedMemory } from '../../../helpers/idb.js';
import {
  fixtureChat,
  messagesOf,
  nextAnswerEnd,
  settled,
  textareaOf,
  typeMessage,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
const rootButtons = (el: AgentChat, name: string) =>
  Array.from(el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')).filter(
    (b) => (b.getAttribute('aria-label') ?? b.textContent?.trim()) === name,
  );

describe('<agent-chat> outbox', () => {
  describe('with a demo agent that writes a word every 10 ms', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 10 }) }));

    test('a follow-up sent while an answer streams shows "Queued" (removable) and is sent once after the answer', async ({
      backend,
    }) => {
      backend.signIn('alice');
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      const first = nextAnswerEnd(el);
      void el.send('How do I theme it?');
      await expect
        .poll(() => el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!.querySelector('.stop'))
        .toBeTruthy();
      await typeMessage(el, 'And events?');
      textareaOf(el).dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }),
      );
      await el.send('A third one');
      await settled(el);
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).toContain('And events?');
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).toContain('Queued');
      // The visitor changes their mind about the third one.
      rootButtons(el, 'Remove queued message')[1].click();
      await settled(el);
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).not.toContain('A third one');
      await first;
      const second = nextAnswerEnd(el);
      await second;
      await settled(el);
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => b.message)).toEqual(['How do I theme it?', 'And events?']);
      expect(el.shadowRoot!.querySelector('.outbox')).toBeNull();
      expect(messagesOf(el).map((m) => m.message?.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    });

    test('a queued follow-up survives a reload in mid-answer and is sent once the reattached answer ends', async ({
      backend,
    }) => {
      backend.signIn('alice');
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      void el.send('How do I theme it?');
      await expect.poll(() => messagesOf(el).at(-1)?.message?.questionAnswerId).toBeTruthy();
      await el.send('And events?');
      dispatchEvent(new PageTransitionEvent('pagehide'));
      await expect
        .poll(async () => (await storedMemory())?.outbox.map((q) => q.text))
        .toEqual(['And events?']);
      el.remove();

      const again = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      expect(again.shadowRoot!.querySelector('.outbox')!.textContent).toContain('And events?');
      await expect.poll(() => messagesOf(again).length, { timeout: 8000 }).toBe(4);
      await expect.poll(() => messagesOf(again).at(-1)?.message?.status, { timeout: 8000 }).toBe('complete');
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => b.message)).toEqual(['How do I theme it?', 'And events?']);
    });
  });

  test('a message sent offline waits in the outbox ("Waiting for a connection"), is sent once when back online, and can be removed', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    const realFetch = window.fetch;
    // The network is gone: every request fails as fetch does offline.
    const fetchSpy = vi
      .spyOn(window, 'fetch')
      .mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
    try {
      dispatchEvent(new Event('offline'));
      await el.send('Sent while offline');
      await el.send('Also offline, then removed');
      await settled(el);
      // Nothing went: the conversation is empty, the outbox holds both, in order.
      expect(messagesOf(el)).toHaveLength(0);
      const bar = el.shadowRoot!.querySelector('[part="agent-bar"]')!;
      expect(bar.querySelector('[role="status"]')!.textContent).toContain('Waiting for a connection');
      expect(Array.from(bar.querySelectorAll('.outbox li'), (li) => li.textContent)).toEqual([
        expect.stringContaining('Sent while offline'),
        expect.stringContaining('Also offline, then removed'),
      ]);
      rootButtons(el, 'Remove queued message')[1].click();
      await settled(el);
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).not.toContain('Also offline');
      const { expect: chaiExpect } = await import('@open-wc/testing');
      await chaiExpect(el).to.be.accessible();

      // Back online: sent once, even if the event fires twice.
      fetchSpy.mockImplementation((input, init) => realFetch(input, init));
      onLine.mockReturnValue(true);
      const ended = nextAnswerEnd(el);
      dispatchEvent(new Event('online'));
      dispatchEvent(new Event('online'));
      expect((await ended).outcome).toBe('complete');
      await settled(el);
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => b.message)).toEqual(['Sent while offline']);
      expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
      expect(el.shadowRoot!.querySelector('.outbox')).toBeNull();
    } finally {
      fetchSpy.mockRestore();
      onLine.mockRestore();
    }
  });

  test("back online while the failed request's end is still being written (the tab holds the answer's lock): the question goes once the lock does", async ({
    worker,
    backend,
  }) => {
    const el = await fixtureChat();
    const question = 'Sent as the train entered the tunnel';
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(true);
    onTestFinished(() => onLine.mockRestore());
    let release = () => {};
    onTestFinished(() => release());
    let failed = 0;
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        async () => {
          failed += 1;
          onLine.mockReturnValue(false);
          // The device busy: the failed request's end waits to be written, and the lock with it.
          release = await holdDevice();
          return HttpResponse.error();
        },
        { once: true },
      ),
    );
    await el.send(question);
    await settled(el);
    expect(el.shadowRoot!.querySelector('.outbox')!.textContent).toContain(question);
    expect((await navigator.locks.query()).held).toHaveLength(1);
    // The network back within that moment: every tab hears `online` once, this one included.
    onLine.mockReturnValue(true);
    dispatchEvent(new Event('online'));
    release();
    await expect.poll(() => messagesOf(el).at(-1)?.message?.status, { timeout: 8000 }).toBe('complete');
    const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
    // The failed request went to the handler above; the service had this one only.
    expect(failed).toBe(1);
    expect(bodies.map((b) => b.message)).toEqual([question]);
    expect(messagesOf(el)).toHaveLength(2);
    expect(el.shadowRoot!.querySelector('.outbox')).toBeNull();
  });

  test('a first question asked offline, the page loaded again once online: it is sent once', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    try {
      dispatchEvent(new Event('offline'));
      await el.send('Asked before the laptop slept');
      await expect
        .poll(async () => (await storedMemory())?.outbox.map((q) => q.text))
        .toEqual(['Asked before the laptop slept']);
      el.remove();
    } finally {
      onLine.mockRestore();
    }
    // The browser threw the tab away while the laptop slept, and loads it again, online.
    const again = await fixtureChat();
    await expect.poll(() => messagesOf(again).at(-1)?.message?.status, { timeout: 8000 }).toBe('complete');
    const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
    expect(bodies.map((b) => b.message)).toEqual(['Asked before the laptop slept']);
    expect(again.shadowRoot!.querySelector('.outbox')).toBeNull();
  });
});
