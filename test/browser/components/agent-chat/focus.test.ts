/** Focus and Escape across layers: the thread list over the conversation, a confirmation, the panel, the launcher. */
import { describe, expect } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import {
  buttonNamed,
  deepActiveElement,
  fixtureChat,
  settled,
  threadListOf,
  threadListToggle,
} from '../../../helpers/chat-fixture.js';

describe('<agent-chat> layers and focus', () => {
  test('the thread list over the conversation takes focus, Escape closes it first (focus back on its toggle), then the panel', async ({
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['One', 'Two']);
    const el = await fixtureChat({ mode: 'launcher', ownerKey: 'key-alice' });
    await el.open();
    threadListToggle(el).click();
    // Focus moves in at once, while the list still loads, and stays inside when the threads arrive.
    await expect.poll(() => threadListOf(el).shadowRoot!.contains(deepActiveElement())).toBe(true);
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelectorAll('button.open').length).toBe(2);
    await settled(el);
    expect(threadListOf(el).shadowRoot!.contains(deepActiveElement())).toBe(true);
    await chaiExpect(el).to.be.accessible();

    await userEvent.keyboard('{Escape}');
    await expect.poll(() => threadListToggle(el).getAttribute('aria-expanded')).toBe('false');
    expect(deepActiveElement()).toBe(threadListToggle(el));
    expect(el.opened).toBe(true);

    await userEvent.keyboard('{Escape}');
    await expect.poll(() => el.opened).toBe(false);
  });

  test('Escape in a delete confirmation cancels it and leaves the thread list open', async ({ backend }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Keep me']);
    const el = await fixtureChat({ mode: 'launcher', ownerKey: 'key-alice' });
    await el.open();
    threadListToggle(el).click();
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelectorAll('button.open').length).toBe(1);
    buttonNamed(threadListOf(el).shadowRoot!, 'Delete Keep me')!.click();
    await threadListOf(el).updateComplete;
    expect(threadListOf(el).shadowRoot!.querySelector('[role="group"]')).not.toBeNull();
    await userEvent.keyboard('{Escape}');
    await threadListOf(el).updateComplete;
    expect(threadListOf(el).shadowRoot!.querySelector('[role="group"]')).toBeNull();
    expect(threadListToggle(el).getAttribute('aria-expanded')).toBe('true');
    expect(el.opened).toBe(true);
  });

  test('the launcher keeps its name and shows another icon while open', async ({ backend }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    const launcher = () => el.shadowRoot!.querySelector('.launcher')!;
    const closedIcon = launcher().querySelector('path')!.getAttribute('d');
    await el.open();
    expect(launcher().getAttribute('aria-label')).toBe('Open chat');
    expect(launcher().getAttribute('aria-expanded')).toBe('true');
    expect(launcher().querySelector('path')!.getAttribute('d')).not.toBe(closedIcon);
  });
});
