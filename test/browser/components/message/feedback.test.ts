/** Not helpful: the reason chips, sending and cancelling, the thanks. */
import { afterEach, describe, expect, vi } from 'vitest';
import { commands, page, userEvent } from 'vitest/browser';
import { expect as chaiExpect } from '@open-wc/testing';
import { test } from '../../../msw/test.js';
import { answerRoot, deepActiveElement, fixtureChat, settled } from '../../../helpers/chat-fixture.js';
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

  test('a reason reads as a chip: no checkbox drawn, its pressed state a check mark and a tint, its ring from the keyboard, a checkbox for a screen reader', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    const notHelpful = page.getByRole('button', { name: 'Not helpful' });
    (notHelpful.element() as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    const reasons = page.getByRole('form', { name: 'What went wrong?' });
    await expect.element(reasons).toBeVisible();
    const box = reasons.getByRole('checkbox', { name: 'Incorrect' });
    const input = box.element() as HTMLInputElement;
    const chip = input.closest('label')!;
    const mark = chip.querySelector('svg')!;
    // The native box is not drawn: the chip is the control a visitor sees.
    expect(getComputedStyle(input).opacity).toBe('0');
    expect(input.getBoundingClientRect().width).toBeLessThanOrEqual(1);
    expect(mark.getBoundingClientRect().width).toBe(0);
    const unpressed = getComputedStyle(chip).backgroundColor;
    // By keyboard: Tab reaches the reason (after Regenerate), its chip is ringed, Space presses it.
    for (let tabs = 0; tabs < 4 && deepActiveElement() !== input; tabs++) await userEvent.keyboard('{Tab}');
    expect(deepActiveElement()).toBe(input);
    expect(getComputedStyle(chip).outlineStyle).toBe('solid');
    await userEvent.keyboard(' ');
    await expect.element(box).toBeChecked();
    // Pressed: a check mark beside the words (not colour alone) and a tint.
    expect(mark.getBoundingClientRect().width).toBeGreaterThan(0);
    expect(getComputedStyle(chip).backgroundColor).not.toBe(unpressed);
    await userEvent.keyboard(' ');
    await expect.element(box).not.toBeChecked();
    expect(mark.getBoundingClientRect().width).toBe(0);
    // A pointer presses it too, through the chip's words.
    await userEvent.click(page.getByText('Not relevant'));
    await expect.element(reasons.getByRole('checkbox', { name: 'Not relevant' })).toBeChecked();
    await chaiExpect(el).to.be.accessible();
  });

  test('in forced colours a pressed reason shows by its check mark and the highlight, not by a tint the mode drops', async ({
    backend,
  }) => {
    await commands.forcedColors('active');
    try {
      const el = await fixtureChat();
      await el.send('How do I theme it?');
      await settled(el);
      await userEvent.click(page.getByRole('button', { name: 'Not helpful' }));
      const box = page.getByRole('checkbox', { name: 'Incorrect' });
      const chip = (box.element() as HTMLElement).closest('label')!;
      const other = page.getByRole('checkbox', { name: 'Not relevant' }).element().closest('label')!;
      await userEvent.click(box);
      await expect.element(box).toBeChecked();
      expect(chip.querySelector('svg')!.getBoundingClientRect().width).toBeGreaterThan(0);
      expect(getComputedStyle(chip).borderTopColor).not.toBe(getComputedStyle(other).borderTopColor);
      expect(getComputedStyle(chip).color).not.toBe(getComputedStyle(other).color);
    } finally {
      await commands.forcedColors('none');
    }
  });
});
