/**
 * The console from the keyboard when what held the focus goes: a removed admin's row, a revoked
 * key's Revoke button, a removed source, a button disabled while the console works (Save
 * synonyms). The focus must stay on the page (decision 710), not fall to <body>, where
 * the next Tab starts again from the top of the document.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scryptPasswords } from '../../service/node.js';
import { consoleInChromium, focusedText, open, openSources, service, settled } from './console-chromium.js';

consoleInChromium();

/** Presses `name`'s button by keyboard: focused, then Enter. */
async function press(page: Page, name: string) {
  await page.getByRole('button', { name, exact: true }).focus();
  await page.keyboard.press('Enter');
}

const onBody = async (page: Page) => (await focusedText(page)).startsWith('BODY');

describe('the console in Chromium: the focus when its control goes', () => {
  it('Admins: removing the last admin that can go leaves the focus on the admins table', async () => {
    await service.storage.accounts.createAdmin({
      username: 'zoe',
      passwordHash: await scryptPasswords.hash('zoe has a long password'),
      createdAt: Date.now(),
    });
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Admins', exact: true }).click();
    await page.getByRole('heading', { name: 'Admins', level: 1 }).waitFor();
    await settled(page);
    await press(page, 'Remove zoe');
    const dialog = page.getByRole('dialog', { name: 'Remove zoe?' });
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('BUTTON Remove admin');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    await expect.poll(() => onBody(page)).toBe(false);
    expect(
      await page.getByRole('region', { name: 'Console admins' }).evaluate((el) => el.matches(':focus')),
    ).toBe(true);
    await context.close();
  });

  it('API keys: Revoke, then End sessions, each gone with its press, leave the focus in the keys table', async () => {
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('textbox', { name: 'Key name', exact: true }).fill('Staging server');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByRole('textbox', { name: 'New API key' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await press(page, 'Revoke Staging server');
    await page.getByRole('dialog', { name: 'Revoke Staging server?' }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'End sessions of Staging server' }).waitFor();
    await expect.poll(() => onBody(page)).toBe(false);
    expect(
      await page.getByRole('region', { name: /^API keys of / }).evaluate((el) => el.matches(':focus')),
    ).toBe(true);
    await context.close();
  });

  it("Sources: Remove asks in the console's dialog; Escape gives the focus back, removing leaves it on the page", async () => {
    const { page, context } = await openSources();
    // The browser's confirm() (which a page may be barred from showing) is never what asks.
    page.on('dialog', (dialog) => void dialog.dismiss());
    const folder = page.getByRole('region', { name: /docs-site\/docs$/ });
    await folder.getByRole('button', { name: 'Remove' }).waitFor();
    await folder.getByRole('button', { name: 'Remove' }).focus();
    await page.keyboard.press('Enter');
    const ask = page.getByRole('dialog', { name: /^Remove .*docs-site\/docs\?$/ });
    expect(await ask.textContent()).toContain('no longer answer from its 6 pages');
    // The safe choice has the focus first.
    expect(await focusedText(page)).toBe('BUTTON Cancel');
    await page.keyboard.press('Escape');
    await expect.poll(() => ask.count()).toBe(0);
    expect(await focusedText(page)).toBe('BUTTON Remove');
    expect(await folder.count()).toBe(1);
    await page.keyboard.press('Enter');
    await ask.getByRole('button', { name: 'Remove source' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => folder.count()).toBe(0);
    await expect.poll(() => onBody(page)).toBe(false);
    expect(await focusedText(page)).toBe('H1 Sources');
    await context.close();
  });

  it('Sources: Save synonyms, pressed by keyboard, keeps the focus while it saves and after', async () => {
    const { page, context } = await openSources();
    const synonyms = page.getByRole('region', { name: 'Synonyms' });
    await synonyms
      .getByRole('textbox', { name: 'Words that mean the same on your site' })
      .fill('stuck, frozen');
    await press(page, 'Save synonyms');
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Saved 1 synonym group.');
    expect(await focusedText(page)).toBe('BUTTON Save synonyms');
    await synonyms.getByRole('textbox', { name: 'Words that mean the same on your site' }).fill('');
    await press(page, 'Save synonyms');
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Saved 0 synonym groups.');
    await context.close();
  });
});
