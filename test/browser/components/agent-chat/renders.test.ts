import { describe, expect } from 'vitest';
import { test } from '../../../msw/test.js';
import {
  composerOf,
  fixtureChat,
  settled,
  threadListToggle,
  threadListOf,
  typeMessage,
} from '../../../helpers/chat-fixture.js';
import type { LitElement } from 'lit';

/** Counts `el`'s renders from now on. */
function countRenders(el: LitElement): () => number {
  let renders = 0;
  const render = (el as unknown as { render(): unknown }).render.bind(el);
  (el as unknown as { render(): unknown }).render = () => {
    renders += 1;
    return render();
  };
  return () => renders;
}

describe('<agent-chat> renders only what changed', () => {
  test('a keystroke re-renders the composer, not the message list or the thread list', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    threadListToggle(el).click();
    // The list's element is a part loaded when first shown (decision 341): count its renders once it is upgraded.
    await customElements.whenDefined('agent-chat-thread-list');
    await settled(el);
    const list = el.shadowRoot!.querySelector('agent-chat-message-list')!;
    const threads = threadListOf(el);
    await threads.updateComplete;
    const listRenders = countRenders(list);
    const threadRenders = countRenders(threads);
    const composerRenders = countRenders(composerOf(el));
    for (const text of ['H', 'Ho', 'How', 'How d', 'How do']) await typeMessage(el, text);
    await settled(el);
    await threads.updateComplete;
    expect(composerRenders()).toBeGreaterThan(0);
    expect(listRenders()).toBe(0);
    expect(threadRenders()).toBe(0);
  });
});
