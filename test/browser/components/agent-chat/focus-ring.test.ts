/** The focus ring follows the accent and stays a token of its own. */
import { afterEach, describe, expect } from 'vitest';
import { page } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { fixtureChat } from '../../../helpers/chat-fixture.js';

afterEach(async () => {
  await page.viewport(1280, 800);
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
