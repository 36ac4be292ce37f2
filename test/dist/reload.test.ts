import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoAgent } from '../../service/index.js';
import { launchChromium } from './chromium.js';
import { startSite, visitorOwnerKey } from './static-site.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** The messages the widget shows: role, status and text, read through its shadow roots. */
function shown(page: Page): Promise<{ role: string; status: string; text: string }[]> {
  return page.evaluate(() => {
    const el = document.querySelector('agent-chat');
    const list = el?.shadowRoot?.querySelector('agent-chat-message-list');
    return [...(list?.shadowRoot?.querySelectorAll('agent-chat-message') ?? [])].map((node) => {
      const message = (node as unknown as { message: { role: string; status: string; content: string } })
        .message;
      return {
        role: message.role,
        status: message.status,
        text:
          message.role === 'user'
            ? message.content
            : (node.shadowRoot?.querySelector('.content')?.textContent?.trim() ?? ''),
      };
    });
  });
}

async function ask(page: Page, question: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
}

describe('a real page reload (the classic script, a demo agent that writes a word every 40 ms)', () => {
  it('a conversation restored after one reload reattaches to its own last answer after a second', async () => {
    const site = await startSite({ script: 'iife', agent: new DemoAgent({ wordDelayMs: 40 }) });
    const chats: string[] = [];
    try {
      const page = await browser.newPage();
      page.on('request', (r) => r.method() === 'POST' && r.url().endsWith('/chat/') && chats.push(r.url()));
      await page.goto(site.origin);
      await ask(page, 'How do I theme it?');
      await expect.poll(() => shown(page), { timeout: 15_000 }).toMatchObject([{}, { status: 'complete' }]);

      await page.reload();
      await expect.poll(() => shown(page)).toMatchObject([{ role: 'user' }, { status: 'complete' }]);
      await ask(page, 'How do tokens work?');
      await expect.poll(async () => (await shown(page)).length).toBe(4);
      await page.waitForTimeout(1200);
      await page.reload();

      // The second answer is the one reattached to and completed; the first is untouched.
      await expect
        .poll(() => shown(page), { timeout: 15_000 })
        .toMatchObject([
          { role: 'user', text: 'How do I theme it?' },
          { status: 'complete', text: expect.stringContaining('Style the widget') },
          { role: 'user', text: 'How do tokens work?' },
          { status: 'complete', text: expect.not.stringContaining('**') },
        ]);
      const messages = await shown(page);
      expect(messages[3].text).not.toContain('Style the widget');
      expect(messages[1].text.match(/Style the widget from your page/g)).toHaveLength(1);
      expect(chats).toHaveLength(2);
      await page.close();
    } finally {
      await site.close();
    }
  });
});

describe('two real tabs of one visitor (the same owner-key), both panels open on the start screen', () => {
  for (const mode of ['inline', 'launcher'] as const)
    it(`a question asked and answered in one shows in the other within 5 s (${mode})`, async () => {
      const site = await startSite({ script: 'iife', mode, ownerKey: await visitorOwnerKey() });
      try {
        const context = await browser.newContext();
        const [first, second] = [await context.newPage(), await context.newPage()];
        for (const page of [first, second]) {
          await page.goto(site.origin);
          if (mode === 'launcher') await page.getByRole('button', { name: 'Open chat' }).click();
          await page.getByRole('textbox', { name: 'Message' }).waitFor();
        }
        await ask(first, 'How do I theme it?');
        await expect
          .poll(() => shown(first), { timeout: 15_000 })
          .toMatchObject([{}, { status: 'complete' }]);
        const answered = Date.now();
        await expect
          .poll(() => shown(second), { timeout: 5000 })
          .toMatchObject([{ text: 'How do I theme it?' }, { status: 'complete' }]);
        expect(Date.now() - answered).toBeLessThan(5000);
        await context.close();
      } finally {
        await site.close();
      }
    });
});
