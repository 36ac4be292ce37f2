import { fixture, html } from '@open-wc/testing';
import { describe, expect } from 'vitest';
import { userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, ownerKeyOf } from '../../../msw/reference.js';
import {
  deepActiveElement,
  fixtureChat,
  lastAnswerText,
  messagesOf,
  openThreadList,
  settled,
  threadListOf,
  threadListTitles,
  threadListToggle,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

function listRoot(el: AgentChat): ShadowRoot {
  return threadListOf(el).shadowRoot!;
}

function threadButton(el: AgentChat, title: string): HTMLButtonElement {
  return Array.from(listRoot(el).querySelectorAll<HTMLButtonElement>('button.open')).find(
    (b) => b.querySelector('.title')?.textContent === title,
  )!;
}

function nextThreadChange(el: AgentChat) {
  return new Promise<string | null>((resolve) =>
    el.addEventListener('agent-chat-thread-change', (e) => resolve(e.detail.threadId), { once: true }),
  );
}

describe('<agent-chat> thread list', () => {
  test("shows only the signed-in owner's threads: B never sees A's", async ({ backend }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Alice secret plan']);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['Alice secret plan']);
    expect(threadListToggle(el).getAttribute('aria-expanded')).toBe('true');
    expect(threadListOf(el).getAttribute('role')).toBe('region');
    expect(threadListOf(el).getAttribute('aria-label')).toBe('Conversations');

    // The site signs Alice out and Bob in (the demo's switch does exactly this).
    backend.signIn('bob');
    await el.clearSession();
    await settled(el);
    expect(threadListTitles(el)).not.toContain('Alice secret plan');
    await el.send('Bob asks about events');
    await expect.poll(() => threadListTitles(el)).toEqual(['Bob asks about events']);
    expect(listRoot(el).textContent).not.toContain('Alice');
  });

  test('resumes a thread with messages and sources; the next message continues that thread', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const [themingId] = await backend.seed('alice', ['How do I theme it?', 'What events are there?']);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['What events are there?', 'How do I theme it?']);

    const changed = nextThreadChange(el);
    threadButton(el, 'How do I theme it?').click();
    expect(await changed).toBe(themingId);
    await settled(el);
    expect(messagesOf(el).map((m) => m.message?.content.slice(0, 18))).toEqual([
      'How do I theme it?',
      'Style the widget f',
    ]);
    expect(lastAnswerText(el)).toContain('Style the widget from your page');
    expect(messagesOf(el)[1].shadowRoot!.querySelector('.sources a')).not.toBeNull();
    await openThreadList(el);
    expect(listRoot(el).querySelector('li[aria-current="true"] .title')?.textContent).toBe(
      'How do I theme it?',
    );

    const before = backend.chatRequests().length;
    await el.send('And dark mode?');
    expect((await backend.chatRequests()[before].clone().json()).thread_id).toBe(themingId);
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)[0]).toBe('How do I theme it?');
  });

  test('pages through the list with Show more', async ({ backend }) => {
    backend.signIn('alice');
    const titles = Array.from({ length: 23 }, (_, i) => `Question ${String(i + 1).padStart(2, '0')}`);
    await backend.seed('alice', titles);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toHaveLength(20);
    expect(threadListTitles(el)[0]).toBe('Question 23');
    const more = Array.from(listRoot(el).querySelectorAll('button')).find(
      (b) => b.textContent === 'Show more',
    )!;
    more.click();
    await expect.poll(() => threadListTitles(el)).toEqual([...titles].reverse());
    expect(
      Array.from(listRoot(el).querySelectorAll('button')).some((b) => b.textContent === 'Show more'),
    ).toBe(false);
  });

  test('deletes after confirmation; deleting the open thread starts a new conversation', async ({
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Keep me', 'Delete me']);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['Delete me', 'Keep me']);
    threadButton(el, 'Delete me').click();
    await expect.poll(() => messagesOf(el).length).toBe(2);
    // The test frame is phone-sized: the list, over the conversation, closed when the thread opened.
    expect(threadListToggle(el).getAttribute('aria-expanded')).toBe('false');
    await openThreadList(el);

    listRoot(el).querySelector<HTMLButtonElement>('button[aria-label="Delete Delete me"]')!.click();
    await threadListOf(el).updateComplete;
    const confirm = listRoot(el).querySelector('[role="group"]')!;
    expect(confirm.getAttribute('aria-label')).toBe('Delete “Delete me”? This cannot be undone.');
    expect(deepActiveElement()?.textContent).toBe('Cancel');
    expect(threadListTitles(el)).toEqual(['Keep me']); // the row shows the question instead

    const changed = nextThreadChange(el);
    Array.from(confirm.querySelectorAll('button'))
      .find((b) => b.textContent === 'Delete')!
      .click();
    expect(await changed).toBeNull();
    await expect.poll(() => threadListTitles(el)).toEqual(['Keep me']);
    await settled(el);
    expect(messagesOf(el)).toHaveLength(0);
    expect(backend.serviceRequests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });

  test('cancelling a deletion keeps the thread', async ({ backend }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Keep me']);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['Keep me']);
    listRoot(el).querySelector<HTMLButtonElement>('button[aria-label="Delete Keep me"]')!.click();
    await threadListOf(el).updateComplete;
    listRoot(el).querySelector<HTMLButtonElement>('.cancel')!.click();
    await threadListOf(el).updateComplete;
    expect(threadListTitles(el)).toEqual(['Keep me']);
    expect(backend.serviceRequests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });

  test('a session without owner gets a calm "sign in" state, and chat keeps working', async ({ backend }) => {
    backend.signIn(null);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => listRoot(el).textContent).toContain('Sign in to see your past conversations.');
    expect(listRoot(el).querySelector('[role="alert"]')).toBeNull();
    await el.send('How do I install it?');
    await settled(el);
    expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
  });

  test('an anonymous visitor (owner-key "-", or a session that said "-") opens Conversations: the sign-in state with no request at all', async ({
    backend,
  }) => {
    backend.signIn(null);
    const requests = () => backend.sessionRequests.length + backend.serviceRequests.length;
    const el = await fixtureChat({ ownerKey: ownerKeyOf(null) });
    await settled(el);
    await openThreadList(el);
    await expect.poll(() => listRoot(el).textContent).toContain('Sign in to see your past conversations.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requests()).toBe(0);

    // Without the attribute, the first session says "-": the list never asks either.
    el.remove();
    const quickstart = await fixtureChat();
    await quickstart.send('How do I install it?');
    await settled(quickstart);
    const before = backend.serviceRequests.length;
    await openThreadList(quickstart);
    await expect
      .poll(() => listRoot(quickstart).textContent)
      .toContain('Sign in to see your past conversations.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(backend.serviceRequests.slice(before).map((r) => new URL(r.url).pathname)).toEqual([]);
  });

  test('a page of a public integration (base-url, no session endpoint) opens Conversations: no proof of work, no session, no request', async ({
    backend,
  }) => {
    // A public session never has an owner (wire contract §2b; §5 answers 403): asking would
    // spend the visitor's proof of work and a session of the day's budget on a refusal.
    const asked: string[] = [];
    const pageFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      asked.push(input instanceof Request ? input.url : String(input));
      return pageFetch(input, init);
    };
    try {
      const el = await fixture<AgentChat>(html`<agent-chat
        project-id=${PROJECT_ID}
        integration-id=${INTEGRATION_ID}
        base-url=${SERVICE_BASE}
        mode="inline"
      ></agent-chat>`);
      await settled(el);
      await openThreadList(el);
      // Its visitors are anonymous and there is no sign-in to offer them: it says what is so.
      await expect
        .poll(() => listRoot(el).textContent)
        .toContain('Your conversations here will be kept on this device only.');
      expect(listRoot(el).textContent).not.toMatch(/sign in/i);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(asked).toEqual([]);
      expect(backend.serviceRequests).toEqual([]);
    } finally {
      globalThis.fetch = pageFetch;
    }
  });

  test('a thread deleted elsewhere leaves the list when the visitor opens it', async ({ backend }) => {
    backend.signIn('alice');
    const [goneId] = await backend.seed('alice', ['Gone elsewhere', 'Still here']);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['Still here', 'Gone elsewhere']);
    await backend.deleteBehindTheScenes('alice', goneId);
    const errors: string[] = [];
    el.addEventListener('agent-chat-error', (e) => errors.push(e.detail.code));
    threadButton(el, 'Gone elsewhere').click();
    await expect.poll(() => threadListTitles(el)).toEqual(['Still here']);
    expect(errors).toEqual(['not_found']);
  });

  test('arrow keys, Home and End move between threads; Up from the first goes back to the search', async ({
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['One', 'Two', 'Three']);
    const el = await fixtureChat();
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['Three', 'Two', 'One']);
    threadButton(el, 'Three').focus();
    await userEvent.keyboard('{ArrowDown}');
    expect(deepActiveElement()).toBe(threadButton(el, 'Two'));
    await userEvent.keyboard('{End}');
    expect(deepActiveElement()).toBe(threadButton(el, 'One'));
    await userEvent.keyboard('{ArrowDown}');
    expect(deepActiveElement()).toBe(threadButton(el, 'One'));
    await userEvent.keyboard('{Home}');
    expect(deepActiveElement()).toBe(threadButton(el, 'Three'));
    await userEvent.keyboard('{ArrowUp}');
    expect(deepActiveElement()?.getAttribute('aria-label')).toBe('Search conversations');
  });
});
