import { describe, expect, it, vi } from 'vitest';
import { commands } from 'vitest/browser';
import { deepActiveElement, fixtureChat } from '../../../helpers/chat-fixture.js';

/** The floating panel, and whether the browser still draws it. */
function panelOf(el: Element) {
  const panel = el.shadowRoot!.querySelector<HTMLElement>('.panel')!;
  return { panel, drawn: () => getComputedStyle(panel).display !== 'none' };
}

describe('panel motion', () => {
  it('closes with a short exit, hidden at once for assistive technology, gone when it ends', async () => {
    await commands.reduceMotion('no-preference');
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    const { panel, drawn } = panelOf(el);
    await Promise.allSettled(panel.getAnimations().map((a) => a.finished));
    await el.close();
    expect(panel.hidden).toBe(true);
    expect(drawn()).toBe(true);
    expect(panel.getAnimations().length).toBeGreaterThan(0);
    await expect.poll(drawn, { timeout: 2_000 }).toBe(false);
  });

  it('closes at once for a visitor who asked for less motion', async () => {
    await commands.reduceMotion('reduce');
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    const { panel, drawn } = panelOf(el);
    await el.close();
    expect(panel.hidden).toBe(true);
    expect(panel.getAnimations()).toEqual([]);
    expect(drawn()).toBe(false);
  });
});

describe('opening on a touch screen', () => {
  /** What a phone reports: no fine pointer. Everything else keeps the real answer. */
  function touchScreen() {
    const real = window.matchMedia.bind(window);
    return vi.spyOn(window, 'matchMedia').mockImplementation((query: string) =>
      query === '(pointer: fine)'
        ? (Object.defineProperties(new EventTarget(), {
            matches: { value: false },
            media: { value: query },
          }) as MediaQueryList)
        : real(query),
    );
  }

  it('does not focus the message box (the keyboard would cover the start screen); the panel takes focus', async () => {
    const touch = touchScreen();
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    const active = deepActiveElement();
    expect(active).toBe(el.shadowRoot!.querySelector('.panel'));
    expect(active?.closest('agent-chat-composer')).toBeNull();
    touch.mockRestore();
  });

  it('focuses the message box with a mouse or trackpad', async () => {
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    expect(deepActiveElement()?.getAttribute('aria-label') ?? deepActiveElement()?.tagName).toMatch(
      /Message|TEXTAREA/,
    );
  });
});
