/** The Conversations list is a part of its own (decision 341): fetched when first shown, not before. */
import { describe, expect } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { page } from 'vitest/browser';
import { test } from '../../msw/test.js';
import { ownerKeyOf } from '../../msw/reference.js';
import { fixtureChat, recentConversations, settled, threadListTitles } from '../../helpers/chat-fixture.js';

describe('<agent-chat> Conversations list, loaded when first shown', () => {
  test('a signed-in visitor who never opens Conversations never loads its element; the first opening does, and shows the threads', async ({
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['How do I theme it?', 'Which frameworks are supported?']);
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    await settled(el);
    // The start screen lists the latest threads without the drawer's element.
    await expect.poll(() => recentConversations(el).length).toBe(2);
    expect(customElements.get('agent-chat-thread-list')).toBeUndefined();

    await page.getByRole('button', { name: 'Conversations' }).click();
    await expect.poll(() => customElements.get('agent-chat-thread-list')).toBeDefined();
    await expect.element(page.getByRole('region', { name: 'Conversations' })).toBeVisible();
    await expect
      .poll(() => threadListTitles(el))
      .toEqual(['Which frameworks are supported?', 'How do I theme it?']);
    await chaiExpect(el).to.be.accessible();
  });
});
