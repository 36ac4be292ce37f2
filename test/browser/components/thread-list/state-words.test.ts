/** The list's words in place of rows (none yet, sign in, a failure): focused from code, their ring keeps off them. */
import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE } from '../../../msw/reference.js';
import { fixtureChat, openThreadList, threadListOf } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const THREADS = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/threads/`;

/** The list's words once they show, and the box they stand in. */
async function stateWords(el: AgentChat) {
  // The list's element is a part of its own: its shadow root comes once the part has loaded.
  const find = () => threadListOf(el).shadowRoot?.querySelector<HTMLElement>('.state p');
  await expect.poll(find).toBeTruthy();
  const words = find()!;
  return { words, state: words.parentElement! };
}

/** Where the words' text starts, and where the box they stand in lets content start. */
function textStarts(words: HTMLElement, state: HTMLElement) {
  const inner = (el: HTMLElement) =>
    el.getBoundingClientRect().left + parseFloat(getComputedStyle(el).paddingLeft);
  return { text: inner(words), box: inner(state) };
}

describe('<agent-chat-thread-list> words in place of rows', () => {
  test('"No conversations yet." has room inside its focus ring, and stays where the rows start', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat();
    await openThreadList(el);
    const { words, state } = await stateWords(el);
    expect(words.textContent).toBe('No conversations yet.');
    const style = getComputedStyle(words);
    // The ring is drawn 2 px outside the words' box: padding keeps it off the letters.
    for (const side of [style.paddingTop, style.paddingLeft, style.paddingRight, style.paddingBottom])
      expect(parseFloat(side)).toBeGreaterThanOrEqual(4);
    const { text, box } = textStarts(words, state);
    expect(Math.abs(text - box)).toBeLessThan(0.5);
  });

  test('a list that failed reads in the danger colour, as a failed message does, with room inside its ring', async ({
    worker,
    backend,
  }) => {
    backend.signIn('alice');
    worker.use(http.get(THREADS, () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    const el = await fixtureChat();
    el.style.setProperty('--agent-chat-color-danger', 'rgb(180, 35, 24)');
    await openThreadList(el);
    const { words } = await stateWords(el);
    expect(words.closest('[role="alert"]')).not.toBeNull();
    expect(getComputedStyle(words).color).toBe('rgb(180, 35, 24)');
    expect(parseFloat(getComputedStyle(words).paddingLeft)).toBeGreaterThanOrEqual(4);
  });
});
