/** The header's "More" menu: when it holds "Download conversation", keyboard use, closing. */
import { afterEach, describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE } from '../../../msw/reference.js';
import {
  deepActiveElement,
  fixtureChat,
  headerButton,
  messagesOf,
  settled,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
const menuItems = (el: AgentChat) =>
  Array.from(el.shadowRoot!.querySelectorAll<HTMLButtonElement>('#more-menu button'));
afterEach(async () => {
  await page.viewport(1280, 800);
});

describe('<agent-chat> header "More" menu', () => {
  test('holds "Download conversation" once an answer has words, not above the composer and not after a failure', async ({
    worker,
    backend,
  }) => {
    worker.use(
      http.post(`${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`, () =>
        HttpResponse.json({ detail: 'boom' }, { status: 500 }),
      ),
    );
    const el = await fixtureChat();
    expect(headerButton(el, 'More')).toBeUndefined();
    await el.send('How do I theme it?');
    await settled(el);
    // The only message failed: there is nothing worth downloading, so no menu at all.
    expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['failed']);
    expect(headerButton(el, 'More')).toBeUndefined();
    expect(el.shadowRoot!.querySelector('.agent-bar')).toBeNull();
  });

  test('opens from the keyboard with its first button focused; Escape returns to "More" and leaves the panel open; Tab away closes it', async ({
    backend,
  }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    await el.send('How do I theme it?');
    await settled(el);
    expect(el.shadowRoot!.querySelector('.agent-bar')).toBeNull();
    const more = headerButton(el, 'More')!;
    expect(more.getAttribute('aria-expanded')).toBe('false');
    expect(more.getAttribute('aria-controls')).toBe('more-menu');
    more.focus();
    await userEvent.keyboard('{Enter}');
    await expect.poll(() => menuItems(el).length).toBe(1);
    expect(more.getAttribute('aria-expanded')).toBe('true');
    // The UI contract's "Download conversation" button, reached by role and name.
    const download = menuItems(el)[0];
    expect(download.textContent?.trim()).toBe('Download conversation');
    expect(deepActiveElement()).toBe(download);
    await userEvent.keyboard('{Escape}');
    await expect.poll(() => menuItems(el).length).toBe(0);
    expect(deepActiveElement()).toBe(more);
    expect(el.opened).toBe(true);
    // Tab leaving it closes it too.
    await userEvent.keyboard('{Enter}');
    await expect.poll(() => menuItems(el).length).toBe(1);
    await userEvent.keyboard('{Tab}');
    await expect.poll(() => menuItems(el).length).toBe(0);
    expect(el.opened).toBe(true);
  });

  test('closes on a press outside it', async ({ backend }) => {
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    headerButton(el, 'More')!.click();
    await expect.poll(() => menuItems(el).length).toBe(1);
    await page.elementLocator(el.shadowRoot!.querySelector('h2')!).click();
    await expect.poll(() => menuItems(el).length).toBe(0);
  });
});
