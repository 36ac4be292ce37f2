import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';
import { ask, openWatched } from './chromium.js';
import { startPublicService, staticSite } from './public-site.js';

/**
 * An intranet or self-hosted docs site served over plain http at a name other than localhost:
 * the browser makes the page an insecure context, where `crypto.subtle`, `navigator.locks`,
 * `navigator.clipboard` and `crypto.randomUUID` are missing. The browser resolves `docs.test`
 * to the loopback, so the page is that site's while its server is the test's.
 */
const HOST = 'docs.test';

let browser: Browser;
let service: Awaited<ReturnType<typeof startPublicService>>;
let site: Awaited<ReturnType<typeof staticSite>>;
let origin: string;

beforeAll(async () => {
  site = await staticSite(() => service);
  origin = site.origin.replace('127.0.0.1', HOST);
  const options = chromiumLaunchOptions();
  [browser, service] = await Promise.all([
    chromium.launch({ ...options, args: [...options.args, `--host-resolver-rules=MAP ${HOST} 127.0.0.1`] }),
    startPublicService(origin),
  ]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service?.running.close();
  await site?.close();
});

describe('a static site served over plain http: an insecure context', () => {
  it('the page has none of the secure-context APIs, and a public session still starts: the question is answered', async () => {
    const { page, errors, violations } = await openWatched(browser, origin);
    expect(
      await page.evaluate(() => ({
        secure: isSecureContext,
        subtle: typeof crypto.subtle,
        locks: typeof navigator.locks,
        clipboard: typeof navigator.clipboard,
        randomUUID: typeof crypto.randomUUID,
      })),
    ).toEqual({
      secure: false,
      subtle: 'undefined',
      locks: 'undefined',
      clipboard: 'undefined',
      randomUUID: 'undefined',
    });
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const answer = await ask(page, 'How do I theme the widget?');
    expect(answer).toContain('Style the widget from your page');
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('Copy answer says it failed (there is no clipboard), where it can be seen; nothing thrown', async () => {
    const { page, errors } = await openWatched(browser, origin);
    await ask(page, 'How do I theme the widget?');
    await page.locator('agent-chat').getByRole('button', { name: 'Copy answer' }).click();
    await page.locator('agent-chat').getByText('Copy failed').first().waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('two tabs without Web Locks: a question asked offline in one is shown queued in the other, and asked once back online', async () => {
    const context = await browser.newContext();
    const chats: string[] = [];
    context.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/agent/chat/')) chats.push(r.url());
    });
    const first = await context.newPage();
    await first.goto(origin);
    await ask(first, 'How do I theme the widget?');
    const second = await context.newPage();
    await second.goto(origin);
    await second.locator('agent-chat').getByText('Style the widget from your page').first().waitFor();
    expect(await second.evaluate(() => typeof navigator.locks)).toBe('undefined');
    const before = chats.length;
    await context.setOffline(true);
    const box = first.locator('agent-chat').getByRole('textbox', { name: 'Message' });
    await box.fill('Is it safe against XSS?');
    await first.locator('agent-chat').getByRole('button', { name: 'Send' }).click();
    await second.locator('agent-chat').locator('.outbox').getByText('Is it safe against XSS?').waitFor();
    await context.setOffline(false);
    for (const tab of [first, second])
      await tab
        .locator('agent-chat')
        .getByText('How answers are rendered safely')
        .first()
        .waitFor({ timeout: 15_000 });
    await first.waitForTimeout(1000);
    expect(chats.length - before).toBe(1);
    await context.close();
  });

  it('a file is attached, uploaded and sent with the question, and the answer names it', async () => {
    const { page, errors, violations } = await openWatched(browser, origin);
    const widget = page.locator('agent-chat');
    await widget.getByRole('button', { name: 'Attach files' }).waitFor();
    await widget
      .locator('input[type=file]')
      .setInputFiles({ name: 'app.log', mimeType: 'text/plain', buffer: Buffer.from('ERROR 401') });
    await widget.getByRole('button', { name: 'Remove app.log' }).waitFor();
    await widget.locator('.chip.ready').waitFor();
    expect(await ask(page, 'What does this error mean?')).toContain('app.log');
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
