/**
 * The console's Admins page in Chromium (decisions 689-691): add an admin, remove one (their open
 * console lands on the sign-in form at its next call), change one's own password, sign out
 * everywhere else; axe-clean in light, dark and at 390 px.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scryptPasswords } from '../../service/node.js';
import { axe } from './console-site.js';
import { LOOKS, SHOTS, consoleInChromium, open, service, settled } from './console-chromium.js';

consoleInChromium();

/** Signs in on the form; the console opens on the page its address names (`lands`). */
async function signInAs(page: Page, username: string, password: string, lands = 'Activity') {
  await page.getByRole('textbox', { name: 'Username' }).fill(username);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: lands, level: 1 }).waitFor();
}

async function toAdmins(page: Page) {
  await page.getByRole('link', { name: 'Admins', exact: true }).click();
  await page.getByRole('heading', { name: 'Admins', level: 1 }).waitFor();
  await settled(page);
}

const addStored = async (username: string, password: string, role: 'admin' | 'viewer' = 'admin') =>
  service.storage.accounts.createAdmin({
    username,
    role,
    passwordHash: await scryptPasswords.hash(password),
    createdAt: Date.now(),
  });

describe('the console in Chromium: Admins', () => {
  it('adds an admin who can sign in, removes them, and their open console shows the sign-in form at its next call', async () => {
    const ada = await open({ signedIn: true });
    await toAdmins(ada.page);
    const table = ada.page.getByRole('region', { name: 'Console admins' });
    // The only admin cannot be removed, and is told why.
    await table.getByRole('row', { name: /ada you/ }).waitFor();
    expect(await table.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    await ada.page.getByText('You are the only admin').waitFor();

    await ada.page.getByRole('textbox', { name: /^Username/ }).fill('Bob');
    const password = ada.page.getByLabel(/^Password/);
    expect(await password.getAttribute('aria-describedby')).toBeTruthy();
    await password.fill('bob has a long password');
    await ada.page.getByRole('button', { name: 'Add admin' }).click();
    await expect
      .poll(() => ada.page.getByRole('status').first().textContent())
      .toBe('Added bob as an admin. They can sign in with the password you set.');
    await table.getByRole('row', { name: /bob\s/ }).waitFor();

    const bob = await open();
    await signInAs(bob.page, 'bob', 'bob has a long password');

    await table.getByRole('button', { name: 'Remove bob' }).click();
    const dialog = ada.page.getByRole('dialog', { name: 'Remove bob?' });
    await dialog.getByText(/signed out at once, on every device/).waitFor();
    expect(await axe(ada.page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Remove admin' }).click();
    await expect.poll(() => table.getByRole('row', { name: /bob\s/ }).count()).toBe(0);

    // Bob's console, still open, asks for its next page: the service answers 401, the form follows.
    await bob.page.getByRole('link', { name: 'API keys', exact: true }).click();
    await bob.page.getByRole('button', { name: 'Sign in' }).waitFor();
    await bob.page.getByRole('textbox', { name: 'Username' }).fill('bob');
    await bob.page.getByRole('textbox', { name: 'Password' }).fill('bob has a long password');
    await bob.page.getByRole('button', { name: 'Sign in' }).click();
    await bob.page.getByRole('alert').getByText('Wrong username or password.').waitFor();

    await ada.page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await ada.page.getByRole('cell', { name: 'Removed an admin bob' }).waitFor();
    await ada.page.getByRole('cell', { name: 'Added an admin bob' }).waitFor();
    expect(await ada.violations()).toEqual([]);
    expect(ada.errors).toEqual([]);
    await ada.context.close();
    await bob.context.close();
  });

  it('changes their own password (the current one first) and signs out their other sessions', async () => {
    await addStored('carol', 'carol has a long password');
    const here = await open();
    await signInAs(here.page, 'carol', 'carol has a long password');
    const laptop = await open();
    await signInAs(laptop.page, 'carol', 'carol has a long password');
    const phone = await open();
    await signInAs(phone.page, 'carol', 'carol has a long password');
    await toAdmins(here.page);
    const account = here.page.getByRole('region', { name: 'Your account' });

    await account.getByLabel('Current password').fill('not my password');
    await account.getByLabel(/^New password/).fill('carol has a newer password');
    await account.getByRole('button', { name: 'Change password' }).click();
    await account.getByRole('alert').getByText('The current password is wrong.').waitFor();

    await account.getByLabel('Current password').fill('carol has a long password');
    await account.getByLabel(/^New password/).fill('carol has a newer password');
    await account.getByRole('button', { name: 'Change password' }).click();
    // Two hashes at the service's real cost (the current password checked, the new one hashed):
    // 0.4 s each on a quiet machine, past 2 s each on a loaded one (a CI run passed the 5 s poll).
    await expect
      .poll(() => account.getByRole('status').textContent(), { timeout: 20_000 })
      .toBe('Password changed. Your 2 other sessions were signed out.');
    await laptop.page.getByRole('link', { name: 'Admins', exact: true }).click();
    await laptop.page.getByRole('button', { name: 'Sign in' }).waitFor();

    await signInAs(laptop.page, 'carol', 'carol has a newer password', 'Admins');
    await account.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect
      .poll(() => account.getByRole('status').textContent())
      .toBe('Your other session was signed out.');
    await laptop.page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await laptop.page.getByRole('button', { name: 'Sign in' }).waitFor();
    // This console goes on.
    await here.page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await here.page.getByRole('cell', { name: 'Signed out their other sessions' }).first().waitFor();
    await here.page.getByRole('cell', { name: 'Set a new password for carol' }).first().waitFor();
    for (const opened of [here, laptop, phone]) await opened.context.close();
    // Each sign-in and each password change is a scrypt hash at the service's own cost.
  }, 120_000);

  it("a viewer reads without the admins' pages and controls, and is told why; an admin gives them a role, found by the Audit log's filters", async () => {
    await addStored('vera', 'vera has a long password', 'viewer');
    const vera = await open();
    await signInAs(vera.page, 'vera', 'vera has a long password');
    const nav = vera.page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Conversations', exact: true }).waitFor();
    expect(await nav.getByRole('link', { name: 'API keys', exact: true }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Audit log', exact: true }).count()).toBe(0);
    expect(await vera.page.getByRole('button', { name: 'New project' }).count()).toBe(0);

    await nav.getByRole('link', { name: 'Conversations', exact: true }).click();
    await vera.page
      .getByText(/signed in as a viewer, so you can read every conversation but not download them all/)
      .waitFor();
    expect(await vera.page.getByRole('link', { name: 'Download CSV' }).count()).toBe(0);

    await nav.getByRole('link', { name: 'Integrations', exact: true }).click();
    await vera.page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    await settled(vera.page);
    expect(await vera.page.getByRole('button', { name: 'Add integration' }).count()).toBe(0);
    expect(await vera.page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    expect(await vera.page.getByRole('textbox', { name: 'Name', exact: true }).isDisabled()).toBe(true);
    expect(await axe(vera.page)).toEqual([]);

    await toAdmins(vera.page);
    expect(await vera.page.getByRole('button', { name: 'Add admin' }).count()).toBe(0);
    expect(await vera.page.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    await vera.page.getByRole('region', { name: 'Your account' }).waitFor();

    // An address kept from elsewhere says why it shows nothing.
    await vera.page.goto(vera.page.url().replace(/admins(\?|$)/, 'keys$1'));
    await vera.page.getByText(/Only an admin can see the API keys: you are signed in as a viewer/).waitFor();

    const ada = await open({ signedIn: true });
    await toAdmins(ada.page);
    await ada.page.getByRole('combobox', { name: 'Role of vera' }).selectOption('admin');
    await expect
      .poll(() => ada.page.getByRole('status').first().textContent())
      .toBe('vera is now an admin, from their next click in the console.');
    await ada.page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await ada.page.getByRole('combobox', { name: 'What' }).selectOption('admin.role');
    await expect.poll(() => new URL(ada.page.url()).searchParams.get('action')).toBe('admin.role');
    const entries = ada.page.getByRole('region', { name: 'Audit log entries' });
    await expect.poll(() => entries.getByRole('row').count()).toBe(2);
    await entries.getByRole('cell', { name: /Changed the role of vera/ }).waitFor();
    // The Who box offers the admins by name; a name typed narrows the search.
    expect(await ada.page.locator('datalist#actors option[value="vera"]').count()).toBe(1);
    await ada.page.getByRole('combobox', { name: 'Who' }).fill('vera');
    await ada.page.getByRole('combobox', { name: 'Who' }).press('Enter');
    await expect.poll(() => new URL(ada.page.url()).searchParams.get('actor')).toBe('vera');
    await entries.getByText('No entry matches these filters.').waitFor();
    // A screen reader hears what a filter found, not only a table that changed.
    const found = ada.page.getByRole('status').filter({ hasText: /these filters\.$/ });
    await expect.poll(() => found.textContent()).toBe('No entry matches these filters.');
    await ada.page.getByRole('combobox', { name: 'Who' }).fill('ada');
    await ada.page.getByRole('combobox', { name: 'Who' }).press('Enter');
    await expect.poll(() => entries.getByRole('row').count()).toBe(2);
    await expect.poll(() => found.textContent()).toBe('1 entry matches these filters.');
    // The address is the search: opened again, it shows the same.
    await ada.page.reload();
    await expect.poll(() => entries.getByRole('row').count()).toBe(2);
    expect(await ada.page.getByRole('combobox', { name: 'What' }).inputValue()).toBe('admin.role');
    expect(await ada.page.getByRole('combobox', { name: 'Who' }).inputValue()).toBe('ada');
    expect(await axe(ada.page)).toEqual([]);
    expect(vera.errors).toEqual([]);
    expect(ada.errors).toEqual([]);
    await vera.context.close();
    await ada.context.close();
  }, 120_000);

  it("a viewer's pages are axe-clean in light, dark and at 390 px (screenshots to look at)", async () => {
    await addStored('walt', 'walt has a long password', 'viewer');
    for (const look of LOOKS) {
      const { page, context, errors, violations } = await open(look);
      await signInAs(page, 'walt', 'walt has a long password');
      for (const label of ['Conversations', 'Integrations', 'Sources', 'Notifications', 'Admins']) {
        await page
          .getByRole('navigation', { name: 'Console' })
          .getByRole('link', { name: label, exact: true })
          .click();
        await page.getByRole('heading', { name: label, level: 1 }).waitFor();
        await settled(page);
        expect(await axe(page), `${label} ${look.name}`).toEqual([]);
        if (SHOTS)
          await page.screenshot({
            path: `${SHOTS}/${label.toLowerCase()}-viewer-${look.name}.png`,
            fullPage: true,
          });
      }
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 120_000);

  it('is axe-clean in light, dark and at 390 px (screenshots to look at)', async () => {
    for (const look of LOOKS) {
      const { page, context, errors, violations } = await open({ ...look, signedIn: true });
      await toAdmins(page);
      expect(await axe(page), look.name).toEqual([]);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/admins-${look.name}.png`, fullPage: true });
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
