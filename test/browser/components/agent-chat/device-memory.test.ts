import { describe, expect } from 'vitest';
import { fixture, html } from '@open-wc/testing';
import { test } from '../../../msw/test.js';
import {
  INTEGRATION_ID,
  PROJECT_ID,
  SERVICE_BASE,
  SESSION_ENDPOINT,
  ownerKeyOf,
  type ReferenceBackend,
} from '../../../msw/reference.js';
import { dumpAllIndexedDb, storedMemory } from '../../../helpers/idb.js';
import {
  fixtureChat,
  messagesOf,
  settled,
  threadListTitles,
  threadListToggle,
  textareaOf,
  threadListOf,
  typeMessage,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import { createDeviceMemoryStore } from '../../../../src/chat/device-memory-store.js';

const ALICE = ownerKeyOf('alice');

/** A page reload, as far as the widget can tell: the element goes, a new one hydrates. */
async function reload(
  el: AgentChat,
  mode: 'inline' | 'launcher' = 'inline',
  ownerKey: string | undefined = ALICE,
): Promise<AgentChat> {
  el.remove();
  const next = await fixtureChat({ mode, ownerKey });
  await settled(next);
  return next;
}

/** Alice's widget (the backend's handlers are in place before it renders: her start screen asks for her list). */
async function aliceWithOneAnswer(backend: ReferenceBackend) {
  backend.signIn('alice');
  return fixtureChat({ ownerKey: ALICE });
}

describe('<agent-chat> device memory in IndexedDB', () => {
  test('a reload restores messages, the cached list and the draft with zero requests', async ({
    backend,
  }) => {
    const el = await aliceWithOneAnswer(backend);
    await el.send('How do I theme it?');
    threadListToggle(el).click();
    await expect.poll(() => threadListTitles(el)).toEqual(['How do I theme it?']);
    await typeMessage(el, 'half-written follow-up');
    await expect
      .poll(async () => Object.values((await storedMemory())?.drafts ?? {}))
      .toEqual(['half-written follow-up']);
    const requestsBefore = backend.serviceRequests.length + backend.sessionRequests.length;

    const again = await reload(el);
    expect(messagesOf(again).map((m) => m.message?.content.slice(0, 18))).toEqual([
      'How do I theme it?',
      'Style the widget f',
    ]);
    expect(threadListToggle(again).getAttribute('aria-expanded')).toBe('true');
    await threadListOf(again).updateComplete;
    expect(threadListTitles(again)).toEqual(['How do I theme it?']);
    expect(textareaOf(again).value).toBe('half-written follow-up');
    expect(backend.serviceRequests.length + backend.sessionRequests.length).toBe(requestsBefore);

    // The first action that needs the service brings the server's truth.
    await again.send('And dark mode?');
    expect(backend.sessionRequests).toHaveLength(2);
    expect((await backend.chatRequests().at(-1)!.clone().json()).thread_id).toBe(
      (await storedMemory())?.activeThreadId,
    );
  });

  test('a reload restores an open launcher panel', async ({ backend }) => {
    // An anonymous page: a signed-in start screen would ask for its recent conversations.
    const el = await fixtureChat({ mode: 'launcher', ownerKey: '-' });
    await el.open();
    await expect
      .poll(async () => (await createDeviceMemoryStore(`${PROJECT_ID}:${INTEGRATION_ID}`).load())?.open)
      .toBe(true);
    const again = await reload(el, 'launcher', '-');
    expect(again.opened).toBe(true);
    expect(backend.sessionRequests).toHaveLength(0);
  });

  test("the page's open() before the device answers wins over the remembered closed panel", async () => {
    const el = await fixtureChat({ mode: 'launcher', ownerKey: '-' });
    await el.open();
    await el.close();
    await expect
      .poll(async () => (await createDeviceMemoryStore(`${PROJECT_ID}:${INTEGRATION_ID}`).load())?.open)
      .toBe(false);
    el.remove();
    // The next page opens the panel at once, before the device has said it was closed.
    const again = document.createElement('agent-chat') as AgentChat;
    for (const [name, value] of Object.entries({
      'project-id': PROJECT_ID,
      'integration-id': INTEGRATION_ID,
      'session-endpoint': SESSION_ENDPOINT,
      'base-url': SERVICE_BASE,
      mode: 'launcher',
      'owner-key': '-',
    }))
      again.setAttribute(name, value);
    document.body.append(again);
    void again.open();
    await settled(again);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(again.opened).toBe(true);
    again.remove();
  });

  test('never stores a token, an API key or a session response', async ({ backend }) => {
    const el = await aliceWithOneAnswer(backend);
    await el.send('How do tokens work?');
    threadListToggle(el).click();
    await expect.poll(() => threadListTitles(el)).toHaveLength(1);
    await expect.poll(async () => (await storedMemory())?.threads.length).toBe(1);
    const dump = (await dumpAllIndexedDb()).join('\n');
    expect(dump).toContain('How do tokens work?');
    expect(backend.issuedTokens.length).toBeGreaterThan(0);
    for (const token of backend.issuedTokens) expect(dump).not.toContain(token);
    expect(dump).not.toMatch(/ses_[0-9a-f]{32}|session_token|expires_at|X-API-Key|key_demo|Bearer/);
    expect(JSON.stringify(Object.entries(localStorage))).not.toMatch(/ses_/);
    expect(JSON.stringify(Object.entries(sessionStorage))).not.toMatch(/ses_/);
  });

  test('clearSession() wipes what this device remembers', async ({ backend }) => {
    const el = await aliceWithOneAnswer(backend);
    await el.send('Private question');
    await expect.poll(async () => (await storedMemory())?.messages.length).toBe(2);
    await el.clearSession();
    await settled(el);
    expect(await storedMemory()).toBeUndefined();
    expect(messagesOf(el)).toHaveLength(0);
    const again = await reload(el);
    expect(messagesOf(again)).toHaveLength(0);
    expect(threadListTitles(again)).toEqual([]);
  });

  test('clearSession() also forgets the drafts a pagehide stashed (a page back from the back-forward cache)', async ({
    backend,
  }) => {
    const el = await aliceWithOneAnswer(backend);
    await typeMessage(el, 'a private half sentence');
    dispatchEvent(new PageTransitionEvent('pagehide'));
    expect(JSON.stringify(Object.entries(sessionStorage))).toContain('a private half sentence');
    await el.clearSession();
    await settled(el);
    expect(JSON.stringify(Object.entries(sessionStorage))).not.toContain('a private half sentence');
    const again = await reload(el);
    expect(textareaOf(again).value).toBe('');
    expect(await storedMemory()).toBeUndefined();
  });

  test('history answering 403 after it had an owner wipes what the device remembered for it', async ({
    backend,
  }) => {
    const el = await aliceWithOneAnswer(backend);
    await el.send('Alice private question');
    threadListToggle(el).click();
    await expect.poll(() => threadListTitles(el)).toEqual(['Alice private question']);
    // The list itself is stored (her start screen already stored an empty one, owned).
    await expect
      .poll(async () => (await storedMemory())?.threads.map((t) => t.title))
      .toEqual(['Alice private question']);
    await expect.poll(async () => (await storedMemory())?.owned).toBe(true);

    backend.signIn(null); // Alice signed out on the site, but the page still renders her key
    const again = await reload(el);
    expect(threadListTitles(again)).toEqual(['Alice private question']); // the page vouches for Alice
    threadListToggle(again).click(); // closes the restored thread list…
    threadListToggle(again).click(); // …and opening it is the first action that asks the service
    await expect
      .poll(() => threadListOf(again).shadowRoot!.textContent)
      .toContain('Sign in to see your past conversations.');
    await settled(again);
    expect(messagesOf(again)).toHaveLength(0);
    await expect.poll(async () => JSON.stringify((await storedMemory()) ?? {})).not.toContain('Alice');
  });

  test("a remembered thread that now answers 404 leaves the list; the visitor's text stays for Retry", async ({
    backend,
  }) => {
    const el = await aliceWithOneAnswer(backend);
    await el.send('Alice question');
    await expect.poll(async () => (await storedMemory())?.messages.length).toBe(2);
    await backend.deleteBehindTheScenes('alice', (await storedMemory())!.activeThreadId!);

    const again = await reload(el);
    expect(messagesOf(again)).toHaveLength(2);
    await again.send('A follow-up');
    await settled(again);
    const messages = messagesOf(again);
    expect(messages.map((m) => [m.message?.content, m.message?.status])).toEqual([['A follow-up', 'failed']]);
    expect(messages[0].shadowRoot!.querySelector('[role="alert"]')?.textContent).toContain(
      'no longer exists',
    );

    // Retry sends the kept text in a new thread.
    messages[0].shadowRoot!.querySelector<HTMLButtonElement>('button.retry')!.click();
    await expect.poll(() => messagesOf(again).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
    expect((await backend.chatRequests().at(-1)!.clone().json()).thread_id).toBeNull();
  });

  test('two widgets of different projects never share state', async ({ backend }) => {
    const mine = await fixtureChat();
    await mine.send('Question for project one');
    await expect.poll(async () => (await storedMemory())?.messages.length).toBe(2);
    const other = await fixture<AgentChat>(
      html`<agent-chat project-id="proj_other" integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT} base-url=${SERVICE_BASE} mode="inline"></agent-chat>`,
    );
    await settled(other);
    expect(messagesOf(other)).toHaveLength(0);
    expect(await storedMemory(`proj_other:${INTEGRATION_ID}`)).toBeUndefined();
    expect(PROJECT_ID).not.toBe('proj_other');
  });

  test('a wipe in one tab reaches the other tabs', async ({ backend }) => {
    backend.signIn('alice');
    const first = await fixtureChat({ ownerKey: ALICE });
    await first.send('Shared computer question');
    await expect.poll(async () => (await storedMemory())?.messages.length).toBe(2);
    // A second tab of the same site: same scope, its own element and channel.
    const second = await fixtureChat({ ownerKey: ALICE });
    await settled(second);
    expect(messagesOf(second)).toHaveLength(2);

    await first.clearSession();
    await expect.poll(() => messagesOf(second).length).toBe(0);
    expect(await storedMemory()).toBeUndefined();
  });
});
