import { beforeAll, describe, expect } from 'vitest';
import { commands, page } from 'vitest/browser';
import { fixture, html } from '@open-wc/testing';
import '../../../../src/define.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../../msw/reference.js';
import { settled } from '../../../helpers/chat-fixture.js';

/** A floating chat pasted into a block of the page styled so; a page header over the corner. */
async function chatInBlock(style: string): Promise<AgentChat> {
  await page.viewport(1000, 800);
  const wrapper = await fixture<HTMLElement>(html`<div>
    <div class="cover" style="position: fixed; right: 0; bottom: 0; width: 200px; height: 200px; z-index: 10; background: #eee"></div>
    <div class="block" style="margin: 40px; padding: 10px; ${style}">
      A footer block
      <agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT}
        base-url=${SERVICE_BASE} theme="light"></agent-chat>
    </div>
  </div>`);
  const el = wrapper.querySelector('agent-chat') as AgentChat;
  await el.updateComplete;
  return el;
}

const part = (el: AgentChat, selector: string) => el.shadowRoot!.querySelector<HTMLElement>(selector)!;

/** The launcher in the viewport's corner and on top there; the open panel wholly on the screen. */
async function expectOverTheViewport(el: AgentChat) {
  const launcher = part(el, '.launcher').getBoundingClientRect();
  expect([launcher.right, launcher.bottom]).toEqual([innerWidth - 20, innerHeight - 20]);
  const centre = document.elementFromPoint(launcher.x + 28, launcher.y + 28);
  expect(centre, 'the page drew over the launcher').toBe(el);
  await el.open();
  await settled(el);
  const panel = part(el, '.panel').getBoundingClientRect();
  expect(panel.top).toBeGreaterThanOrEqual(0);
  expect(panel.left).toBeGreaterThanOrEqual(0);
  expect(panel.bottom).toBe(innerHeight - 88);
  expect(document.elementFromPoint(panel.x + 100, panel.bottom - 100)).toBe(el);
}

describe('the floating chat in a block of the page', () => {
  beforeAll(() => commands.reduceMotion());

  for (const style of [
    'transform: translateY(0)',
    'filter: saturate(1)',
    'will-change: transform',
    'contain: paint',
    'position: relative; z-index: 1',
  ])
    test(`with ${style}: over the viewport, not held in the block`, async ({ backend }) => {
      await expectOverTheViewport(await chatInBlock(style));
    });

  test('moved to another block, it is over the viewport again', async ({ backend }) => {
    const el = await chatInBlock('transform: translateY(0)');
    document.body.append(el);
    await expect.poll(() => part(el, '.launcher').matches(':popover-open')).toBe(true);
    await expectOverTheViewport(el);
    el.remove();
  });

  test('hidden with its block: nothing drawn', async ({ backend }) => {
    const el = await chatInBlock('display: none');
    expect(part(el, '.launcher').matches(':popover-open')).toBe(true);
    expect(part(el, '.launcher').getBoundingClientRect().width).toBe(0);
    await el.open();
    await settled(el);
    expect(part(el, '.panel').getBoundingClientRect().height).toBe(0);
  });

  test('invisible with its block: nothing seen, nothing hit', async ({ backend }) => {
    const el = await chatInBlock('visibility: hidden');
    const launcher = part(el, '.launcher');
    expect(getComputedStyle(launcher).visibility).toBe('hidden');
    const box = launcher.getBoundingClientRect();
    expect(document.elementFromPoint(box.x + 28, box.y + 28)).not.toBe(el);
  });

  /** A page's modal dialog (a consent or login box) in the middle of the viewport. */
  function pageModal(): HTMLDialogElement {
    const dialog = document.createElement('dialog');
    dialog.innerHTML = '<p>Accept cookies?</p><button type="button">Accept</button>';
    document.body.append(dialog);
    dialog.showModal();
    return dialog;
  }
  /** What is drawn at the launcher's centre: the chat, or the modal's backdrop (the page's root). */
  const atLauncher = (el: AgentChat) => {
    const box = part(el, '.launcher').getBoundingClientRect();
    return document.elementFromPoint(box.x + 28, box.y + 28);
  };
  const closed = (dialog: HTMLDialogElement) =>
    new Promise((resolve) => {
      dialog.addEventListener('close', resolve, { once: true });
      dialog.close();
    });

  test("connected while the page's modal dialog is open: behind its backdrop, on top once it closes", async ({
    backend,
  }) => {
    const dialog = pageModal();
    const el = await chatInBlock('transform: translateY(0)');
    await settled(el);
    expect(part(el, '.launcher').matches(':popover-open')).toBe(false);
    expect(atLauncher(el), 'the launcher floats over the modal, inert').not.toBe(el);
    await closed(dialog);
    await expect.poll(() => part(el, '.launcher').matches(':popover-open')).toBe(true);
    await expectOverTheViewport(el);
    dialog.remove();
  });

  test("moved while the page's modal dialog is open: behind it, on top again once it closes", async ({
    backend,
  }) => {
    const el = await chatInBlock('');
    await el.open();
    await settled(el);
    const dialog = pageModal();
    expect(atLauncher(el)).not.toBe(el);
    document.body.append(el);
    await settled(el);
    expect(part(el, '.launcher').matches(':popover-open')).toBe(false);
    expect(part(el, '.panel').matches(':popover-open')).toBe(false);
    expect(atLauncher(el), 'the launcher floats over the modal, inert').not.toBe(el);
    // A second modal opened over the first: the chat waits for that one too.
    const second = pageModal();
    await closed(dialog);
    expect(part(el, '.launcher').matches(':popover-open')).toBe(false);
    await closed(second);
    await expect.poll(() => part(el, '.launcher').matches(':popover-open')).toBe(true);
    expect(part(el, '.panel').matches(':popover-open')).toBe(true);
    expect(atLauncher(el)).toBe(el);
    for (const d of [dialog, second]) d.remove();
    el.remove();
  });
});
