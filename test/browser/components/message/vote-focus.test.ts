/**
 * A vote keeps the keyboard on it, as every toggle does: pressing Helpful or Not helpful, and
 * closing Not helpful's reasons (Send feedback or Cancel), leave the focus on the vote, now
 * pressed, not in the message box. Copy keeps its place too.
 */
import { describe, expect, vi } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { deepActiveElement, fixtureChat, settled } from '../../../helpers/chat-fixture.js';

/** Longer than the panel's focus keeper looks after a click (and the feedback request takes). */
const afterTheClick = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('<agent-chat> answer actions keep the focus', () => {
  test('Helpful and Not helpful by keyboard stay focused and pressed', async ({ backend }) => {
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    const helpful = page.getByRole('button', { name: 'Helpful', exact: true });
    (helpful.element() as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    await expect.element(helpful).toHaveAttribute('aria-pressed', 'true');
    await afterTheClick();
    expect(deepActiveElement()).toBe(helpful.element());

    await userEvent.keyboard('{Tab}');
    const notHelpful = page.getByRole('button', { name: 'Not helpful' });
    expect(deepActiveElement()).toBe(notHelpful.element());
    await userEvent.keyboard(' ');
    await expect.element(notHelpful).toHaveAttribute('aria-pressed', 'true');
    await expect.element(page.getByRole('form', { name: 'What went wrong?' })).toBeVisible();
    expect(deepActiveElement()).toBe(notHelpful.element());
  });

  for (const close of ['Send feedback', 'Cancel'] as const) {
    test(`${close} in the reasons returns the focus to Not helpful, pressed`, async ({ backend }) => {
      const el = await fixtureChat();
      await el.send('How do I theme it?');
      await settled(el);
      const notHelpful = page.getByRole('button', { name: 'Not helpful' });
      await userEvent.click(notHelpful);
      const reasons = page.getByRole('form', { name: 'What went wrong?' });
      await userEvent.click(reasons.getByRole('checkbox', { name: 'Incorrect' }));
      (reasons.getByRole('button', { name: close }).element() as HTMLElement).focus();
      await userEvent.keyboard('{Enter}');
      await expect.element(reasons).not.toBeInTheDocument();
      await afterTheClick();
      expect(deepActiveElement()).toBe(notHelpful.element());
      await expect.element(notHelpful).toHaveAttribute('aria-pressed', 'true');
      await chaiExpect(el).to.be.accessible();
      // Both closings leave the downvote itself sent; Send feedback adds its reasons.
      await expect
        .poll(() => backend.serviceRequests.filter((r) => r.url.endsWith('/feedback/')).length)
        .toBe(close === 'Cancel' ? 1 : 2);
    });
  }

  test('Escape in the reasons closes them, not the floating panel, and returns to Not helpful', async ({
    backend,
  }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    await el.send('How do I theme it?');
    await settled(el);
    const notHelpful = page.getByRole('button', { name: 'Not helpful' });
    await userEvent.click(notHelpful);
    const reasons = page.getByRole('form', { name: 'What went wrong?' });
    await userEvent.click(reasons.getByRole('textbox', { name: 'Tell us more (optional)' }));
    await userEvent.keyboard('It answered another question{Escape}');
    await expect.element(reasons).not.toBeInTheDocument();
    expect(el.opened).toBe(true);
    await afterTheClick();
    expect(deepActiveElement()).toBe(notHelpful.element());
    // The next Escape is the panel's, as from any other control in it.
    await userEvent.keyboard('{Escape}');
    await expect.poll(() => el.opened).toBe(false);
  });

  test('Copy answer keeps the focus on the button, which says Copied', async ({ backend }) => {
    vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue();
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    await userEvent.click(page.getByRole('button', { name: 'Copy answer' }));
    const copied = page.getByRole('button', { name: 'Copied' });
    await expect.element(copied).toBeVisible();
    await afterTheClick();
    expect(deepActiveElement()).toBe(copied.element());
    vi.restoreAllMocks();
  });
});
