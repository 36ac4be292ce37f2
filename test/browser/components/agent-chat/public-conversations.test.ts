/**
 * A public visitor's Conversations by keyboard (wire contract §2b: no site server, sessions
 * without owner, no history on the service): where focus goes and where Tab goes from there.
 */
import { fixture, html } from '@open-wc/testing';
import { expect as chaiExpect } from '@open-wc/testing';
import { createChallenge } from 'altcha-lib/v1';
import { http } from 'msw';
import { afterEach, describe, expect, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import type { ReferenceBackend } from '../../../msw/reference.js';
import { API_KEY, INTEGRATION_ID, PROJECT_ID, SERVICE_BASE } from '../../../msw/reference.js';
import {
  deepActiveElement,
  fixtureChat,
  messagesOf,
  settled,
  threadListTitles,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import he from '../../../../src/i18n/locales/he.js';

const NOT_KEPT = "This site doesn't keep past conversations.";

/**
 * §2b's routes as the service answers a page on an allowed origin. msw's worker never sees the
 * browser's `Origin` header (the service refuses a page it cannot name), so the challenge is
 * made here and the session minted as the service mints a public one: without owner.
 */
function publicSessions(backend: ReferenceBackend) {
  const routes = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/integrations/${INTEGRATION_ID}`;
  return [
    http.get(`${routes}/challenge/`, async () =>
      Response.json(await createChallenge({ hmacKey: 'test', maxnumber: 1_000 })),
    ),
    http.post(`${routes}/sessions/`, async () => {
      const minted = await backend.service.handle(
        new Request(`${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/sessions/`, {
          method: 'POST',
          headers: { 'X-API-Key': API_KEY, 'Content-Type': 'application/json' },
          body: '{}',
        }),
      );
      return new Response(minted.body, {
        status: minted.status,
        headers: { 'Content-Type': 'application/json', 'Agent-Chat-Owner-Key': '-' },
      });
    }),
  ];
}

/** A page of a public integration: `base-url`, no session endpoint; a button before it and one after. */
async function publicPage(): Promise<AgentChat> {
  const el = await fixture<AgentChat>(
    html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} base-url=${SERVICE_BASE}></agent-chat>`,
  );
  const button = (text: string) =>
    Object.assign(document.createElement('button'), { type: 'button', textContent: text });
  el.before(button('Before the chat'));
  el.after(button('After the chat'));
  return el;
}

/** What a screen reader would name the focused element: its aria-label, else its words. */
function focusedName(): string {
  const active = deepActiveElement();
  // A thread's button reads its title, then its preview: the title names it.
  return active?.getAttribute('aria-label') ?? active?.textContent?.trim().split('\n')[0] ?? '';
}

/** The names Tab (or Shift+Tab) lands on, `count` presses from where the focus is. */
async function tabStops(count: number, back = false): Promise<string[]> {
  const stops: string[] = [];
  for (let i = 0; i < count; i++) {
    await userEvent.keyboard(back ? '{Shift>}{Tab}{/Shift}' : '{Tab}');
    stops.push(focusedName());
  }
  return stops;
}

/** Opens Conversations from the keyboard, as a visitor who tabs to it and presses Enter. */
async function openConversationsByKeyboard(name = 'Conversations'): Promise<void> {
  (page.getByRole('button', { name }).element() as HTMLElement).focus();
  await userEvent.keyboard('{Enter}');
  await expect.element(page.getByRole('region', { name })).toBeVisible();
}

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe("<agent-chat> a public visitor's Conversations", () => {
  test('over a conversation in the floating panel: focus goes to the words that say none are kept, and Tab goes round the panel, never to the page', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessions(backend));
    const el = await publicPage();
    await el.open();
    await el.send('How do I theme it?');
    await settled(el);
    expect(messagesOf(el).at(-1)?.message).toMatchObject({ role: 'assistant', status: 'complete' });

    await openConversationsByKeyboard();
    const words = page.getByText(NOT_KEPT);
    await expect.element(words).toBeVisible();
    await expect.poll(() => deepActiveElement()).toBe(words.element());
    // The conversation it covers is out of reach and the words are no control, so Tab goes on
    // with the panel's first control: the header's, in order, and round again; never to the page.
    expect(await tabStops(5)).toEqual([
      'Conversations',
      'New conversation',
      'More',
      'Close chat',
      'Conversations',
    ]);
    expect(await tabStops(2, true)).toEqual(['Close chat', 'More']);
    await chaiExpect(el).to.be.accessible();

    // Escape closes the list, and the conversation is reachable again.
    await userEvent.keyboard('{Escape}');
    await expect.element(page.getByRole('region', { name: 'Conversations' })).not.toBeInTheDocument();
    expect(focusedName()).toBe('Conversations');
  });

  test('on a phone (a modal panel) the same path stays inside, for a public visitor and a signed-in one alike', async ({
    backend,
  }) => {
    await page.viewport(390, 844);
    const visitor = await publicPage();
    await visitor.open();
    await openConversationsByKeyboard();
    await expect.poll(() => focusedName()).toBe(NOT_KEPT);
    expect(await tabStops(4)).toEqual(['Conversations', 'New conversation', 'Close chat', 'Conversations']);
    await visitor.close();
    visitor.remove();

    // A signed-in visitor's list over the conversation: past its last Delete, back to the top.
    backend.signIn('alice');
    await backend.seed('alice', ['Only thread']);
    const owned = await fixtureChat({ mode: 'launcher', ownerKey: 'key-alice' });
    await owned.open();
    await openConversationsByKeyboard();
    await expect.poll(() => threadListTitles(owned)).toEqual(['Only thread']);
    expect(await tabStops(4)).toEqual([
      'Only thread',
      'Rename Only thread',
      'Delete Only thread',
      'Conversations',
    ]);
    expect(await tabStops(1, true)).toEqual(['Delete Only thread']);
  });

  test('right to left, in the dark theme: the same words have the focus, read right to left, and axe finds nothing', async () => {
    const el = await publicPage();
    el.setAttribute('lang', 'he');
    el.setAttribute('theme', 'dark');
    await vi.waitFor(() => {
      if (el.shadowRoot!.querySelector('#panel')?.getAttribute('lang') !== 'he')
        throw new Error('language not loaded yet');
    });
    await el.open();
    await openConversationsByKeyboard(he.conversations);
    const words = page.getByText(he.noHistoryKept);
    await expect.element(words).toBeVisible();
    await expect.poll(() => deepActiveElement()).toBe(words.element());
    expect((words.element() as HTMLElement).matches(':dir(rtl)')).toBe(true);
    expect(getComputedStyle(words.element()).outlineStyle).toBe('solid');
    expect(await tabStops(2)).toEqual([he.conversations, he.newConversation]);
    await chaiExpect(el).to.be.accessible();
  });
});
