/**
 * A signed-in visitor opens Conversations over the conversation while their threads are still
 * loading (decision 515): the focus is on the loading status, which a screen reader names and a
 * keyboard user sees ringed, then on the first thread once they arrive, unless it moved meanwhile.
 */
import { expect as chaiExpect } from '@open-wc/testing';
import { http } from 'msw';
import { afterEach, describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE, ownerKeyOf, type ReferenceBackend } from '../../../msw/reference.js';
import {
  deepActiveElement,
  fixtureChat,
  openConversationsByKeyboard,
} from '../../../helpers/chat-fixture.js';
import { clearDeviceMemory } from '../../../../src/chat/device-memory-store.js';

const THREADS = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/threads/`;

const list = () => page.getByRole('region', { name: 'Conversations' });

/** What a screen reader would name the focused element: its aria-label, else its words. */
function focusedName(): string {
  const active = deepActiveElement();
  return active?.getAttribute('aria-label') ?? active?.textContent?.trim().split('\n')[0] ?? '';
}

/** The thread list held back until `release()`: it answers as the service does, then. */
function heldHistory() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  // Returning nothing hands the request on to the reference backend's handler.
  return { handler: http.get(THREADS, () => released.then(() => undefined)), release };
}

/** Alice's widget in its floating panel, on the start screen, with two threads on the service. */
async function alicesPanel(backend: ReferenceBackend) {
  await clearDeviceMemory();
  backend.signIn('alice');
  await backend.seed('alice', ['Older thread', 'Newest thread']);
  const el = await fixtureChat({ mode: 'launcher', ownerKey: ownerKeyOf('alice') });
  await el.open();
  return el;
}

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe("<agent-chat> a signed-in visitor's Conversations while they load", () => {
  test('the focus is on the loading status, ringed and named, then on the newest thread when they arrive', async ({
    worker,
    backend,
  }) => {
    const held = heldHistory();
    worker.use(held.handler);
    const el = await alicesPanel(backend);
    await openConversationsByKeyboard();
    const loading = page.getByRole('status', { name: 'Loading…' });
    await expect.element(loading).toBeInTheDocument();
    await expect.poll(() => deepActiveElement()).toBe(loading.element());
    expect(getComputedStyle(loading.element()).outlineStyle).toBe('solid');
    await chaiExpect(el).to.be.accessible();

    held.release();
    await expect.poll(() => focusedName()).toBe('Newest thread');
    expect(deepActiveElement()).toBe(
      list()
        .getByRole('button', { name: /^Newest thread/ })
        .element(),
    );
    // From there the list is a list again: Down goes to the next thread.
    await userEvent.keyboard('{ArrowDown}');
    expect(focusedName()).toBe('Older thread');
  });

  test('focus the visitor moved while they loaded stays where they put it', async ({ worker, backend }) => {
    const held = heldHistory();
    worker.use(held.handler);
    await alicesPanel(backend);
    await openConversationsByKeyboard();
    await expect.poll(() => focusedName()).toBe('Loading…');
    // Back to the header's New conversation, before the threads come.
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    const moved = focusedName();
    expect(moved).not.toBe('Loading…');
    held.release();
    await expect.element(list().getByRole('button', { name: /^Newest thread/ })).toBeVisible();
    expect(focusedName()).toBe(moved);
  });

  test('a history that fails to load: the focus goes on to its words, and Retry is the next stop', async ({
    worker,
    backend,
  }) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    worker.use(http.get(THREADS, () => released.then(() => new Response(null, { status: 500 }))));
    await alicesPanel(backend);
    await openConversationsByKeyboard();
    await expect.poll(() => focusedName()).toBe('Loading…');
    release();
    // A 500 reads as any failure does (decision 81), with its Retry.
    await expect.poll(() => focusedName()).toBe('Something went wrong. Please try again.');
    await userEvent.keyboard('{Tab}');
    expect(focusedName()).toBe('Retry');
  });
});
