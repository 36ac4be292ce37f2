/**
 * The service goes down in the middle of an answer while the browser stays online (a connection
 * refused, a proxy's 502): what the visitor sees and hears between the reattach attempts, and
 * once they are spent (decision 587).
 */
import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
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

const AGENT = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent`;

/** How the service answers while it is down: no connection at all, or a proxy's error page. */
type Down = 'refused' | 'bad-gateway';

/**
 * Alice asks; a few words into the answer the service goes down (it keeps generating behind,
 * as a restarting proxy would leave it). Reattaches fail as `down` says until `up()`.
 */
async function askThenDown(worker: SetupWorker, backend: ReferenceBackend, down: Down) {
  backend.signIn('alice');
  let reachable = true;
  const reattaches: number[] = [];
  const unreachable = () =>
    down === 'refused'
      ? HttpResponse.error()
      : new HttpResponse('<h1>502 Bad Gateway</h1>', {
          status: 502,
          headers: { 'Content-Type': 'text/html' },
        });
  worker.use(
    http.post(`${AGENT}/chat/`, async ({ request }) =>
      cutAfter(await backend.service.handle(request), 4, () => (reachable = false)),
    ),
    http.get(`${AGENT}/answers/:id/stream/`, ({ request }) => {
      reattaches.push(Date.now());
      return reachable ? backend.service.handle(request) : unreachable();
    }),
    http.post(`${AGENT}/answers/:id/cancel/`, ({ request }) =>
      reachable ? backend.service.handle(request) : unreachable(),
    ),
  );
  const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
  const ended = nextAnswerEnd(el);
  void el.send('How do I theme it?');
  await expect.poll(() => messagesOf(el).length, { timeout: 5000 }).toBe(2);
  return { el, ended, reattaches, up: () => (reachable = true) };
}

const metaOf = (el: AgentChat) => answerRoot(el).querySelector('[part="meta"]');

/** Every alert the answer shows from now on. */
function alertsOf(el: AgentChat): string[] {
  const alerts: string[] = [];
  new MutationObserver(() => {
    for (const alert of answerRoot(el).querySelectorAll('[role="alert"]')) alerts.push(alert.textContent!);
  }).observe(answerRoot(el), { childList: true, subtree: true, characterData: true });
  return alerts;
}

describe('<agent-chat> when the service goes down in the middle of an answer, online', () => {
  test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 20 }) }));

  test('says "Reconnecting…" (a polite status, never the interrupted alert) with Stop while a 502 lasts, then goes on', async ({
    worker,
    backend,
  }) => {
    const { el, ended, reattaches, up } = await askThenDown(worker, backend, 'bad-gateway');
    const alerts = alertsOf(el);
    await expect.poll(() => metaOf(el)?.textContent ?? '').toContain('Reconnecting…');
    await settled(el);
    expect(metaOf(el)!.querySelector('[role="status"]')!.textContent).toBe('Reconnecting…');
    expect(buttonNamed(composerOf(el).shadowRoot!, 'Stop')).toBeTruthy();
    expect(buttonNamed(metaOf(el)!, 'Retry')).toBeUndefined();
    // A proxy's 502 is an attempt, not the end: the widget tries again, still reconnecting.
    await expect.poll(() => reattaches.length, { timeout: 5000 }).toBe(2);
    expect(metaOf(el)!.querySelector('[role="status"]')!.textContent).toBe('Reconnecting…');

    up();
    expect((await ended).outcome).toBe('complete');
    await settled(el);
    expect(metaOf(el)).toBeNull();
    expect(alerts, 'an alert while the answer reconnected').toEqual([]);
    expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
  });

  for (const down of ['refused', 'bad-gateway'] as const)
    test(`${down} every time: "Reconnecting…" through the attempts, then it cannot be reached, with Retry`, async ({
      worker,
      backend,
    }) => {
      const { el, ended, reattaches } = await askThenDown(worker, backend, down);
      const alerts = alertsOf(el);
      await expect.poll(() => metaOf(el)?.textContent ?? '').toContain('Reconnecting…');
      expect(alerts).toEqual([]);
      expect((await ended).outcome).toBe('error');
      await settled(el);
      expect(reattaches).toHaveLength(4);
      expect(alerts).toEqual(["The assistant can't be reached. Check your connection and try again."]);
      expect(metaOf(el)!.querySelector('[role="status"]')).toBeNull();
      expect(buttonNamed(metaOf(el)!, 'Retry')).toBeTruthy();
      expect(buttonNamed(composerOf(el).shadowRoot!, 'Stop')).toBeUndefined();
    }, 20_000);

  test('stopped while it reconnects, it is the interrupted answer it was, stopped', async ({
    worker,
    backend,
  }) => {
    const { el, ended } = await askThenDown(worker, backend, 'refused');
    await expect.poll(() => metaOf(el)?.textContent ?? '').toContain('Reconnecting…');
    buttonNamed(composerOf(el).shadowRoot!, 'Stop')!.click();
    expect((await ended).outcome).toBe('aborted');
    await settled(el);
    expect(metaOf(el)!.textContent).not.toContain('Reconnecting…');
    expect(metaOf(el)!.querySelector('[role="alert"]')!.textContent).toBe('The answer was interrupted.');
    expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'stopped']);
  });
});
