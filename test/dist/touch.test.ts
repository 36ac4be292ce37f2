import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.js';
import { startSite } from './static-site.js';

let browser: Browser;
let site: Awaited<ReturnType<typeof startSite>>;
beforeAll(async () => {
  [browser, site] = await Promise.all([launchChromium(), startSite({ script: 'iife' })]);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** Asks `question` through the real UI and waits until that many answers have finished. */
async function ask(page: Page, question: string, answers: number): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.waitForFunction(
    (count) => {
      const list = document.querySelector('agent-chat')?.shadowRoot?.querySelector('agent-chat-message-list');
      const done = Array.from(list?.shadowRoot?.querySelectorAll('agent-chat-message') ?? []).filter(
        (m) =>
          (m as unknown as { message?: { role: string; status: string } }).message?.status === 'complete',
      );
      return done.length === count;
    },
    answers,
    { timeout: 15_000 },
  );
}

/** The opacity of each answer's action row, oldest first. */
function actionRows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const list = document.querySelector('agent-chat')!.shadowRoot!.querySelector('agent-chat-message-list')!;
    return Array.from(list.shadowRoot!.querySelectorAll('agent-chat-message[aria-label="Assistant"]')).map(
      (m) => getComputedStyle(m.shadowRoot!.querySelector('.actions')!).opacity,
    );
  });
}

// A context of its own per case: touch emulation cannot be turned back off in a page.
describe('the action row by input device (built widget)', () => {
  for (const [device, hasTouch, expected] of [
    ['a touch screen: under every answer', true, ['1', '1']],
    ['a mouse: under the latest answer only', false, ['0', '1']],
  ] as const) {
    it(`with ${device}`, async () => {
      const context = await browser.newContext({ hasTouch, reducedMotion: 'reduce' });
      try {
        const page = await context.newPage();
        await page.goto(site.origin);
        expect(await page.evaluate(() => matchMedia('(hover: none)').matches)).toBe(hasTouch);
        await ask(page, 'How do I theme it?', 1);
        await ask(page, 'Can I use it with React?', 2);
        await page.mouse.move(0, 0);
        await expect.poll(() => actionRows(page)).toEqual(expected);
      } finally {
        await context.close();
      }
    });
  }
});
