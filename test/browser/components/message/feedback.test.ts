/** Not helpful: the reason chips, sending and cancelling, the thanks. */
import { afterEach, describe, expect, vi } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { test } from '../../../msw/test.js';
import { answerRoot, fixtureChat, settled } from '../../../helpers/chat-fixture.js';
afterEach(() => vi.restoreAllMocks());

describe('<agent-chat> feedback', () => {
  test('Not helpful opens a styled form of reason chips; sending it closes it with a thanks the visitor can see', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const rated: string[] = [];
    el.addEventListener('agent-chat-feedback', (e) => rated.push(e.detail.reaction));
    await el.send('How do I theme it?');
    await settled(el);
    const root = answerRoot(el);
    root.querySelector<HTMLButtonElement>('button[aria-label="Not helpful"]')!.click();
    await settled(el);
    const form = root.querySelector('form.reasons')!;
    const chips = Array.from(form.querySelectorAll<HTMLLabelElement>('label.chip'));
    expect(chips.map((c) => c.textContent!.trim())).toEqual([
      'Incorrect',
      'Not relevant',
      "Didn't answer my question",
    ]);
    // A chip is a pill with a real checkbox inside; checking it marks the pill.
    expect(getComputedStyle(chips[0]).borderRadius).toBe('999px');
    const before = getComputedStyle(chips[0]).borderColor;
    chips[0].querySelector('input')!.click();
    expect(getComputedStyle(chips[0]).borderColor).not.toBe(before);
    await chaiExpect(el).to.be.accessible();
    Array.from(form.querySelectorAll('button'))
      .find((b) => b.textContent === 'Send feedback')!
      .click();
    await settled(el);
    expect(root.querySelector('form.reasons')).toBeNull();
    const thanks = root.querySelector<HTMLElement>('.actions [role="status"]')!;
    expect(thanks.textContent).toBe('Thanks for your feedback!');
    expect(thanks.classList.contains('visually-hidden')).toBe(false);
    expect(thanks.getBoundingClientRect().width).toBeGreaterThan(50);
    // Both went: the downvote at once, then again with its reasons (§8). Waiting for them keeps
    // this test's requests out of the next one's backend.
    await expect
      .poll(() => backend.serviceRequests.filter((r) => r.url.endsWith('/feedback/')).length)
      .toBe(2);
    // One rating, with reasons: the page hears of it once.
    expect(rated).toEqual(['downvote']);
  });

  test('Cancel closes the form without sending reasons', async ({ backend }) => {
    const el = await fixtureChat();
    const rated: string[] = [];
    el.addEventListener('agent-chat-feedback', (e) => rated.push(e.detail.reaction));
    await el.send('How do I theme it?');
    await settled(el);
    const root = answerRoot(el);
    root.querySelector<HTMLButtonElement>('button[aria-label="Not helpful"]')!.click();
    await settled(el);
    Array.from(root.querySelectorAll('form button'))
      .find((b) => b.textContent === 'Cancel')!
      .dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await settled(el);
    expect(root.querySelector('form.reasons')).toBeNull();
    // The downvote itself went at once (§8); no second one with reasons followed.
    const about = answerRoot(el).host as unknown as { message: { questionAnswerId: string } };
    const mine = async () => {
      const bodies = await Promise.all(
        backend.serviceRequests.filter((r) => r.url.endsWith('/feedback/')).map((r) => r.clone().json()),
      );
      return bodies.filter((b) => b.question_answer_id === about.message.questionAnswerId);
    };
    await expect.poll(async () => (await mine()).length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await mine()).map((b) => b.comment ?? null)).toEqual([null]);
  });
});
