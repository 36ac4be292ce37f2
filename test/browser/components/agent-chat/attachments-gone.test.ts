/**
 * A visitor without owner (anonymous here, public alike, §2b): a file goes only with a question of
 * the session that uploaded it (§11). A question resent by a new session (the next load, a
 * renewed token) is refused with `file_unavailable`: it says its files are gone, and Retry
 * sends its text alone.
 */
import { describe, expect, onTestFinished, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { fixture, html } from '@open-wc/testing';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, publicSessionRoutes } from '../../../msw/reference.js';
import {
  fixtureChat,
  logFile,
  messagesOf,
  nextAnswerEnd,
  pickFiles,
  settled,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
const box = () => page.getByRole('textbox', { name: 'Message' });
const GONE =
  'server.log: no longer available. To send a file, attach it again; Retry sends your message without files.';
const bodies = async (requests: Request[]) =>
  Promise.all(
    requests.map(async (r) => (await r.clone().json()) as { message: string; attachments?: unknown[] }),
  );

async function writeWithFile(el: AgentChat, text: string): Promise<void> {
  await pickFiles(el, logFile());
  await expect
    .poll(() =>
      el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!.querySelector('.tray .chip.ready'),
    )
    .toBeTruthy();
  await userEvent.fill(box(), text);
}

/** The failed question says its file is gone, shows no file, and Retry sends its text alone, answered. */
async function retriedWithoutFiles(el: AgentChat, requests: () => Request[]): Promise<void> {
  await expect
    .element(page.getByRole('alert').filter({ hasText: 'no longer available' }))
    .toHaveTextContent(GONE);
  await expect
    .element(page.getByRole('button', { name: 'Download server.log, 26 B' }))
    .not.toBeInTheDocument();
  const before = requests().length;
  const ended = nextAnswerEnd(el);
  await userEvent.click(page.getByRole('button', { name: 'Retry' }));
  expect((await ended).outcome).toBe('complete');
  const sent = await bodies(requests().slice(before));
  expect(sent.map((b) => [b.message, b.attachments?.length ?? 0])).toEqual([['And this log?', 0]]);
  expect(messagesOf(el).map((m) => [m.message?.role, m.message?.status])).toEqual([
    ['user', 'sent'],
    ['assistant', 'complete'],
  ]);
}

describe('<agent-chat> a question whose files its new session may not send', () => {
  test('the next load sends a question cut off by a navigation: its files are said gone, Retry sends its text', async ({
    worker,
    backend,
  }) => {
    const el = await fixtureChat();
    await writeWithFile(el, 'And this log?');
    let calls = 0;
    worker.use(http.post(`${AGENT}/chat/`, () => (calls++ ? undefined : new Promise<never>(() => {}))));
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect.poll(() => calls).toBe(1);
    window.dispatchEvent(new PageTransitionEvent('pagehide'));
    el.remove();
    // The page that left held the answer's lock; a browser frees it with the page, here it goes
    // with the aborted request: the next load sends the question once it is free.
    await expect.poll(async () => (await navigator.locks.query()).held?.length ?? 0).toBe(0);
    const again = await fixtureChat();
    await expect.poll(() => messagesOf(again)[0]?.message?.status).toBe('failed');
    await settled(again);
    expect(calls).toBe(2);
    await retriedWithoutFiles(again, () => backend.chatRequests());
  });

  test('a question queued offline with its files, the page reloaded: the next load sends it, its files are said gone, Retry sends its text', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    await writeWithFile(el, 'And this log?');
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    onTestFinished(() => onLine.mockRestore());
    dispatchEvent(new Event('offline'));
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await settled(el);
    expect(el.shadowRoot!.querySelector('.outbox')!.textContent).toContain('And this log?');
    window.dispatchEvent(new PageTransitionEvent('pagehide'));
    el.remove();
    onLine.mockReturnValue(true);
    const again = await fixtureChat();
    await expect.poll(() => messagesOf(again)[0]?.message?.status).toBe('failed');
    await settled(again);
    const sent = await bodies(backend.chatRequests());
    expect(sent.map((b) => [b.message, b.attachments?.length ?? 0])).toEqual([['And this log?', 1]]);
    await retriedWithoutFiles(again, () => backend.chatRequests());
  });

  test('a renewed session resends the question: its files are said gone, Retry sends its text', async ({
    worker,
    backend,
  }) => {
    const el = await fixtureChat();
    await writeWithFile(el, 'And this log?');
    const errors: string[] = [];
    el.addEventListener('agent-chat-error', (e) => errors.push(e.detail.code));
    // The hour is up: the token is refused, a new session is minted, the question goes again.
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () => HttpResponse.json({ detail: 'expired', code: 'invalid_token' }, { status: 401 }),
        { once: true },
      ),
    );
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect.poll(() => messagesOf(el)[0]?.message?.status).toBe('failed');
    await settled(el);
    expect(errors).toEqual(['file_unavailable']);
    await retriedWithoutFiles(el, () => backend.chatRequests());
  });

  test('the failed question, read back after a reload, still names its files', async ({
    worker,
    backend,
  }) => {
    const el = await fixtureChat();
    await writeWithFile(el, 'And this log?');
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () => HttpResponse.json({ detail: 'expired', code: 'invalid_token' }, { status: 401 }),
        { once: true },
      ),
    );
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect.poll(() => messagesOf(el)[0]?.message?.status).toBe('failed');
    await settled(el);
    window.dispatchEvent(new PageTransitionEvent('pagehide'));
    el.remove();
    const again = await fixtureChat();
    await expect.poll(() => messagesOf(again)[0]?.message?.status).toBe('failed');
    await retriedWithoutFiles(again, () => backend.chatRequests());
  });

  test('a public visitor whose session is renewed: the question is resent by the new one, its files are said gone, Retry sends its text', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    const el = await fixture<AgentChat>(
      html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} base-url=${SERVICE_BASE} mode="inline"></agent-chat>`,
    );
    await writeWithFile(el, 'And this log?');
    // The page load's session is spent: the token is refused, a new public session is minted.
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () => HttpResponse.json({ detail: 'expired', code: 'invalid_token' }, { status: 401 }),
        { once: true },
      ),
    );
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect.poll(() => messagesOf(el)[0]?.message?.status).toBe('failed');
    await settled(el);
    await retriedWithoutFiles(el, () => backend.chatRequests());
  });

  test('a question of files alone: said gone, no Retry', async ({ worker, backend }) => {
    const el = await fixtureChat();
    await pickFiles(el, logFile());
    await expect
      .poll(() =>
        el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!.querySelector('.tray .chip.ready'),
      )
      .toBeTruthy();
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () => HttpResponse.json({ detail: 'expired', code: 'invalid_token' }, { status: 401 }),
        { once: true },
      ),
    );
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect
      .element(page.getByRole('alert').filter({ hasText: 'no longer available' }))
      .toHaveTextContent('server.log: no longer available. To send a file, attach it again.');
    await settled(el);
    expect(page.getByRole('button', { name: 'Retry' }).query()).toBeNull();
    // The first went to the refusing token (not the service), the second was refused: none since.
    expect(backend.chatRequests()).toHaveLength(1);
  });
});
