/**
 * A snippet pasted twice (a hosted CMS's header box and a page block, decision 459): one launcher
 * in the corner, one "Open chat" for a keyboard or a screen reader, and the page's console says why.
 */
import { afterEach, describe, expect, vi } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { page } from 'vitest/browser';
import { test } from '../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../msw/reference.js';
import '../../../src/define.js';
import type { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';

const added: Element[] = [];
afterEach(() => {
  for (const el of added.splice(0)) el.remove();
  vi.restoreAllMocks();
});

/** Pastes the snippet's element into the page, as a CMS block would. */
async function paste(mode: 'launcher' | 'inline' = 'launcher'): Promise<AgentChat> {
  const el = document.createElement('agent-chat') as AgentChat;
  for (const [name, value] of Object.entries({
    'project-id': PROJECT_ID,
    'integration-id': INTEGRATION_ID,
    'session-endpoint': SESSION_ENDPOINT,
    'base-url': SERVICE_BASE,
    mode,
  }))
    el.setAttribute(name, value);
  document.body.append(el);
  added.push(el);
  await el.updateComplete;
  return el;
}

describe('<agent-chat> pasted twice', () => {
  test('the page shows one launcher and says why in its console; the second takes the corner when the first leaves', async ({
    backend,
  }) => {
    const warn = vi.spyOn(console, 'warn');
    const first = await paste();
    const second = await paste();
    const launchers = page.getByRole('button', { name: 'Open chat' });
    await expect.poll(() => launchers.elements().length).toBe(1);
    expect(first.shadowRoot!.querySelector('.launcher')).not.toBeNull();
    expect(second.shadowRoot!.querySelector('.launcher')).toBeNull();
    expect(warn.mock.calls.map((call) => String(call[0])).filter((m) => m.includes('more than one'))).toEqual(
      [
        '[agent-chat] This page has more than one floating <agent-chat>: only the first is shown. Paste the snippet once.',
      ],
    );
    await launchers.click();
    await expect.element(page.getByRole('dialog', { name: 'Chat' })).toBeVisible();
    expect(page.getByRole('dialog').elements()).toHaveLength(1);
    await chaiExpect(first).to.be.accessible();

    first.remove();
    await expect.poll(() => launchers.elements().length).toBe(1);
    expect(second.shadowRoot!.querySelector('.launcher')).not.toBeNull();
    await chaiExpect(second).to.be.accessible();
    void backend;
  });

  test("a page that wants a second floating chat opens it from a button of its own: open() shows that chat's panel", async ({
    backend,
  }) => {
    await paste();
    const second = await paste();
    await second.open();
    await expect.element(page.getByRole('dialog', { name: 'Chat' })).toBeVisible();
    expect(second.shadowRoot!.querySelector('.panel')!.hasAttribute('hidden')).toBe(false);
    expect(page.getByRole('button', { name: 'Open chat' }).elements()).toHaveLength(1);
    await chaiExpect(second).to.be.accessible();
    void backend;
  });

  test('inline chats are never counted: two inline panels and a launcher all show', async ({ backend }) => {
    await paste('inline');
    await paste('inline');
    await paste();
    await expect.poll(() => page.getByRole('region', { name: 'Chat' }).elements().length).toBe(2);
    expect(page.getByRole('button', { name: 'Open chat' }).elements()).toHaveLength(1);
    void backend;
  });
});
