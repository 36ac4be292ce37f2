import { describe, expect } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { page, userEvent } from 'vitest/browser';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { SERVICE_BASE, SESSION_ENDPOINT } from '../../../msw/reference.js';
import { answerRecords, STREAM_HEADERS, streamBody } from '../../../msw/stream.js';
import { deepActiveElement, fixtureChat, settled, textareaOf } from '../../../helpers/chat-fixture.js';

const CHAT_URL = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;

describe('<agent-chat> keyboard', () => {
  test('Tab reaches the launcher, Enter opens and focuses the composer, Esc closes and returns focus', async ({
    backend,
  }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    const launcher = el.shadowRoot!.querySelector<HTMLButtonElement>('.launcher')!;
    const panel = el.shadowRoot!.querySelector<HTMLElement>('.panel')!;
    const opens: boolean[] = [];
    el.addEventListener('agent-chat-open-change', (e) => opens.push(e.detail.open));

    await userEvent.keyboard('{Tab}');
    expect(deepActiveElement()).toBe(launcher);
    expect(launcher.getAttribute('aria-label')).toBe('Open chat');
    expect(launcher.getAttribute('aria-expanded')).toBe('false');
    expect(panel.hidden).toBe(true);

    await userEvent.keyboard('{Enter}');
    await expect.poll(() => deepActiveElement()).toBe(textareaOf(el));
    expect(launcher.getAttribute('aria-expanded')).toBe('true');
    expect(panel.hidden).toBe(false);

    await userEvent.keyboard('{Escape}');
    await expect.poll(() => deepActiveElement()).toBe(launcher);
    expect(panel.hidden).toBe(true);
    expect(opens).toEqual([true, false]);
  });

  test('Enter sends, Shift+Enter adds a line', async ({ backend }) => {
    const el = await fixtureChat();
    textareaOf(el).focus();
    await userEvent.keyboard('first line{Shift>}{Enter}{/Shift}second line');
    expect(textareaOf(el).value).toBe('first line\nsecond line');
    expect(textareaOf(el).getAttribute('enterkeyhint')).toBe('send');
    const ended = new Promise((resolve) =>
      el.addEventListener('agent-chat-answer-end', resolve, { once: true }),
    );
    await userEvent.keyboard('{Enter}');
    await ended;
    expect(await backend.chatRequests()[0].clone().json()).toMatchObject({
      message: 'first line\nsecond line',
    });
    expect(textareaOf(el).value).toBe('');
  });
});

describe('<agent-chat> landmarks', () => {
  // The page's own header is its banner; a screen reader's list of landmarks should not offer a
  // second one for the chat's title bar, floating or inline.
  for (const mode of ['launcher', 'inline'] as const)
    test(`the ${mode} panel adds no banner landmark to the page`, async ({ backend }) => {
      const el = await fixtureChat({ mode });
      await el.open();
      await expect.element(page.getByRole('button', { name: 'New conversation' })).toBeVisible();
      expect(page.getByRole('banner').elements()).toHaveLength(0);
    });
});

describe('<agent-chat> accessibility (axe)', () => {
  for (const theme of ['light', 'dark'] as const) {
    test(`closed launcher, ${theme}`, async ({ backend }) => {
      const el = await fixtureChat({ mode: 'launcher', theme });
      await chaiExpect(el).to.be.accessible();
    });

    test(`open panel with a finished answer, ${theme}`, async ({ backend }) => {
      const el = await fixtureChat({ mode: 'launcher', theme, prompts: 'How do I install it?' });
      await el.open();
      await chaiExpect(el).to.be.accessible();
      await el.send('theming with a table of attributes');
      await settled(el);
      await chaiExpect(el).to.be.accessible();
    });

    test(`streaming answer, ${theme}`, async ({ worker, backend }) => {
      worker.use(
        http.post(
          CHAT_URL,
          () =>
            new HttpResponse(
              streamBody(answerRecords('th_1', ['Streaming **now** ', 'and more']), { holdAfter: 3 }),
              { headers: STREAM_HEADERS },
            ),
        ),
      );
      const el = await fixtureChat({ theme });
      const started = new Promise((resolve) =>
        el.addEventListener('agent-chat-answer-start', resolve, { once: true }),
      );
      void el.send('hello');
      await started;
      await settled(el);
      await chaiExpect(el).to.be.accessible();
      el.newConversation();
    });

    test(`error state, ${theme}`, async ({ worker, backend }) => {
      worker.use(
        http.post(SESSION_ENDPOINT, () => HttpResponse.json({ detail: 'down', code: 'x' }, { status: 503 })),
      );
      const el = await fixtureChat({ theme });
      await el.send('hello');
      await settled(el);
      expect(
        el
          .shadowRoot!.querySelector('agent-chat-message-list')!
          .shadowRoot!.querySelector('agent-chat-message')!
          .shadowRoot!.querySelector('[role="alert"]'),
      ).not.toBeNull();
      await chaiExpect(el).to.be.accessible();
    });
  }
});
