/** The action row: under the latest answer, under older ones on hover or focus. */
import { afterEach, describe, expect } from 'vitest';
import { page } from 'vitest/browser';
import { expect as chaiExpect } from '@open-wc/testing';
import { test } from '../../../msw/test.js';
import { fixtureChat, messagesOf, settled } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const answers = (el: AgentChat) => messagesOf(el).filter((m) => m.message?.role === 'assistant');
const actionsOf = (answer: Element) => answer.shadowRoot!.querySelector<HTMLElement>('.actions')!;
const opacity = (element: Element) => getComputedStyle(element).opacity;

afterEach(async () => {
  await page.viewport(1280, 800);
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
