/** Focus and Escape across layers: the thread list over the conversation, a confirmation, the panel, the launcher. */
import { describe, expect } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE } from '../../../msw/reference.js';
import {
  buttonNamed,
  deepActiveElement,
  deepQuery,
  fixtureChat,
  messagesOf,
  settled,
  textareaOf,
  threadListOf,
  threadListToggle,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

/** Focuses the control `selector` finds in the panel and presses Enter on it, as a keyboard user does. */
async function press(el: AgentChat, selector: string): Promise<void> {
  const control = await expect
    .poll(() => deepQuery(el, selector))
    .toBeTruthy()
    .then(() => deepQuery(el, selector)!);
  control.focus();
  expect(deepActiveElement()).toBe(control);
  await userEvent.keyboard('{Enter}');
}

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
    // The conversation it covers is out of reach: Tab and a screen reader stay in what shows.
    const main = el.shadowRoot!.querySelector<HTMLElement>('.main')!;
    expect(main.inert).toBe(true);

    await userEvent.keyboard('{Escape}');
    await expect.poll(() => threadListToggle(el).getAttribute('aria-expanded')).toBe('false');
    expect(deepActiveElement()).toBe(threadListToggle(el));
    expect(main.inert).toBe(false);
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
    // The question stays an item of its list: a screen reader still hears "1 of 1" there.
    await chaiExpect(el).to.be.accessible();
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

  test('a control that goes with its own press keeps the keyboard in the chat: a suggested question, Regenerate, Retry, a thread deleted', async ({
    worker,
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Old plan']);
    const el = await fixtureChat({ mode: 'launcher', ownerKey: 'key-alice', prompts: 'How do I theme it?' });
    await el.open();
    // Before, each of these dropped the focus to the page's <body>, out of the panel.
    await press(el, '.prompts button');
    await settled(el);
    await expect.poll(() => deepActiveElement()).toBe(textareaOf(el));

    await press(el, 'button[aria-label="Regenerate"]');
    await settled(el);
    await expect.poll(() => deepActiveElement()).toBe(textareaOf(el));

    worker.use(
      http.post(
        `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`,
        () => HttpResponse.json({}, { status: 503 }),
        {
          once: true,
        },
      ),
    );
    await el.send('And dark mode?');
    await settled(el);
    await press(el, 'button.retry');
    await settled(el);
    await expect.poll(() => messagesOf(el).at(-1)?.message?.status).toBe('complete');
    await expect.poll(() => deepActiveElement()).toBe(textareaOf(el));

    // A thread's Delete, confirmed: the focus stays in the list.
    threadListToggle(el).click();
    await expect.poll(() => buttonNamed(threadListOf(el).shadowRoot!, 'Delete Old plan')).toBeTruthy();
    buttonNamed(threadListOf(el).shadowRoot!, 'Delete Old plan')!.click();
    await press(el, '.confirm .danger');
    await expect.poll(() => buttonNamed(threadListOf(el).shadowRoot!, 'Delete Old plan')).toBeUndefined();
    await expect.poll(() => threadListOf(el).shadowRoot!.contains(deepActiveElement())).toBe(true);
  });
});
