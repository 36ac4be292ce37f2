/**
 * A failed answer read back from the service's history (decision 514): on a device that does not
 * remember it, or opened from Conversations, it reads as it did live, with its Retry, and shows
 * nothing the live answer did not (the service's reason, the operator's code and hint). So does
 * one a reload reattaches to after it failed (decision 524).
 */
import { expect as chaiExpect } from '@open-wc/testing';
import { describe, expect } from 'vitest';
import { page } from 'vitest/browser';
import { AgentError, DemoAgent, type Agent } from '../../../../service/index.js';
import { clearDeviceMemory } from '../../../../src/chat/device-memory-store.js';
import { ownerKeyOf } from '../../../msw/reference.js';
import { test } from '../../../msw/test.js';
import { fixtureChat, messagesOf, settled } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const QUESTION = 'How do I theme it?';
const REASON = 'The assistant is busy right now. Please try again in a minute.';

/**
 * The demo agent, except while `failing`: then the model's failure, with what the operator reads
 * of it, once `held` (when set) lets it fail.
 */
let failing = true;
let held: Promise<void> | null = null;
const demo = new DemoAgent();
const agent: Agent = {
  async *answer(input) {
    if (!failing) return yield* demo.answer(input);
    yield { type: 'text', text: 'Theming starts ' };
    await held;
    throw new AgentError(REASON, 'model_rate_limited', 'the model server answered 429; check OPENAI_API_KEY');
  },
};

/** What the visitor reads under the last answer: its words and whether Retry is offered. */
async function lastAnswerMeta(el: AgentChat) {
  const answer = messagesOf(el).at(-1)!;
  await answer.updateComplete;
  const root = answer.shadowRoot!;
  return {
    words: root.querySelector('[role="alert"]')?.textContent?.trim() ?? null,
    retry: Array.from(root.querySelectorAll('button')).some((b) => b.textContent?.trim() === 'Retry'),
    text: root.textContent ?? '',
  };
}

describe('<agent-chat> a failed answer read back from the history', () => {
  test.override('backendOptions', { agent });

  test('reads as it did live, with Retry, on another device; Retry answers it', async ({ backend }) => {
    failing = true;
    await clearDeviceMemory();
    backend.signIn('alice');
    const live = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    await live.send(QUESTION);
    await settled(live);
    await expect.element(page.getByRole('button', { name: 'Retry' })).toBeVisible();
    const seenLive = await lastAnswerMeta(live);
    expect(seenLive).toMatchObject({ words: 'Something went wrong. Please try again.', retry: true });
    live.remove();

    // Another device (nothing remembered): the thread from the service's history.
    await clearDeviceMemory();
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    await page.getByRole('button', { name: 'Conversations' }).click();
    const thread = page
      .getByRole('region', { name: 'Conversations' })
      .getByRole('button', { name: new RegExp(`^${QUESTION.replace('?', '\\?')}`) });
    await expect.element(thread).toBeVisible();
    await thread.click();
    await expect.poll(() => messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'error']);
    await settled(el);
    const readBack = await lastAnswerMeta(el);
    expect(readBack.words).toBe(seenLive.words);
    expect(readBack.retry).toBe(true);
    await expect
      .element(page.getByRole('alert'))
      .toHaveTextContent('Something went wrong. Please try again.');
    // Nothing the live answer did not show: neither the service's reason nor the operator's detail.
    expect(readBack.text).not.toMatch(/busy|429|OPENAI|model_rate_limited/);
    await chaiExpect(el).to.be.accessible();

    failing = false;
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => messagesOf(el).at(-1)?.message?.status, { timeout: 10_000 }).toBe('complete');
    expect(
      messagesOf(el)
        .map((m) => m.message?.content)
        .filter((c) => c === QUESTION),
    ).toHaveLength(1);
    expect((await lastAnswerMeta(el)).words).toBeNull();
  });

  test('reads as it did live, with Retry, when a reload reattaches to it after it failed', async ({
    backend,
  }) => {
    failing = true;
    await clearDeviceMemory();
    backend.signIn('alice');
    let fail!: () => void;
    held = new Promise((resolve) => (fail = resolve));
    try {
      const before = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      void before.send(QUESTION);
      await expect.poll(() => messagesOf(before).at(-1)?.message?.content).toBe('Theming starts ');
      const answerId = messagesOf(before).at(-1)!.message!.questionAnswerId!;
      // The page goes (no cancel: the service keeps the answer), and the answer fails meanwhile.
      before.remove();
      fail();
      await expect
        .poll(async () => (await backend.service.storage.conversations.getMessage(answerId))?.message.status)
        .toBe('error');

      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      await expect.poll(() => messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'error']);
      expect(
        backend.serviceRequests.filter((r) => r.url.endsWith(`/answers/${answerId}/stream/`)),
      ).toHaveLength(1);
      await settled(el);
      expect(await lastAnswerMeta(el)).toMatchObject({
        words: 'Something went wrong. Please try again.',
        retry: true,
      });
      await expect
        .element(page.getByRole('alert'))
        .toHaveTextContent('Something went wrong. Please try again.');
      await expect.element(page.getByRole('button', { name: 'Retry' })).toBeVisible();
      expect((await lastAnswerMeta(el)).text).not.toMatch(/busy|429|OPENAI|model_rate_limited/);

      failing = false;
      await page.getByRole('button', { name: 'Retry' }).click();
      await expect.poll(() => messagesOf(el).at(-1)?.message?.status, { timeout: 10_000 }).toBe('complete');
    } finally {
      held = null;
    }
  });
});
