/**
 * A docs page's keyboard shortcuts and the widget's text fields (decision 563). Sphinx's
 * doctools.js (Sphinx 5.2 and later, the Python manual among its sites) focuses the page's search
 * box on "/" unless the focused element is an input, a textarea, a select or a button; with the
 * focus in a shadow root, the focused element it sees is the widget's host.
 */
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { fixture, html } from '@open-wc/testing';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../../msw/reference.js';
import { deepActiveElement, settled, textareaOf } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const BLACKLISTED = new Set(['TEXTAREA', 'INPUT', 'SELECT', 'BUTTON']);

/** Sphinx's search shortcut, as doctools.js has it. */
function sphinxShortcuts(event: KeyboardEvent) {
  if (BLACKLISTED.has(document.activeElement!.tagName)) return;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === '/') {
    document.querySelector<HTMLInputElement>('#page-search')!.focus();
    event.preventDefault();
  }
}

let pageKeys: string[] = [];
const recordPageKeys = (event: KeyboardEvent) => pageKeys.push(event.key);

beforeEach(() => {
  pageKeys = [];
  document.addEventListener('keydown', sphinxShortcuts);
  document.addEventListener('keydown', recordPageKeys);
});
afterEach(() => {
  document.removeEventListener('keydown', sphinxShortcuts);
  document.removeEventListener('keydown', recordPageKeys);
});

async function docsPage(mode: 'inline' | 'launcher'): Promise<AgentChat> {
  const wrapper = await fixture<HTMLElement>(html`<div>
    <input id="page-search" type="search" aria-label="Quick search" />
    <agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT}
      base-url=${SERVICE_BASE} mode=${mode} theme="light"></agent-chat>
  </div>`);
  const el = wrapper.querySelector('agent-chat') as AgentChat;
  await el.updateComplete;
  return el;
}

describe('a docs page with keyboard shortcuts', () => {
  test('a question with "/" in it is typed whole, the focus kept in the message box', async ({ backend }) => {
    const el = await docsPage('inline');
    await settled(el);
    await userEvent.click(page.getByRole('textbox', { name: 'Message' }));
    await userEvent.keyboard('what does a // b do in /usr/lib?');
    expect(textareaOf(el).value).toBe('what does a // b do in /usr/lib?');
    expect(deepActiveElement()).toBe(textareaOf(el));
    // Not one key typed into the field reached the page.
    expect(pageKeys).toEqual([]);
  });

  test("keys on the widget's buttons still reach the page", async ({ backend }) => {
    await docsPage('launcher');
    const launcher = page.getByRole('button', { name: 'Open chat' });
    await expect.element(launcher).toBeVisible();
    (launcher.element() as HTMLElement).focus();
    await userEvent.keyboard('x');
    expect(pageKeys).toEqual(['x']);
  });

  test('Escape in the message box still closes the floating panel, and the launcher takes the focus', async ({
    backend,
  }) => {
    const el = await docsPage('launcher');
    await el.open();
    await settled(el);
    await userEvent.click(page.getByRole('textbox', { name: 'Message' }));
    await userEvent.keyboard('{Escape}');
    await expect.poll(() => el.opened).toBe(false);
    expect(deepActiveElement()).toBe(el.shadowRoot!.querySelector('.launcher'));
    expect(pageKeys).toEqual([]);
  });
});
