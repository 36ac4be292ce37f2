import { describe, expect } from 'vitest';
import { userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import {
  fixtureChat,
  openThreadList,
  threadListOf,
  threadListTitles,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const listRoot = (el: AgentChat) => threadListOf(el).shadowRoot!;
const byName = (el: AgentChat, selector: string, name: string) =>
  Array.from(listRoot(el).querySelectorAll<HTMLElement>(selector)).find(
    (b) => b.getAttribute('aria-label') === name,
  );

describe('<agent-chat> threads: rename (§10) and search', () => {
  test('"Rename …" opens a "Conversation title" box: Enter saves on the service, Escape cancels', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const [first] = await backend.seed('alice', ['How do I theme it?', 'Events please']);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['Events please', 'How do I theme it?']);

    byName(el, 'button', 'Rename How do I theme it?')!.click();
    await threadListOf(el).updateComplete;
    const field = byName(el, 'input', 'Conversation title') as HTMLInputElement;
    expect(field.value).toBe('How do I theme it?');
    await userEvent.fill(field, 'Theming notes');
    await userEvent.keyboard('{Enter}');
    await expect.poll(() => threadListTitles(el)).toEqual(['Events please', 'Theming notes']);
    const patch = backend.serviceRequests.find((r) => r.method === 'PATCH')!;
    expect(patch.url).toContain(`/threads/${first}/`);
    expect(await patch.clone().json()).toEqual({ title: 'Theming notes' });

    byName(el, 'button', 'Rename Events please')!.click();
    await threadListOf(el).updateComplete;
    const again = byName(el, 'input', 'Conversation title') as HTMLInputElement;
    await userEvent.fill(again, 'Something else');
    await userEvent.keyboard('{Escape}');
    await threadListOf(el).updateComplete;
    expect(threadListTitles(el)).toEqual(['Events please', 'Theming notes']);
    expect(backend.serviceRequests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    // Escape closed the field, not the panel, and focus went back to the row.
    expect(el.shadowRoot!.querySelector('.panel')!.hasAttribute('hidden')).toBe(false);
  });

  test('"Search conversations" filters the loaded titles and loads more pages when needed', async ({
    backend,
  }) => {
    backend.signIn('alice');
    // 21 threads: the oldest, the only "billing" one, is on the second page.
    await backend.seed('alice', [
      'Billing question',
      ...Array.from({ length: 20 }, (_, i) => `Theme question ${i + 1}`),
    ]);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el).length).toBe(20);
    const search = listRoot(el).querySelector<HTMLInputElement>('input[type="search"]')!;
    expect(search.getAttribute('aria-label')).toBe('Search conversations');
    await userEvent.fill(search, 'billing');
    await expect.poll(() => threadListTitles(el)).toEqual(['Billing question']);
    await userEvent.fill(search, 'question 12');
    await expect.poll(() => threadListTitles(el)).toEqual(['Theme question 12']);
    await userEvent.fill(search, 'nothing like this');
    await expect
      .poll(() => listRoot(el).textContent)
      .toContain('No conversations match “nothing like this”.');
    // Two list pages in all: no request storm while typing.
    expect(
      backend.serviceRequests.filter((r) => r.method === 'GET' && r.url.includes('/threads/?')).length,
    ).toBe(2);
    const { expect: chaiExpect } = await import('@open-wc/testing');
    await chaiExpect(el).to.be.accessible();
  });
});
