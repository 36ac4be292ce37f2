/**
 * A confirmed deletion is said politely, and the keyboard goes on from where the row was
 * (decision 582): the next row, else the previous one, else New conversation once none is left.
 */
import { describe, expect } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { http, HttpResponse } from 'msw';
import { PROJECT_ID, SERVICE_BASE, ownerKeyOf } from '../../../msw/reference.js';
import {
  deepActiveElement,
  fixtureChat,
  openConversationsByKeyboard,
  politeWords,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const list = () => page.getByRole('region', { name: 'Conversations' });
/** A conversation's row: its button reads the title, then the preview or time. */
const row = (title: string) => list().getByRole('button', { name: new RegExp(`^${title} `) });

/** Delete <title>, then Delete in its confirmation, from the keyboard. */
async function confirmDelete(title: string) {
  (
    list()
      .getByRole('button', { name: `Delete ${title}` })
      .element() as HTMLElement
  ).focus();
  await userEvent.keyboard('{Enter}');
  const confirm = list().getByRole('group', { name: `Delete “${title}”? This cannot be undone.` });
  await expect.element(confirm).toBeVisible();
  (confirm.getByRole('button', { name: 'Delete', exact: true }).element() as HTMLElement).focus();
  await userEvent.keyboard('{Enter}');
}

/** Deletes <title> from the keyboard, and waits until it is said and gone. */
async function deleteByKeyboard(el: AgentChat, title: string) {
  await confirmDelete(title);
  await expect.poll(() => politeWords(el)).toContain(`“${title}” deleted`);
  await expect.element(row(title)).not.toBeInTheDocument();
}

describe('<agent-chat> deleting a conversation', () => {
  for (const [layout, width] of [
    ['over the conversation', 390],
    ['beside the conversation', 1280],
  ] as const) {
    test(`is announced, and the focus goes to the next row, the previous, then New conversation (${layout})`, async ({
      backend,
    }) => {
      backend.signIn('alice');
      await backend.seed('alice', ['Third', 'Second', 'First']);
      await page.viewport(width, 800);
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      await openConversationsByKeyboard();
      await expect.element(row('Third')).toBeVisible();

      await deleteByKeyboard(el, 'Second');
      await expect.poll(() => deepActiveElement()).toBe(row('Third').element());
      await chaiExpect(el).to.be.accessible();

      await deleteByKeyboard(el, 'Third');
      await expect.poll(() => deepActiveElement()).toBe(row('First').element());

      await deleteByKeyboard(el, 'First');
      const fresh = page.getByRole('button', { name: 'New conversation' });
      await expect.poll(() => deepActiveElement()).toBe(fresh.element());
      await expect.element(list().getByText('No conversations yet.')).toBeVisible();
      await chaiExpect(el).to.be.accessible();
      expect(backend.serviceRequests.filter((r) => r.method === 'DELETE')).toHaveLength(3);

      // Pressed, it starts one where the visitor can type: a list over the conversation closes.
      await userEvent.keyboard('{Enter}');
      const box = page.getByRole('textbox', { name: 'Message' });
      await expect.poll(() => deepActiveElement()).toBe(box.element());
      await expect
        .element(page.getByRole('button', { name: 'Conversations' }))
        .toHaveAttribute('aria-expanded', width > 390 ? 'true' : 'false');
    });
  }
});

describe('<agent-chat> a conversation the service would not delete', () => {
  test('says why in the list, keeps its row, and the next delete clears it', async ({ worker, backend }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Second', 'First']);
    await page.viewport(390, 800);
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    worker.use(
      http.delete(
        `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/threads/:id/`,
        () => HttpResponse.json({ detail: 'boom' }, { status: 500 }),
        { once: true },
      ),
    );
    await openConversationsByKeyboard();
    await expect.element(row('Second')).toBeVisible();

    await confirmDelete('Second');
    const refused = list().getByRole('alert');
    await expect.element(refused).toHaveTextContent('Something went wrong. Please try again.');
    await expect.element(row('Second')).toBeVisible();
    await chaiExpect(el).to.be.accessible();

    await confirmDelete('Second');
    await expect.poll(() => politeWords(el)).toContain('“Second” deleted');
    await expect.element(refused).not.toBeInTheDocument();

    // A rename it refuses reads the same, the title as it was.
    worker.use(
      http.patch(
        `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/threads/:id/`,
        () => HttpResponse.json({ detail: 'boom' }, { status: 500 }),
        { once: true },
      ),
    );
    await userEvent.click(list().getByRole('button', { name: 'Rename First' }));
    await userEvent.fill(list().getByRole('textbox', { name: 'Conversation title' }), 'Renamed');
    await userEvent.keyboard('{Enter}');
    await expect.element(refused).toHaveTextContent('Something went wrong. Please try again.');
    await expect.element(row('First')).toBeVisible();
  });
});
