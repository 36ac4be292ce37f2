/** The floating panel as a modal dialog on a phone, and not on a wide screen. */
import { afterEach, describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { deepActiveElement, fixtureChat, headerButton } from '../../../helpers/chat-fixture.js';
afterEach(async () => {
  await page.viewport(1280, 800);
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

  test('a phone on its side (844×390) gets the full-screen panel too, not a floating sliver of conversation', async ({
    backend,
  }) => {
    await page.viewport(844, 390);
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    const panel = el.shadowRoot!.querySelector<HTMLElement>('.panel')!;
    expect(panel.getAttribute('aria-modal')).toBe('true');
    // Polled: the panel's entrance animation scales it in.
    await expect
      .poll(() => {
        const box = panel.getBoundingClientRect();
        return [box.left, box.top, box.width, box.height];
      })
      .toEqual([0, 0, innerWidth, innerHeight]);
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
