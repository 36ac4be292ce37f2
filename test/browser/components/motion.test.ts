import { describe, expect, it } from 'vitest';
import { commands } from 'vitest/browser';
import { fixtureChat } from '../../helpers/chat-fixture.js';

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
