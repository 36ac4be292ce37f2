/**
 * The console's date fields (Activity, Conversations, Audit log: From and To) take the keyboard
 * in one of their segments (month, day, year), which Chromium highlights; Tab moves between
 * them. The field must show the console's focus ring on every segment, as every other field
 * does, or a keyboard user sees only a tinted number: once Tab moved from the first segment to
 * the next, Chromium's field matched neither `:focus` nor `:focus-visible`, only `:focus-within`.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { consoleInChromium, open, settled } from './console-chromium.js';

consoleInChromium();

/** The focused field's outline, read on the element the page's shadow roots lead to. */
const focusedOutline = (page: Page) =>
  page.evaluate(() => {
    let at: Element | null = document.activeElement;
    while (at?.shadowRoot?.activeElement) at = at.shadowRoot.activeElement;
    const style = at ? getComputedStyle(at) : null;
    return `${at?.tagName} ${(at as HTMLInputElement | null)?.type} ${style?.outlineStyle} ${style?.outlineWidth}`;
  });

describe('the console in Chromium: date fields from the keyboard', () => {
  for (const [tab, heading] of [
    ['Audit log', 'Audit log'],
    ['Conversations', 'Conversations'],
    ['Activity', 'Activity'],
  ] as const) {
    it(`${tab}: From and To show the focus ring when Tab reaches them`, async () => {
      const { page, context } = await open({ signedIn: true });
      await page.getByRole('link', { name: tab, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await settled(page);
      for (const name of ['From', 'To']) {
        const field = page.getByLabel(name, { exact: true }).first();
        // From the keyboard: focus what precedes the field, then Tab into it.
        await field.evaluate((input) => {
          const before = [
            ...(input.getRootNode() as ShadowRoot).querySelectorAll<HTMLElement>('input, select, button'),
          ];
          before[before.indexOf(input as HTMLElement) - 1]?.focus();
        });
        await page.keyboard.press('Tab');
        expect(await focusedOutline(page)).toBe('INPUT date solid 2px');
        // Tab on to the day, then the year: the same field, still ringed.
        for (const segment of ['day', 'year']) {
          await page.keyboard.press('Tab');
          expect(`${segment}: ${await focusedOutline(page)}`).toBe(`${segment}: INPUT date solid 2px`);
        }
      }
      await context.close();
    });
  }
});

describe('the console in Chromium: a period out of order', () => {
  it('Activity: a From after To is said beside the fields, with the period the figures still show', async () => {
    const { page, context } = await open({ signedIn: true });
    await settled(page);
    const period = await page
      .getByRole('heading', { name: 'Activity', level: 1 })
      .locator('xpath=following-sibling::p')
      .textContent();
    const from = page.getByRole('textbox', { name: 'From', exact: true });
    const to = page.getByRole('textbox', { name: 'To', exact: true });
    const end = await to.inputValue();
    // The year after To's: the fields read a period backwards, which no figures are of.
    await from.fill(`${Number(end.slice(0, 4)) + 1}${end.slice(4)}`);
    const said = page.getByRole('alert');
    await expect
      .poll(() => said.textContent())
      .toMatch(/^From is after To: .*The figures are still those of \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\.$/);
    expect(period).toContain((await said.textContent())!.match(/\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d/)![0]);
    expect(await from.getAttribute('aria-invalid')).toBe('true');
    // A period in order puts it away.
    await page.getByRole('button', { name: '7 days' }).click();
    await expect.poll(() => said.count()).toBe(0);
    expect(await from.getAttribute('aria-invalid')).toBeNull();
    await context.close();
  });
});
