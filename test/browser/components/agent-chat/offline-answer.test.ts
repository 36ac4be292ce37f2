/** The network goes in the middle of an answer: what the visitor sees and hears while it waits. */
import { describe, expect, vi } from 'vitest';
import { http } from 'msw';
import type { SetupWorker } from 'msw/browser';
import { test } from '../../../msw/test.js';
import { cutAfter } from '../../../msw/stream.js';
import { SERVICE_BASE, ownerKeyOf, type ReferenceBackend } from '../../../msw/reference.js';
import { DemoAgent } from '../../../../service/index.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import {
  answerRoot,
  buttonNamed,
  composerOf,
  fixtureChat,
  messagesOf,
  nextAnswerEnd,
  settled,
} from '../../../helpers/chat-fixture.js';

const CHAT = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;

/**
 * Alice asks; a few words into the answer its stream drops as the network goes: `navigator.onLine`
 * turns false and every fetch fails as it does offline (the service keeps generating).
 */
async function askThenOffline(worker: SetupWorker, backend: ReferenceBackend) {
  backend.signIn('alice');
  const realFetch = window.fetch;
  const onLine = vi.spyOn(navigator, 'onLine', 'get');
  const fetchSpy = vi.spyOn(window, 'fetch');
  worker.use(
    http.post(CHAT, async ({ request }) => {
      return cutAfter(await backend.service.handle(request), 4, () => {
        onLine.mockReturnValue(false);
        fetchSpy.mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
        dispatchEvent(new Event('offline'));
      });
    }),
  );
  const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
  const ended = nextAnswerEnd(el);
  void el.send('How do I theme it?');
  await expect.poll(() => messagesOf(el).length, { timeout: 5000 }).toBe(2);
  return {
    el,
    ended,
    online() {
      fetchSpy.mockImplementation((input, init) => realFetch(input, init));
      onLine.mockReturnValue(true);
      dispatchEvent(new Event('online'));
    },
    restore() {
      fetchSpy.mockRestore();
      onLine.mockRestore();
    },
  };
}

const metaOf = (el: AgentChat) => answerRoot(el).querySelector('[part="meta"]');

describe('<agent-chat> offline in the middle of an answer', () => {
  test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 20 }) }));

  test('says "Waiting for a connection" (a status, not an alert) with Stop, then goes on once online', async ({
    worker,
    backend,
  }) => {
    const { el, ended, online, restore } = await askThenOffline(worker, backend);
    try {
      // Every alert the answer shows from its first words on, to the end of the wait.
      const alerts: string[] = [];
      new MutationObserver(() => {
        for (const alert of answerRoot(el).querySelectorAll('[role="alert"]'))
          alerts.push(alert.textContent!);
      }).observe(answerRoot(el), { childList: true, subtree: true, characterData: true });
      await expect.poll(() => metaOf(el)?.textContent ?? '').toContain('Waiting for a connection');
      await settled(el);
      expect(metaOf(el)!.querySelector('[role="status"]')!.textContent).toBe('Waiting for a connection');
      expect(metaOf(el)!.textContent).not.toContain('interrupted');
      expect(alerts, 'an alert that the answer was interrupted, even for a moment').toEqual([]);
      // Stopping the wait is the visitor's: Stop is there, Retry is not (the answer will go on).
      expect(buttonNamed(composerOf(el).shadowRoot!, 'Stop')).toBeTruthy();
      expect(buttonNamed(metaOf(el)!, 'Retry')).toBeUndefined();

      online();
      expect((await ended).outcome).toBe('complete');
      await settled(el);
      expect(metaOf(el)).toBeNull();
      expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
    } finally {
      restore();
    }
  });

  test('stopped while it waits, it no longer says it waits: it is the interrupted answer it was, stopped', async ({
    worker,
    backend,
  }) => {
    const { el, ended, restore } = await askThenOffline(worker, backend);
    try {
      await expect.poll(() => metaOf(el)?.textContent ?? '').toContain('Waiting for a connection');
      buttonNamed(composerOf(el).shadowRoot!, 'Stop')!.click();
      expect((await ended).outcome).toBe('aborted');
      await settled(el);
      expect(metaOf(el)!.textContent).not.toContain('Waiting for a connection');
      expect(metaOf(el)!.querySelector('[role="alert"]')!.textContent).toBe('The answer was interrupted.');
      expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'stopped']);
    } finally {
      restore();
    }
  });
});
