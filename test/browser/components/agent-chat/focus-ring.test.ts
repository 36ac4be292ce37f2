/** The focus ring follows the accent and stays a token of its own; the message box's ring is its field's. */
import { afterEach, describe, expect } from 'vitest';
import { commands, page } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { fixtureChat } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

afterEach(async () => {
  await page.viewport(1280, 800);
});

const composerRoot = (el: AgentChat) => el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!;
const button = (el: AgentChat, name: string) =>
  composerRoot(el).querySelector<HTMLElement>(`button[aria-label="${name}"]`)!;
/** The element that draws the message box's edge: the text box's nearest ancestor with a border. */
const fieldOf = (box: HTMLElement) => {
  let at = box.parentElement;
  while (at && getComputedStyle(at).borderTopStyle === 'none') at = at.parentElement;
  return at!;
};
const inside = (inner: DOMRect, outer: DOMRect) =>
  inner.left >= outer.left &&
  inner.right <= outer.right &&
  inner.top >= outer.top &&
  inner.bottom <= outer.bottom;

describe('<agent-chat> focus ring', () => {
  test('follows the accent by default and stays a token of its own', async ({ backend }) => {
    const el = await fixtureChat();
    const box = composerRoot(el).querySelector('textarea')!;
    const field = fieldOf(box);
    el.style.setProperty('--agent-chat-color-accent', 'rgb(15, 118, 110)');
    box.focus();
    expect(getComputedStyle(field).outlineStyle).toBe('solid');
    expect(getComputedStyle(field).outlineColor).toBe('rgb(15, 118, 110)');
    el.style.setProperty('--agent-chat-color-focus', 'rgb(180, 35, 24)');
    expect(getComputedStyle(field).outlineColor).toBe('rgb(180, 35, 24)');
  });

  test('the message box is one field: Attach files and Send inside its edge, its ring around all three', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const box = composerRoot(el).querySelector('textarea')!;
    const field = fieldOf(box);
    // The text box draws no edge or ring of its own: the field does.
    expect(field).not.toBe(box);
    expect(getComputedStyle(box).borderTopStyle).toBe('none');
    const edge = field.getBoundingClientRect();
    expect(inside(button(el, 'Attach files').getBoundingClientRect(), edge)).toBe(true);
    expect(inside(button(el, 'Send').getBoundingClientRect(), edge)).toBe(true);
    expect(getComputedStyle(field).outlineStyle).toBe('none');
    box.focus();
    expect(getComputedStyle(box).outlineStyle).toBe('none');
    expect(getComputedStyle(field).outlineStyle).toBe('solid');
  });

  test("in forced colours the field's edge and its ring still show against the panel", async ({
    backend,
  }) => {
    await commands.forcedColors('active');
    try {
      const el = await fixtureChat();
      const box = composerRoot(el).querySelector('textarea')!;
      const field = fieldOf(box);
      // What the field is drawn on: the message box area.
      const panel = getComputedStyle(composerRoot(el).host).backgroundColor;
      expect(getComputedStyle(field).borderTopStyle).toBe('solid');
      expect(getComputedStyle(field).borderTopColor).not.toBe(panel);
      box.focus();
      expect(getComputedStyle(field).outlineStyle).toBe('solid');
      expect(getComputedStyle(field).outlineColor).not.toBe(panel);
    } finally {
      await commands.forcedColors('none');
    }
  });
});
