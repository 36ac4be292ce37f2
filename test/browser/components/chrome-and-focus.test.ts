/** The quieter chrome: the header's "More" menu, the action row's visibility, the modal phone panel, the focus ring. */
import { afterEach, describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { http, HttpResponse } from 'msw';
import { expect as chaiExpect } from '@open-wc/testing';
import { test } from '../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE } from '../../msw/reference.js';
import { deepActiveElement, fixtureChat, messagesOf, settled } from '../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';

const headerButton = (el: AgentChat, name: string) =>
  Array.from(el.shadowRoot!.querySelectorAll<HTMLButtonElement>('header button')).find(
    (b) => b.getAttribute('aria-label') === name,
  );
const menuItems = (el: AgentChat) =>
  Array.from(el.shadowRoot!.querySelectorAll<HTMLButtonElement>('#more-menu button'));
const answers = (el: AgentChat) => messagesOf(el).filter((m) => m.message?.role === 'assistant');
const actionsOf = (answer: Element) => answer.shadowRoot!.querySelector<HTMLElement>('.actions')!;
const opacity = (element: Element) => getComputedStyle(element).opacity;

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

describe('<agent-chat> the action row', () => {
  test('shows under the latest answer, and under older ones only on hover or focus', async ({ backend }) => {
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await el.send('Can I use it with React?');
    await settled(el);
    const [older, latest] = answers(el);
    expect(opacity(actionsOf(latest))).toBe('1');
    await expect.poll(() => opacity(actionsOf(older))).toBe('0');
    await chaiExpect(el).to.be.accessible();
    await page.elementLocator(older.shadowRoot!.querySelector('.content')!).hover();
    await expect.poll(() => opacity(actionsOf(older))).toBe('1');
    await page.elementLocator(el.shadowRoot!.querySelector('h2')!).hover();
    await expect.poll(() => opacity(actionsOf(older))).toBe('0');
    // Keyboard: the buttons stay in the tab order, and focus shows the row.
    older.shadowRoot!.querySelector<HTMLButtonElement>('.actions button')!.focus();
    await expect.poll(() => opacity(actionsOf(older))).toBe('1');
  });
  // On a touch screen the row stays under every answer: test/dist/touch.test.ts (a touch context).
});

describe('<agent-chat> modal on a phone', () => {
  test('keeps Tab inside the full-screen panel: past Send it wraps to the first control, and back; Escape closes', async ({
    backend,
  }) => {
    await page.viewport(390, 844);
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    const panel = el.shadowRoot!.querySelector<HTMLElement>('.panel')!;
    expect(panel.getAttribute('aria-modal')).toBe('true');
    const send = el
      .shadowRoot!.querySelector('agent-chat-composer')!
      .shadowRoot!.querySelector<HTMLElement>('[part="send-button"]')!;
    const first = headerButton(el, 'Conversations')!;
    send.focus();
    await userEvent.keyboard('{Tab}');
    expect(deepActiveElement()).toBe(first);
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    expect(deepActiveElement()).toBe(send);
    // Every stop of a full round stays inside the panel too.
    const insidePanel = () => {
      let node: Node | null = deepActiveElement();
      while (node && node.getRootNode() !== el.shadowRoot)
        node = (node.getRootNode() as ShadowRoot).host ?? null;
      return Boolean(node && panel.contains(node));
    };
    for (let i = 0; i < 12; i += 1) {
      await userEvent.keyboard('{Tab}');
      expect(insidePanel()).toBe(true);
    }
    await userEvent.keyboard('{Escape}');
    await expect.poll(() => el.opened).toBe(false);
  });

  test('a floating panel on a wide screen is not modal: Tab may leave it for the page', async ({
    backend,
  }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    expect(el.shadowRoot!.querySelector('.panel')!.hasAttribute('aria-modal')).toBe(false);
    const send = el
      .shadowRoot!.querySelector('agent-chat-composer')!
      .shadowRoot!.querySelector<HTMLElement>('[part="send-button"]')!;
    send.focus();
    await userEvent.keyboard('{Tab}');
    expect(deepActiveElement()).not.toBe(headerButton(el, 'Conversations'));
  });
});

describe('<agent-chat> focus ring', () => {
  test('follows the accent by default and stays a token of its own', async ({ backend }) => {
    const el = await fixtureChat();
    // A text box matches :focus-visible however it got focus.
    const box = el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!.querySelector('textarea')!;
    el.style.setProperty('--agent-chat-color-accent', 'rgb(15, 118, 110)');
    box.focus();
    expect(getComputedStyle(box).outlineStyle).toBe('solid');
    expect(getComputedStyle(box).outlineColor).toBe('rgb(15, 118, 110)');
    el.style.setProperty('--agent-chat-color-focus', 'rgb(180, 35, 24)');
    expect(getComputedStyle(box).outlineColor).toBe('rgb(180, 35, 24)');
  });
});
