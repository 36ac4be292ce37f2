import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../contract/owner-key.js';
import { answered, giveHtmlSinkAString, openWatched, painted } from './chromium.js';
import { listen } from './public-site.js';
import { PUBLIC_NEEDS_ORIGIN } from '../../contract/console.js';
import { ADMIN, FAILURE, PROJECT, axe, startSite } from './console-site.js';
import { scryptPasswords } from '../../service/node.js';
import {
  LOOKS,
  SHOTS,
  browser,
  cleanup,
  consoleInChromium,
  description,
  focusedText,
  open,
  service,
  settled,
  signIn,
} from './console-chromium.js';

const PAGES = [
  { link: 'Activity', file: 'activity' },
  { link: 'Conversations', file: 'conversations' },
  { link: 'Integrations', file: 'integrations' },
  { link: 'API keys', file: 'api-keys' },
  { link: 'Sources', file: 'sources' },
  { link: 'Notifications', file: 'notifications' },
  { link: 'Admins', file: 'admins' },
  { link: 'Audit log', file: 'audit-log' },
];

consoleInChromium();

/**
 * Measured in the page at a phone's width: the page's width against the viewport, every
 * visible control (through shadow roots) that is not wholly on screen, unless it sits in a
 * sideways scroller made for it (a code block) that fits; the current tab; the navigation's tabs
 * not wholly on screen and the rows they take; the space between the navigation and the page.
 */
function phoneFit() {
  const viewport = innerWidth;
  const all = function* (root: Document | ShadowRoot): Generator<Element> {
    for (const el of root.querySelectorAll('*')) {
      yield el;
      if (el.shadowRoot) yield* all(el.shadowRoot);
    }
  };
  const parent = (el: Element) => el.parentElement ?? ((el.getRootNode() as ShadowRoot).host || null);
  const scroller = (el: Element) => {
    for (let up = parent(el); up; up = parent(up)) {
      const style = getComputedStyle(up);
      if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && up.scrollWidth > up.clientWidth)
        return up;
    }
    return null;
  };
  const offscreen: string[] = [];
  const scrolling: string[] = [];
  let nav: HTMLElement | null = null;
  let current: Element | null = null;
  let main: Element | null = null;
  for (const el of all(document)) {
    if (el.matches('nav[aria-label="Console"] ul')) nav = el as HTMLElement;
    if (el.matches('nav[aria-label="Console"] [aria-current="page"]')) current = el;
    if (el.localName === 'main' && (el.getRootNode() as ShadowRoot).host?.localName === 'console-app')
      main = el;
    // Only code and an answer's own wide table may scroll sideways; a table of records, or the navigation, may not.
    const overflow = getComputedStyle(el).overflowX;
    if (
      (overflow === 'auto' || overflow === 'scroll') &&
      el.scrollWidth > el.clientWidth + 1 &&
      el.checkVisibility() &&
      !el.matches('pre, .markdown .table-wrap')
    ) {
      scrolling.push(
        `${el.localName}.${[...el.classList].join('.')} (${el.scrollWidth} in ${el.clientWidth})`,
      );
    }
    if (
      !el.matches('button, a[href], input, select, textarea, summary, [tabindex="0"]') ||
      !el.checkVisibility()
    )
      continue;
    const rect = el.getBoundingClientRect();
    if (!rect.width || !rect.height) continue;
    // On screen, and not cut off by a box that scrolls sideways (a table in a scroller, say).
    const box = scroller(el);
    const clip = box?.getBoundingClientRect() ?? { left: 0, right: viewport };
    const fits = (r: { left: number; right: number }) => r.left >= -0.5 && r.right <= viewport + 0.5;
    if (fits(rect) && rect.left >= clip.left - 0.5 && rect.right <= clip.right + 0.5) continue;
    // Code blocks scroll by design (with a shadow at the edge).
    if (box?.matches('pre') && fits(clip)) continue;
    offscreen.push(
      `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}" at ${Math.round(rect.left)}–${Math.round(rect.right)}`,
    );
  }
  // Nothing of the page spills out of its own box (into the margin the phone keeps around it).
  const host = main!.querySelector('[data-page]');
  const spill: string[] = [];
  if (host?.shadowRoot) {
    const edge = host.getBoundingClientRect();
    for (const el of host.shadowRoot.querySelectorAll('*')) {
      if (!el.checkVisibility() || scroller(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width && (r.left < edge.left - 0.5 || r.right > edge.right + 0.5))
        spill.push(
          `${el.localName}.${[...el.classList].join('.')} ${Math.round(r.left)}–${Math.round(r.right)} of ${Math.round(edge.left)}–${Math.round(edge.right)}`,
        );
    }
  }
  const tab = current?.getBoundingClientRect();
  const row = nav?.getBoundingClientRect();
  return {
    viewport,
    pageWidth: document.scrollingElement!.scrollWidth,
    offscreen,
    scrolling,
    spill: spill.slice(0, 5),
    current: {
      name: current?.textContent?.trim(),
      visible: !!tab && !!row && tab.left >= row.left && tab.right <= row.right && tab.right <= viewport,
    },
    tabs: {
      hidden: [...(nav?.querySelectorAll('a') ?? [])]
        .filter((a) => {
          const r = a.getBoundingClientRect();
          return !r.width || r.left < -0.5 || r.right > viewport + 0.5;
        })
        .map((a) => a.textContent?.trim()),
      rows: new Set(
        [...(nav?.querySelectorAll('a') ?? [])].map((a) => Math.round(a.getBoundingClientRect().top)),
      ).size,
    },
    gapUnderNav: Math.round(main!.getBoundingClientRect().top - nav!.getBoundingClientRect().bottom),
  };
}

/**
 * A visitor of a static page with the public tag asks the project (it answers from its own
 * docs, the Acme site); the elements of the answer's content, by tag name.
 */
async function visitorAsks(page: Page): Promise<string[]> {
  await page.getByRole('button', { name: 'Open chat' }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('How much memory does Acme need?');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('2 GB of memory').first().waitFor({ timeout: 15_000 });
  await answered(page);
  return page.evaluate(() => {
    const list = document.querySelector('agent-chat')?.shadowRoot?.querySelector('agent-chat-message-list');
    const answer = [...(list?.shadowRoot?.querySelectorAll('agent-chat-message') ?? [])].at(-1);
    return [...(answer?.shadowRoot?.querySelectorAll('.content *') ?? [])].map((e) => e.tagName);
  });
}

const mint = (apiKey: string) =>
  fetch(`${service.url}/agent/v1/projects/${PROJECT.id}/agent/sessions/`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
    body: '{"external_owner_id":"erin"}',
  });

describe('the console in Chromium', () => {
  it('signs in: a wrong password is refused in words, the right one opens Activity; the sign-in page is axe-clean', async () => {
    const { page, context, violations } = await open();
    await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
    await page.getByRole('textbox', { name: 'Password' }).fill('not my password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong username or password.');
    expect(await axe(page)).toEqual([]);
    // Enter in the password box submits (a form, not a click handler).
    await page.getByRole('textbox', { name: 'Password' }).fill(ADMIN.password);
    await page.getByRole('textbox', { name: 'Password' }).press('Enter');
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    // The sign-in form is gone with the focus it held: the page's heading takes it, as after a
    // navigation, so a keyboard or screen-reader user is not dropped back to the document's start.
    await expect.poll(() => focusedText(page)).toBe('H1 Activity');
    const cookie = (await context.cookies()).find((c) => c.name === 'agent_chat_console')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console/' });
    expect(await violations()).toEqual([]);
    // Trusted Types are enforced: a string given to an HTML sink is refused (the canary that
    // makes every console test's zero violations mean the console has no such sink).
    expect(await giveHtmlSinkAString(page)).toBe('TypeError');
    await expect.poll(violations).toEqual([expect.stringMatching(/^require-trusted-types-for/)]);
    await context.close();
  });

  for (const look of LOOKS) {
    it(`every page ${look.name === '390' ? 'at 390 px' : `in ${look.name}`} is axe-clean, under the CSP, without errors`, async () => {
      const { page, context, errors, violations } = await open(look);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/sign-in-${look.name}.png`, fullPage: true });
      await signIn(page);
      for (const { link, file } of PAGES) {
        await page.getByRole('link', { name: link, exact: true }).click();
        await page.getByRole('heading', { name: link, level: 1 }).waitFor();
        await settled(page);
        if (link === 'Conversations') {
          await page.getByRole('link', { name: /Is the widget safe against XSS/ }).click();
          await page.getByRole('heading', { name: 'Is the widget safe against XSS?', level: 2 }).waitFor();
        }
        if (link === 'Sources') {
          await page
            .getByText(/^\d+ failures?$/)
            .first()
            .click();
          await page.getByRole('searchbox', { name: 'Question' }).fill('How much memory does Acme need?');
          await page.getByRole('button', { name: 'Search', exact: true }).click();
          await page.getByRole('list', { name: /Sections for/ }).waitFor();
        }
        if (link === 'Activity') {
          // Away from a chart its legend reads one dash for every value, the day's too.
          const legend = await page.locator('activity-chart .u-legend').first().textContent();
          expect(legend).toContain('—');
          expect(legend).not.toContain('--');
        }
        if (link === 'Integrations') {
          // A field sits in its label: what is typed reads as text, not in the label's weight.
          const name = page.getByRole('textbox', { name: 'Name', exact: true }).first();
          expect(await name.evaluate((field) => getComputedStyle(field).fontWeight)).toBe('400');
        }
        // A checkbox keeps one size: not a field's 36 px height, not squeezed by its words at 390 px.
        const boxes = await page
          .getByRole('checkbox')
          .evaluateAll((all) => all.map((box) => `${box.clientWidth}x${box.clientHeight}`));
        expect(
          boxes.filter((size) => size !== '18x18'),
          link,
        ).toEqual([]);
        const found = await axe(page);
        expect(found, `${link} (${look.name}): ${found.join('; ')}`).toEqual([]);
        if (SHOTS) {
          // Filling a form low on a page scrolls it; a page is shot from its top, as it opens.
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.screenshot({ path: `${SHOTS}/${file}-${look.name}.png`, fullPage: true });
        }
      }
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('fits a 390 px phone: no page scrolls sideways, every control is on screen, the navigation shows every page and where you are', async () => {
    const { page, context } = await open({ ...LOOKS[2], signedIn: true });
    const nav = page.getByRole('navigation', { name: 'Console' });
    for (const { link } of PAGES) {
      await nav.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: link, level: 1 }).waitFor();
      // A fresh load (nothing scrolled yet) must show the current tab by itself.
      await page.reload();
      await page.getByRole('heading', { name: link, level: 1 }).waitFor();
      await settled(page);
      if (link === 'Conversations') {
        await page.getByRole('link', { name: /Is the widget safe against XSS/ }).click();
        await page
          .getByRole('article', { name: /^Assistant/ })
          .getByText('untrusted', { exact: true })
          .waitFor();
      }
      if (link === 'Sources') {
        await page.getByRole('searchbox', { name: 'Question' }).fill('what is max_locks_per_transaction');
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.getByRole('list', { name: /Sections for/ }).waitFor();
      }
      const fit = await page.evaluate(phoneFit);
      expect(fit.pageWidth, `${link}: the page scrolls sideways`).toBeLessThanOrEqual(fit.viewport);
      expect(fit.offscreen, `${link}: controls off screen`).toEqual([]);
      expect(fit.scrolling, `${link}: boxes that scroll sideways`).toEqual([]);
      expect(fit.spill, `${link}: parts wider than the page`).toEqual([]);
      expect(fit.current, `${link}: the current tab`).toEqual({ name: link, visible: true });
      // Every tab is in view, on two rows: none hides past an edge (decision 709).
      expect(fit.tabs, link).toEqual({ hidden: [], rows: 2 });
      // No blank band: the page starts right under the navigation (its padding and the header's border).
      expect(fit.gapUnderNav, link).toBeLessThanOrEqual(12);
    }
    // Each key's actions are on screen (they were cut off in a sideways-scrolling table).
    await nav.getByRole('link', { name: 'API keys', exact: true }).click();
    const revoke = page.getByRole('button', { name: 'Revoke Start-up key' });
    const box = (await revoke.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.getByRole('row').filter({ hasText: 'Start-up key' }).getByRole('cell').count()).toBe(6);
    await revoke.click();
    await page
      .getByRole('dialog', { name: 'Revoke Start-up key?' })
      .getByRole('button', { name: 'Cancel' })
      .click();
    await context.close();
  });

  it('reflows at 320 px in forced colours: every period is whole, and what is pressed or selected shows', async () => {
    // 1280 px at 400 % zoom (WCAG 1.4.10), with Windows High Contrast, which drops backgrounds.
    const { page, context } = await open({ viewport: { width: 320, height: 640 }, signedIn: true });
    await page.emulateMedia({ forcedColors: 'active' });
    await settled(page);
    const periods = page.getByRole('group', { name: 'Period' });
    const group = (await periods.boundingBox())!;
    const buttons = await periods.getByRole('button').all();
    expect(buttons).toHaveLength(4);
    for (const button of buttons) {
      // Wholly inside the group, whose overflow is hidden: "1 year" was cut in half, then hidden.
      const box = (await button.boundingBox())!;
      const name = (await button.textContent()) ?? '';
      expect(box.x, name).toBeGreaterThanOrEqual(group.x - 0.5);
      expect(box.x + box.width, name).toBeLessThanOrEqual(group.x + group.width + 0.5);
    }
    // What the screen shows, not what the style asks: forced colours replace backgrounds when painting.
    const probe = await context.newPage();
    // A corner inside the border, away from the text.
    const background = async (locator: Locator) => (await painted(probe, locator)).at(3, 3);
    const pressed = periods.getByRole('button', { pressed: true });
    expect(await pressed.textContent()).toBe('30 days');
    expect(await background(pressed)).not.toBe(
      await background(periods.getByRole('button', { name: '7 days' })),
    );
    // The selected conversation beside the list: on a wide screen (a phone shows one or the other).
    await page.setViewportSize({ width: 1280, height: 860 });
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Conversations', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
    const thread = page.getByRole('link', { name: /Is the widget safe against XSS/ });
    await thread.click();
    await expect.poll(() => thread.getAttribute('aria-current')).toBe('true');
    const other = page.locator('.list a[aria-current="false"]').first();
    expect(await background(thread)).not.toBe(await background(other));
    await context.close();
  });

  it('the header: a long signed-in name shows whole beside Sign out at 320 px; on a long page the sidebar reaches the bottom', async () => {
    const username = 'margaret.hamilton@example.com';
    await service.storage.accounts.createAdmin({
      username,
      passwordHash: await scryptPasswords.hash(ADMIN.password),
      createdAt: Date.now(),
    });
    const { page, context } = await open({ viewport: { width: 320, height: 640 } });
    await page.getByRole('textbox', { name: 'Username' }).fill(username);
    await page.getByRole('textbox', { name: 'Password' }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    // The name was cut to "a…" beside the brand: now it is whole, on screen, and so is Sign out.
    const name = page.getByText(`Signed in as ${username}`);
    const shown = await name.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return { whole: el.scrollWidth <= el.clientWidth, left: box.left, right: box.right };
    });
    expect(shown.whole, 'the name is cut').toBe(true);
    expect(shown.left).toBeGreaterThanOrEqual(0);
    expect(shown.right).toBeLessThanOrEqual(320);
    const signOut = (await page.getByRole('button', { name: 'Sign out' }).boundingBox())!;
    expect(signOut.x + signOut.width).toBeLessThanOrEqual(320);
    // A wide screen, a long page: the sidebar's background and edge go to its bottom (they
    // stopped a screen down), and its navigation stays in view at the bottom.
    await page.setViewportSize({ width: 1280, height: 860 });
    await settled(page);
    const reach = await page.locator('console-app header').evaluate((header) => ({
      bottom: header.getBoundingClientRect().bottom + scrollY,
      page: document.documentElement.scrollHeight,
    }));
    expect(reach.page).toBeGreaterThan(860);
    expect(reach.bottom).toBeGreaterThanOrEqual(reach.page - 1);
    await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
    const tab = (await page.getByRole('link', { name: 'Activity', exact: true }).boundingBox())!;
    expect(tab.y).toBeGreaterThanOrEqual(0);
    expect(tab.y + tab.height).toBeLessThanOrEqual(860);
    await context.close();
  });

  it('the header is tabbed through in the order it reads, on a wide screen and a phone', async () => {
    for (const viewport of [LOOKS[0].viewport, LOOKS[2].viewport]) {
      const { page, context } = await open({ viewport, signedIn: true });
      const stops: { name: string; top: number; left: number }[] = [];
      // From the top of the document: the header's controls, then the page's first one.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      while (!stops.some((stop) => stop.name === 'Audit log')) {
        await page.keyboard.press('Tab');
        stops.push(
          await page.evaluate(() => {
            let active = document.activeElement;
            while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
            const box = active!.getBoundingClientRect();
            return { name: active!.textContent!.trim(), top: box.top, left: box.left };
          }),
        );
      }
      expect(stops.map((stop) => stop.name)[0], `${viewport.width} px`).toBe('Sign out');
      // Each stop is on the row of the one before, to its right, or on a row below it: Sign out,
      // drawn at the sidebar's foot, came first and sent the focus back up to the project.
      for (const [i, stop] of stops.entries()) {
        if (!i) continue;
        const before = stops[i - 1];
        const sameRow = Math.abs(stop.top - before.top) < 8;
        expect(
          sameRow ? stop.left > before.left : stop.top > before.top,
          `${viewport.width} px: ${before.name} → ${stop.name}`,
        ).toBe(true);
      }
      await context.close();
    }
  });

  it("New project: a refusal is said in the dialog, the name kept; the new project's page takes the focus at its heading", async () => {
    const { page, context } = await open({ signedIn: true });
    const refuse = (route: import('playwright-core').Route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({
              code: 'unavailable',
              detail: 'The store is read-only for a moment; try again.',
            }),
          })
        : route.fallback();
    await page.route('**/console/api/projects', refuse);
    await page.getByRole('button', { name: 'New project' }).click();
    const dialog = page.getByRole('dialog', { name: 'New project' });
    await dialog.getByRole('textbox', { name: 'Project name' }).fill('Shop FAQ');
    await dialog.getByRole('button', { name: 'Create project' }).click();
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toBe('The store is read-only for a moment; try again.');
    expect(await dialog.getByRole('textbox', { name: 'Project name' }).inputValue()).toBe('Shop FAQ');
    await page.unroute('**/console/api/projects', refuse);
    await dialog.getByRole('textbox', { name: 'Project name' }).press('Enter');
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    await expect.poll(() => focusedText(page)).toBe('H1 Integrations');
    expect(
      await page.getByRole('combobox', { name: 'Project' }).locator('option:checked').textContent(),
    ).toBe('Shop FAQ');
    // Opened again, the dialog does not say the last refusal.
    await page.getByRole('button', { name: 'New project' }).click();
    expect(await dialog.getByRole('alert').count()).toBe(0);
    // Deleted again: the other tests open the service's first project.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Delete project' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Shop FAQ?' });
    const id = new URL(page.url()).searchParams.get('project')!;
    await confirm.getByRole('textbox', { name: /^Type the project ID/ }).fill(id);
    await confirm.getByRole('button', { name: 'Delete project' }).click();
    await expect
      .poll(() => page.getByRole('combobox', { name: 'Project' }).locator('option:checked').textContent())
      .toBe(PROJECT.id);
    await context.close();
  });

  it('is usable from the keyboard: navigation links, a form, a dialog', async () => {
    const { page, context } = await open({ signedIn: true });
    const nav = page.getByRole('link', { name: 'API keys', exact: true });
    await nav.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    // After a navigation the page's heading holds the focus.
    await expect.poll(() => focusedText(page)).toBe('H1 API keys');
    await page.getByRole('textbox', { name: /Key name/ }).focus();
    await page.keyboard.type('Keyboard key');
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'New API key' }).waitFor();
    await page.getByRole('button', { name: 'Revoke Keyboard key' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Revoke Keyboard key?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await context.close();
  });

  it('create → use → revoke: the key shown once mints sessions against the service until it is revoked', async () => {
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    const name = page.getByRole('textbox', { name: 'Key name', exact: true });
    expect(await description(name)).toBe('Where it is used, e.g. “Production web server”');
    await name.fill('Production server');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const box = page.getByRole('textbox', { name: 'New API key' });
    const key = await box.inputValue();
    expect(key).toMatch(/^ack_[\w-]{43}$/);
    expect(await box.getAttribute('readonly')).not.toBeNull();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();

    const minted = await mint(key);
    expect(minted.status).toBe(200);
    expect(minted.headers.get('Agent-Chat-Owner-Key')).toBe(await ownerKey('erin', key));
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('cell', { name: 'Production server', exact: true }).waitFor();
    // The key is never shown again: the list has its prefix only.
    expect(await page.content()).not.toContain(key);
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'Production server', exact: true }) });
    await expect.poll(() => row.getByRole('cell').nth(3).textContent()).not.toBe('Never');

    await page.getByRole('button', { name: 'Revoke Production server' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke Production server?' })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    await expect.poll(() => row.getByText('Revoked').count()).toBe(1);
    expect((await mint(key)).status).toBe(401);
    expect((await mint(PROJECT.apiKey)).status).toBe(200);

    // The session it minted still works until it is ended from its row.
    const token = ((await minted.json()) as { session_token: string }).session_token;
    const threads = () =>
      fetch(`${service.url}/agent/v1/projects/${PROJECT.id}/agent/threads/`, {
        headers: { Authorization: `Bearer ${token}` },
      });
    expect((await threads()).status).toBe(200);
    await page.getByRole('button', { name: 'End sessions of Production server' }).click();
    const dialog = page.getByRole('dialog', { name: 'End the sessions of Production server?' });
    await dialog.waitFor();
    expect(await axe(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'End sessions' }).click();
    await expect.poll(() => row.getByRole('button', { name: /End sessions/ }).count()).toBe(0);
    expect((await threads()).status).toBe(401);
    await context.close();
  });

  it('rotate with an overlap: old and new keys both work, the old one marked with its end', async () => {
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('textbox', { name: /Key name/ }).fill('Staging');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const old = await page.getByRole('textbox', { name: 'New API key' }).inputValue();
    await page.getByRole('button', { name: 'Rotate Staging' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate Staging' });
    await dialog
      .getByRole('combobox', { name: 'Old key keeps working for' })
      .selectOption({ label: '1 hour' });
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    await expect.poll(() => page.getByRole('textbox', { name: 'New API key' }).inputValue()).not.toBe(old);
    const fresh = await page.getByRole('textbox', { name: 'New API key' }).inputValue();
    await page.getByText(/The old key keeps working until/).waitFor();
    expect((await mint(old)).status).toBe(200);
    expect((await mint(fresh)).status).toBe(200);
    const ending = page
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'Staging (rotated)', exact: true }) });
    await expect.poll(() => ending.getByText(/^Until /).count()).toBe(1);
    await context.close();
  });

  it('revoking the key whose secret is on show takes the secret away with it', async () => {
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('textbox', { name: /Key name/ }).fill('Mistyped');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const box = page.getByRole('textbox', { name: 'New API key' });
    await box.waitFor();
    // Made by mistake, revoked at once, before Done: "Copy it now" must not go on offering it.
    await page.getByRole('button', { name: 'Revoke Mistyped' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke Mistyped?' })
      .getByRole('button', { name: 'Revoke key' })
      .click();
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'Mistyped', exact: true }) });
    await expect.poll(() => row.getByText('Revoked').count()).toBe(1);
    expect(await box.count()).toBe(0);
    await context.close();
  });

  it('allowed origins are enforced: the widget chats on a listed origin; on an unlisted one the visitor reads plain words and the site owner one warning', async () => {
    const listed = await startSite(service.url, PROJECT.apiKey, 'int_docs');
    const unlisted = await startSite(service.url, PROJECT.apiKey, 'int_docs');
    cleanup.push(listed.close, unlisted.close);
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Integrations', exact: true }).click();
    // An integration named by its id (as `--integration` makes it) is named once, not "int_docs int_docs".
    const integration = page.getByRole('link', { name: 'int_docs', exact: true });
    expect(await description(integration)).toBe('');
    // One with a name of its own is named by it, its id the description.
    await page.getByRole('textbox', { name: 'New integration' }).fill('Help center');
    await page.getByRole('button', { name: 'Add integration' }).click();
    const added = page.getByRole('link', { name: 'Help center', exact: true });
    await expect.poll(() => description(added)).toMatch(/^int_\w+$/);
    await page.getByRole('button', { name: 'Delete integration' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete integration' }).click();
    await expect.poll(() => added.count()).toBe(0);
    await integration.click();
    await page.getByText('No allowed origins: pages on any website').waitFor();
    // Named by its label alone, the hint its description: a screen reader says each once.
    const origins = page.getByRole('textbox', { name: 'Allowed origins', exact: true });
    expect(await description(origins)).toBe(
      'One per line, like https://docs.example.com. Pages elsewhere get 403.',
    );
    await origins.fill(`${listed.origin}\nhttps://docs.example.com`);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await expect.poll(() => page.getByText('No allowed origins').count()).toBe(0);
    await context.close();

    const visit = async (origin: string) => {
      const site = await browser.newPage();
      const statuses: number[] = [];
      const warnings: string[] = [];
      site.on(
        'response',
        (r) =>
          r.url().includes('/agent/chat/') && r.request().method() === 'POST' && statuses.push(r.status()),
      );
      site.on(
        'console',
        (m) => m.type() === 'warning' && m.text().startsWith('[agent-chat]') && warnings.push(m.text()),
      );
      await site.addInitScript(() => {
        const errors: unknown[] = [];
        (window as unknown as { __errors: unknown[] }).__errors = errors;
        document.addEventListener('agent-chat-error', (e) => errors.push((e as CustomEvent).detail));
      });
      await site.goto(origin);
      await site.getByRole('textbox', { name: 'Message' }).fill('How much memory does Acme need?');
      await site.getByRole('button', { name: 'Send' }).click();
      return {
        site,
        statuses,
        warnings,
        errors: () =>
          site.evaluate(
            () =>
              (window as unknown as { __errors: { code: string; status?: number; message: string }[] })
                .__errors,
          ),
      };
    };
    const before = service.requests.length;
    const ok = await visit(listed.origin);
    // The project answers from its own docs now (the Acme site).
    await ok.site.getByText('2 GB of memory').first().waitFor();
    expect(ok.statuses).toEqual([200]);
    expect(
      service.requests
        .slice(before)
        .filter((r) => r.path.endsWith('/agent/chat/'))
        .map((r) => `${r.method} ${r.status}`),
    ).toEqual(['OPTIONS 204', 'POST 200']);
    expect(await ok.errors()).toEqual([]);
    expect(ok.warnings).toEqual([]);
    await ok.site.close();

    const refused = await visit(unlisted.origin);
    // The refusal carries CORS for the page's own origin, so the widget reads why.
    await refused.site.getByText("This chat isn't available on this website.").waitFor({ timeout: 10_000 });
    expect(refused.statuses).toEqual([403]);
    expect(await refused.errors()).toEqual([
      expect.objectContaining({
        code: 'origin_not_allowed',
        status: 403,
        message: "This chat isn't available on this website.",
        recoverable: false,
      }),
    ]);
    // The visitor sees words, never a status code; their question is still there.
    expect(await refused.site.getByText(/403|origin/i).count()).toBe(0);
    await refused.site.getByText('How much memory does Acme need?').first().waitFor();
    expect(await refused.site.getByText('2 GB of memory').count()).toBe(0);
    // The site owner gets one warning naming the origin and where to add it.
    expect(refused.warnings).toEqual([
      expect.stringContaining(
        `add ${unlisted.origin} to its "Allowed origins" on the Integrations page of the service console`,
      ),
    ]);
    await refused.site.close();
  });

  it("a public integration: the box needs an allowed origin and says why; the pasted script tag and CSP line from the service answer a static page, every file pinned; the budgets show today's use", async () => {
    let pasted = '';
    // The page's own policy allows nothing else: what the console's CSP line adds is all it has.
    let cspLine = '';
    const site = await listen((path) =>
      path === '/' || path === '/de'
        ? {
            html: `<!doctype html><html lang="${path === '/' ? 'en' : 'de'}"><head><meta charset="utf-8"><title>Docs</title></head><body><h1>Docs</h1>\n${pasted}\n</body></html>`,
            csp: `default-src 'self'; style-src 'self'; ${cspLine.replace(/^Content-Security-Policy: /, '')}`,
          }
        : null,
    );
    cleanup.push(site.close);
    const { page, context, errors, violations } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Integrations', exact: true }).click();
    await page.getByRole('link', { name: /int_app/ }).click();
    const box = page.getByRole('checkbox', { name: 'Allow visitors without a site server' });
    expect(await box.isChecked()).toBe(false);
    // Before any origin is listed, the hint says why one is needed; ticking without one is refused in those words.
    await expect.poll(() => box.evaluate((el) => el.getAttribute('aria-describedby'))).toBe('public-hint');
    await page
      .getByText(/needs at least one allowed origin/)
      .first()
      .waitFor();
    await box.check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: PUBLIC_NEEDS_ORIGIN }).waitFor();
    expect(await axe(page)).toEqual([]);

    await page.getByRole('textbox', { name: 'Allowed origins' }).fill(site.origin);
    await page.getByRole('spinbutton', { name: 'Sessions a day' }).fill('200');
    await page.getByRole('spinbutton', { name: 'Answers a day' }).fill('1000');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await page.getByText('Today (UTC): 0 of 200 sessions, 0 of 1,000 answers.').waitFor();
    // The snippet loads the widget from this service, pinned with the hash its release published, and says so.
    await page
      .getByText(/served by this service and pinned with its integrity hash/)
      .first()
      .waitFor();
    pasted = (await page.getByLabel('public script tag', { exact: true }).textContent()) ?? '';
    cspLine = (await page.getByLabel('public CSP header', { exact: true }).textContent()) ?? '';
    const sri: Record<string, string> = await (await fetch(`${service.url}/widget/latest/sri.json`)).json();
    expect(pasted).toContain(`src="${service.url}/widget/`);
    expect(pasted).toContain(`integrity="${sri['agent-chat.iife.js']}" crossorigin="anonymous"`);
    expect(pasted).not.toContain('session-endpoint');
    // Before the script, an import map pins every part and locale of the release, one a line.
    const version = pasted.match(/\/widget\/([^/]+)\/agent-chat\.iife\.js/)?.[1];
    const later = Object.keys(sri).filter((f) => /^agent-chat\.(part|locale)\./.test(f));
    expect(later.length).toBeGreaterThan(10);
    for (const file of later)
      expect(pasted).toContain(`\n  "${service.url}/widget/${version}/${file}": "${sri[file]}"`);
    expect(pasted.indexOf('<script type="importmap">')).toBe(0);
    expect(cspLine).toMatch(
      new RegExp(
        `^Content-Security-Policy: script-src ${service.url} 'sha256-[A-Za-z0-9+/]{43}='; connect-src ${service.url}$`,
      ),
    );
    // Beside it, the tag a page keeps across upgrades: the same element, the latest release, no pin.
    const following = (await page.getByLabel('public script tag that follows upgrades').textContent()) ?? '';
    expect(following).toContain(
      `src="${service.url}/widget/latest/agent-chat.iife.js"\n        crossorigin="anonymous"`,
    );
    expect(following).not.toContain('integrity');
    expect(following.slice(following.indexOf('<agent-chat'))).toBe(
      pasted.slice(pasted.indexOf('<agent-chat')),
    );
    expect(await axe(page)).toEqual([]);

    // A visitor on the static page the site owner pasted it into: no server code, an answer,
    // rendered by the Markdown part the import map pinned; no violation of the page's policy.
    const markdownPart = `${service.url}/widget/${version}/${later.find((f) => f.includes('.part.markdown-engine-'))}`;
    const visitor = await openWatched(browser, site.origin);
    expect(await visitorAsks(visitor.page)).toContain('UL');
    expect(visitor.requests).toContain(`GET ${markdownPart}`);
    expect(await visitor.violations()).toEqual([]);
    expect(visitor.errors).toEqual([]);
    await visitor.page.close();
    // The same page with that part served as other bytes: the part never runs, and the widget
    // goes on without it, the answer in plain text.
    const tampered = await openWatched(browser, site.origin, async (other) =>
      other.route(markdownPart, async (route) => {
        const real = await route.fetch();
        await route.fulfill({ response: real, body: `${await real.text()}\nglobalThis.tampered = true;` });
      }),
    );
    expect(await visitorAsks(tampered.page)).toEqual(['P']);
    expect(await tampered.page.evaluate(() => 'tampered' in globalThis)).toBe(false);
    expect(tampered.errors.join(' ')).toMatch(/integrity/i);
    expect(await tampered.violations()).toEqual([]);
    await tampered.page.close();
    // A German page: its locale file, pinned by the same map, loads under the same policy.
    const german = await openWatched(browser, `${site.origin}/de`);
    await german.page.getByRole('button', { name: 'Chat öffnen' }).waitFor();
    expect(german.requests).toContain(`GET ${service.url}/widget/${version}/agent-chat.locale.de.js`);
    expect(await german.violations()).toEqual([]);
    expect(german.errors).toEqual([]);
    await german.page.close();
    // The one tag, first in the section (decision 745): alone on the page, as a site builder
    // that strips <agent-chat> and its attributes leaves it, under its own CSP line, it adds
    // the chat, which answers.
    const install = page.getByRole('region', { name: 'Install' });
    expect(
      await install.locator('pre').evaluateAll((pres) => pres.map((pre) => pre.getAttribute('aria-label'))),
    ).toEqual([
      'one script tag',
      'one script tag CSP header',
      'one script URL',
      'public script tag',
      'public CSP header',
      'public script tag that follows upgrades',
      'script tag',
      'CSP header',
      'Express snippet',
      'Fetch snippet',
    ]);
    pasted = (await page.getByLabel('one script tag', { exact: true }).textContent()) ?? '';
    cspLine = (await page.getByLabel('one script tag CSP header', { exact: true }).textContent()) ?? '';
    expect(pasted).not.toContain('<agent-chat');
    expect(cspLine).toBe(`Content-Security-Policy: script-src ${service.url}; connect-src ${service.url}`);
    const built = await openWatched(browser, site.origin);
    await visitorAsks(built.page);
    expect(await built.page.evaluate(() => document.querySelectorAll('agent-chat').length)).toBe(1);
    expect(await built.violations()).toEqual([]);
    expect(built.errors).toEqual([]);
    await built.page.close();
    // A builder that keeps a script's src alone, or asks for a URL: the URL as the only thing of
    // the tag, its settings in its query (decision 755), as written (its `&` unescaped).
    const url = (await page.getByLabel('one script URL', { exact: true }).textContent()) ?? '';
    expect(url.startsWith(`${service.url}/widget/latest/agent-chat.loader.iife.js?project-id=`)).toBe(true);
    pasted = `<script src="${url}" async></script>`;
    const fromUrl = await openWatched(browser, site.origin);
    await visitorAsks(fromUrl.page);
    expect(await fromUrl.page.evaluate(() => document.querySelectorAll('agent-chat').length)).toBe(1);
    expect(await fromUrl.violations()).toEqual([]);
    expect(fromUrl.errors).toEqual([]);
    await fromUrl.page.close();

    await page.reload();
    await page.getByText('Today (UTC): 4 of 200 sessions, 4 of 1,000 answers.').waitFor();
    expect(
      await page.getByRole('checkbox', { name: 'Allow visitors without a site server' }).isChecked(),
    ).toBe(true);
    // A site builder's embed block runs in a frame on an origin of the builder's: refused, it is
    // listed with a button that allows it, and gone from the list once saved (decision 715).
    const frame = 'https://site-1234.builder-usercontent.example';
    const refused = await fetch(
      `${service.url}/agent/v1/projects/${PROJECT.id}/integrations/int_app/challenge/`,
      { headers: { Origin: frame } },
    );
    expect(refused.status).toBe(403);
    await page.reload();
    await page.getByRole('list', { name: 'Refused lately' }).getByText(frame, { exact: true }).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: `Allow ${frame}` }).click();
    expect(await page.getByRole('textbox', { name: 'Allowed origins' }).inputValue()).toBe(
      `${site.origin}\n${frame}`,
    );
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await expect.poll(() => page.getByRole('list', { name: 'Refused lately' }).count()).toBe(0);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/integration-public-light.png`, fullPage: true });
    await context.close();
    // The public setting and its budgets in dark, axe-clean too.
    const dark = await open({ colorScheme: 'dark', signedIn: true });
    await dark.page.getByRole('link', { name: 'Integrations', exact: true }).click();
    await dark.page.getByRole('link', { name: /int_app/ }).click();
    await dark.page.getByText('Today (UTC): 4 of 200 sessions').waitFor();
    expect(await axe(dark.page)).toEqual([]);
    if (SHOTS) await dark.page.screenshot({ path: `${SHOTS}/integration-public-dark.png`, fullPage: true });
    await dark.context.close();
  }, 60_000);

  it('Integrations on a phone: Save and Rename project say what they did in view, beside their button', async () => {
    const { page, context } = await open({ viewport: LOOKS[2].viewport, signedIn: true });
    await page.getByRole('link', { name: 'Integrations', exact: true }).click();
    // The words shown (a status line, hidden, says them too).
    const inView = async (text: string | RegExp) => {
      const box = (await page.locator('p.notice', { hasText: text }).boundingBox())!;
      return box.y >= 0 && box.y + box.height <= LOOKS[2].viewport.height;
    };
    // A refusal, then a save: each said beside Save, which is far down the page.
    const origins = page.getByRole('textbox', { name: /^Allowed origins/ });
    const before = await origins.inputValue();
    await origins.fill('docs.example.com');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await inView((await refusal.textContent()) as string)).toBe(true);
    // Saved as it was: another test may have made it public, with the origin that needs.
    await origins.fill(before);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved / })
      .waitFor({ state: 'attached' });
    expect(await inView(/^Saved /)).toBe(true);
    await page.getByRole('button', { name: 'Rename project' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Renamed the project to ${PROJECT.id}.` })
      .waitFor({ state: 'attached' });
    expect(await inView(`Renamed the project to ${PROJECT.id}.`)).toBe(true);
    await context.close();
  });

  it('Install: without a clipboard (a console over plain HTTP) Copy selects the snippet and says so; nothing thrown', async () => {
    const { page, context, errors } = await open({ signedIn: true });
    // No clipboard, and no copy the older way: what is left is the selection, for the keyboard.
    await page.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });
      Document.prototype.execCommand = () => false;
    });
    await page.reload();
    await page.getByRole('link', { name: 'Integrations', exact: true }).click();
    await page.getByRole('button', { name: 'Copy script tag' }).click();
    await page.getByRole('button', { name: 'Selected: copy it with the keyboard' }).waitFor();
    const selected = await page.evaluate(() => getSelection()?.toString());
    expect(selected).toBe(await page.getByLabel('script tag', { exact: true }).textContent());
    expect(await page.getByRole('button', { name: 'Copied' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the Install snippets wait for the service to say which widget it serves: nothing to copy before, the pinned tag after', async () => {
    const { page, context } = await open({ signedIn: true });
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/console/api/install*', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('link', { name: 'Integrations', exact: true }).click();
    await page.getByRole('heading', { name: 'Install', level: 2 }).waitFor();
    // A quick Copy here took a tag for a service without a widget, from the page's own /assets/.
    expect(await page.getByText(/serves no widget/).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Copy script tag' }).count()).toBe(0);
    answer();
    await page.getByRole('button', { name: 'Copy script tag' }).waitFor();
    expect(await page.getByLabel('script tag', { exact: true }).textContent()).toContain(
      `src="${service.url}/widget/`,
    );
    // A PHP, Python or WordPress site learns it needs no Node: its endpoint is one file, or the plugin.
    const others = page.getByText(/^PHP, Python or WordPress:/);
    expect(await others.textContent()).toContain('examples/php/agent-session.php');
    expect(await others.textContent()).toContain('examples/python/agent_session.py');
    expect(await others.textContent()).toContain('Settings → Agent Chat');
    await context.close();
  });

  it('conversations: the 👎 filter, full-text search, and a thread with its feedback reason and comment', async () => {
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    const list = page.getByRole('region', { name: 'Conversation list' });
    await list
      .getByRole('link', { name: /How do I theme the widget/ })
      .first()
      .waitFor();
    await page.getByRole('checkbox', { name: 'Not helpful' }).check();
    await expect.poll(() => list.getByRole('link', { name: /How do I theme the widget/ }).count()).toBe(0);
    await list.getByRole('link', { name: /Is the widget safe against XSS/ }).waitFor();
    await page.getByRole('checkbox', { name: 'Not helpful' }).uncheck();
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('React');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => list.getByRole('link').allTextContents())
      .toEqual([expect.stringContaining('Can I use it with React?')]);
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('');
    await page.getByRole('checkbox', { name: 'Handoff' }).check();
    await list.getByRole('link', { name: /Is the widget safe against XSS/ }).click();
    const thread = page.getByRole('region', { name: 'Is the widget safe against XSS?' });
    await thread.getByText('I asked about Content-Security-Policy, not markdown.').waitFor();
    await thread.getByText('Did not answer the question').waitFor();
    await thread.getByRole('heading', { name: 'Sources' }).first().waitFor();
    // Owners appear only as their opaque key.
    expect(await page.content()).not.toContain('bob@example.com');
    // A failed answer: the filter finds its thread alone, which says why it failed, as text (decision 496).
    await page.getByRole('checkbox', { name: 'Handoff' }).uncheck();
    await page.getByRole('checkbox', { name: 'Failed answer' }).check();
    await expect
      .poll(() => list.getByRole('link').allTextContents())
      .toEqual([expect.stringMatching(/^\s*Where is my invoice\?[\s\S]*Failed answer/)]);
    await list.getByRole('link', { name: /Where is my invoice/ }).click();
    const failed = page
      .getByRole('region', { name: 'Where is my invoice?' })
      .getByRole('article', { name: /^Assistant/ });
    await expect
      .poll(() => failed.locator('.notice').textContent())
      .toBe(`Why it failed: ${FAILURE.message} (code ${FAILURE.code})`);
    await failed.getByText('failed', { exact: true }).waitFor();
    expect(await axe(page)).toEqual([]);
    await context.close();
  });

  it("conversations: a visitor's question opens on the Sources page, searched, with the search in view and its heading focused", async () => {
    const { page, context, errors, violations } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    const list = page.getByRole('region', { name: 'Conversation list' });
    await list
      .getByRole('link', { name: /Is the widget safe against XSS/ })
      .first()
      .click();
    const thread = page.getByRole('region', { name: 'Is the widget safe against XSS?' });
    await thread.getByRole('link', { name: 'What this question retrieves' }).first().click();
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
    const question = page.getByRole('searchbox', { name: 'Question' });
    await expect.poll(() => question.inputValue()).toBe('Is the widget safe against XSS?');
    // The search ran: its ranked sections, or its plain "no section" line, are shown for that question.
    await expect
      .poll(
        async () =>
          (await page.getByRole('list', { name: 'Sections for “Is the widget safe against XSS?”' }).count()) +
          (await page.getByText('No section matches “Is the widget safe against XSS?”.').count()),
      )
      .toBe(1);
    await expect
      .poll(() =>
        page
          .getByRole('heading', { name: 'What a question retrieves' })
          .evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el),
      )
      .toBe(true);
    expect(new URL(page.url()).searchParams.get('q')).toBe('Is the widget safe against XSS?');
    expect(await axe(page)).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('conversations: an answer reads as the widget renders it (markdown), its HTML and script links as text', async () => {
    const { page, context, violations } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByRole('link', { name: /Is the widget safe against XSS/ }).click();
    const xss = page.getByRole('region', { name: 'Is the widget safe against XSS?' });
    const answer = xss.getByRole('article', { name: /^Assistant/ });
    await answer.locator('strong').first().waitFor({ timeout: 10_000 });
    expect(await answer.locator('strong').first().textContent()).toBe('untrusted');
    expect(await answer.locator('code').allTextContents()).toContain('innerHTML');
    expect(await answer.getByRole('listitem').count()).toBeGreaterThan(2);
    expect(await answer.textContent()).not.toMatch(/###|\*\*/);
    // The visitor's own words stay as typed.
    await xss
      .getByRole('article', { name: /^Visitor/ })
      .getByText('Is the widget safe against XSS?')
      .waitFor();

    await page.getByRole('link', { name: /Can an answer carry HTML/ }).click();
    const thread = page.getByRole('region', { name: 'Can an answer carry HTML?' });
    const hostile = thread.getByRole('article', { name: /^Assistant/ });
    await hostile.getByRole('heading', { name: 'Answers are text', level: 3 }).waitFor();
    await hostile.getByText('Raw <img src="/x" onerror="window.__pwned = 1"> stays text').waitFor();
    await hostile.getByText('<script>window.__pwned = 1</script>').waitFor();
    const guide = hostile.getByRole('link', { name: 'the guide' });
    expect(await guide.getAttribute('href')).toBe('https://example.com/guide');
    expect(await guide.getAttribute('target')).toBe('_blank');
    expect(await guide.getAttribute('rel')).toContain('noopener noreferrer');
    expect(await hostile.getByRole('link', { name: 'click me' }).count()).toBe(0);
    await hostile.getByText('click me').waitFor();
    expect(await hostile.locator('img, script, iframe').count()).toBe(0);
    await hostile.getByText('a pixel').waitFor();
    await hostile.getByRole('button', { name: 'Copy code' }).waitFor();
    expect(await hostile.locator('pre code').textContent()).toBe('el.textContent = answer;');
    await thread
      .getByRole('article', { name: /^Visitor/ })
      .getByText('Can an answer carry **HTML**?')
      .waitFor();
    expect(await page.evaluate(() => 'pwned' in window || '__pwned' in window)).toBe(false);
    expect(await axe(page)).toEqual([]);
    expect(await violations()).toEqual([]);
    await context.close();
  });

  it("conversations: a question's files show as a thumbnail and downloads; an integration's file settings save", async () => {
    const { page, context, violations } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByRole('link', { name: /Why does the widget show this error/ }).click();
    const thread = page.getByRole('region', { name: 'Why does the widget show this error?' });
    const files = thread.getByRole('list', { name: 'Attached files' });
    const image = files.getByRole('button', { name: 'Download error screen.png' });
    await expect
      .poll(() => image.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBe(48);
    expect(await image.locator('img').getAttribute('src')).toMatch(/^blob:/);
    const download = page.waitForEvent('download');
    await files.getByRole('button', { name: 'Download console.html' }).click();
    const saved = await download;
    // Saved as what the service read it as, never as a page that would run from disk.
    expect(saved.suggestedFilename()).toBe('console.html.txt');
    expect(await readFile((await saved.path())!, 'utf8')).toBe('ERROR 401 token expired\n');
    expect(await axe(page)).toEqual([]);

    await page.getByRole('link', { name: 'Integrations', exact: true }).click();
    const settings = page.getByRole('region', { name: 'Files' });
    await settings.getByRole('checkbox', { name: /PDF/ }).uncheck();
    await settings.getByRole('combobox', { name: 'Files per question' }).selectOption('2');
    await settings.getByRole('spinbutton', { name: 'Largest image file in MB' }).fill('2.5');
    await settings.getByRole('button', { name: 'Save file settings' }).click();
    await settings.getByRole('status').filter({ hasText: 'Saved the file settings.' }).waitFor();
    await page.reload();
    const again = page.getByRole('region', { name: 'Files' });
    await expect
      .poll(() => again.getByRole('spinbutton', { name: 'Largest image file in MB' }).inputValue())
      .toBe('2.5');
    expect(await again.getByRole('checkbox', { name: /PDF/ }).isChecked()).toBe(false);
    expect(await axe(page)).toEqual([]);
    expect(await violations()).toEqual([]);
    await context.close();
  });

  it('a visitor with no owner is named in plain words: on Activity and on their conversation', async () => {
    const { page, context } = await open({ signedIn: true });
    // Activity's owners are the visitors a site's server named; a public page's visitors are none of them.
    const totals = page.getByRole('region', { name: 'Totals' });
    await totals.getByRole('term').first().waitFor();
    const terms = await totals.getByRole('term').allTextContents();
    expect(terms.map((t) => t.trim())).toContain('Signed-in visitors');
    expect(terms.join()).not.toContain('Unique owners');
    const at = Date.now();
    const id = `th_${'a'.repeat(32)}`;
    await service.storage.conversations.createThread({
      id,
      projectId: PROJECT.id,
      integrationId: 'int_docs',
      owner: null,
      title: 'Asked without signing in',
      createdAt: at,
      updatedAt: at,
    });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByRole('link', { name: /Asked without signing in/ }).click();
    await page.getByRole('heading', { name: 'Asked without signing in' }).waitFor();
    // Not "Owner key anonymous": there is no key to show.
    await page.getByText(/^Anonymous visitor/).waitFor({ timeout: 3_000 });
    expect(await page.getByText('Owner key anonymous').count()).toBe(0);
    await context.close();
  });

  it('a conversation opened from the list by keyboard takes the focus to its title, wide and at 390 px', async () => {
    for (const viewport of [
      { width: 1280, height: 860 },
      { width: 390, height: 844 },
    ]) {
      const { page, context } = await open({ signedIn: true, viewport });
      await page.getByRole('link', { name: 'Conversations', exact: true }).click();
      const link = page.getByRole('link', { name: /Is the widget safe against XSS\?/ });
      await link.focus();
      await page.keyboard.press('Enter');
      // Its words arrive after the click: the focus must wait for them, not stay on the list
      // (or, at 390 px where the list gives way to the conversation, fall to the page's start).
      await expect.poll(() => focusedText(page)).toBe('H2 Is the widget safe against XSS?');
      await context.close();
    }
  });

  it('activity: the CSV of the period downloads with one row per day', async () => {
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('button', { name: '7 days' }).click();
    await expect
      .poll(() => page.getByRole('button', { name: '7 days' }).getAttribute('aria-pressed'))
      .toBe('true');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download CSV' }).click();
    const file = await (await download).path();
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(file, 'utf8')).trim().split('\r\n');
    expect(lines[0]).toBe(
      'date,sessions,threads,messages,upvotes,downvotes,prompt_tokens,completion_tokens,failed_answers',
    );
    expect(lines).toHaveLength(8);
    expect(lines.slice(1).some((line) => Number(line.split(',')[1]) > 0)).toBe(true);
    // The failed answers of the period (decision 497): the figure adds up the spreadsheet's
    // column, and its link opens the conversations filtered to them, for the same days.
    const failures = lines.slice(1).reduce((sum, line) => sum + Number(line.split(',').at(-1)), 0);
    expect(failures).toBeGreaterThan(0);
    const figure = page.getByRole('region', { name: 'Totals' }).getByRole('definition').last();
    expect(Number((await figure.textContent())?.replace(/,/g, ''))).toBe(failures);
    await page.getByRole('link', { name: 'Show conversations with a failed answer' }).click();
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
    expect(await page.getByRole('checkbox', { name: 'Failed answer' }).isChecked()).toBe(true);
    expect(await page.getByLabel('From').inputValue()).toBe(lines[1].split(',')[0]);
    await page.getByRole('link', { name: /Where is my invoice/ }).waitFor();
    await context.close();
  });

  it('conversations: what the filters show downloads as a CSV a spreadsheet opens, one row a question', async () => {
    const { page, context } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    const list = page.getByRole('region', { name: 'Conversation list' });
    await list
      .getByRole('link', { name: /How do I theme the widget/ })
      .first()
      .waitFor();
    await page.getByRole('checkbox', { name: 'Not helpful' }).check();
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('XSS');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect
      .poll(() => list.getByRole('link').allTextContents())
      .toEqual([expect.stringContaining('Is the widget safe against XSS?')]);
    const download = page.waitForEvent('download');
    await page
      .getByRole('group', { name: 'Download the conversations these filters show' })
      .getByRole('link', { name: 'Download CSV' })
      .click();
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(await (await download).path(), 'utf8');
    expect((await download).suggestedFilename()).toMatch(
      new RegExp(`^conversations-${PROJECT.id}-\\d{4}-\\d{2}-\\d{2}\\.csv$`),
    );
    expect(text.startsWith('\uFEFFthread_id,owner_key,integration_id,asked_at_utc,question,')).toBe(true);
    expect(text).toContain('Is the widget safe against XSS?');
    expect(text).toContain(
      'downvote (did not answer the question): I asked about Content-Security-Policy, not markdown.',
    );
    expect(text).not.toContain('How do I theme the widget?');
    expect(text).not.toContain('bob@example.com');
    await context.close();
  });

  // Last: it adds a conversation the tests above do not expect.
  it("conversations: a follow-up's question opens searched after the question before it, as its chat searched", async () => {
    const agent = `${service.url}/agent/v1/projects/${PROJECT.id}/agent`;
    const { session_token: token } = await (
      await fetch(`${agent}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
        body: '{"external_owner_id":"grace@example.com"}',
      })
    ).json();
    const ask = async (message: string, thread_id?: string) =>
      (
        await fetch(`${agent}/chat/`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}` },
          body: JSON.stringify({ integration_id: 'int_docs', message, thread_id }),
        })
      ).text();
    const threadId = /"thread_id":"(th_[0-9a-f]{32})"/.exec(await ask('Which database does Acme need?'))![1];
    await ask('and how much memory does it need?', threadId);

    const { page, context, errors, violations } = await open({ signedIn: true });
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await page.getByRole('link', { name: /Which database does Acme need/ }).click();
    const thread = page.getByRole('region', { name: 'Which database does Acme need?' });
    const links = thread.getByRole('link', { name: 'What this question retrieves' });
    await expect.poll(() => links.count()).toBe(2);
    expect(
      new URL((await links.first().getAttribute('href'))!, service.url).searchParams.get('earlier'),
    ).toBeNull();
    await links.nth(1).click();
    await page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
    await expect
      .poll(() => page.getByRole('searchbox', { name: 'Question' }).inputValue())
      .toBe('and how much memory does it need?');
    await page
      .getByText(
        'Asked after “Which database does Acme need?”: it refers back, so that question’s words were searched too.',
      )
      .waitFor();
    expect(new URL(page.url()).searchParams.get('earlier')).toBe('Which database does Acme need?');
    // A question typed here is a first question: searched alone, with no word of the conversation.
    await page.getByRole('searchbox', { name: 'Question' }).fill('how much memory does it need?');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('list', { name: 'Sections for “how much memory does it need?”' }).waitFor();
    expect(await page.getByText(/^Asked after/).count()).toBe(0);
    expect(await axe(page)).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  /** Two conversations of one visitor, through the agent API as a site's server and widget make them. */
  async function visitorWithTwo(owner: string, titles: string[]) {
    const agent = `${service.url}/agent/v1/projects/${PROJECT.id}/agent`;
    const minted = await (
      await fetch(`${agent}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ external_owner_id: owner }),
      })
    ).json();
    for (const message of titles)
      await (
        await fetch(`${agent}/chat/`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${minted.session_token}` },
          body: JSON.stringify({ integration_id: 'int_docs', message }),
        })
      ).text();
  }
  const conversationList = (page: import('playwright-core').Page) =>
    page.getByRole('region', { name: 'Conversation list' });
  async function openThread(page: import('playwright-core').Page, title: string) {
    await page.getByRole('link', { name: 'Conversations', exact: true }).click();
    await conversationList(page)
      .getByRole('link', { name: new RegExp(title) })
      .click();
    await page.getByRole('heading', { name: title, level: 2 }).waitFor();
  }

  it(
    "conversations: Delete conversation and Erase this visitor's data confirm with what goes, in every look; Cancel deletes nothing",
    { timeout: 90_000 },
    async () => {
      await visitorWithTwo('ivy@example.com', ['Ivy asks about themes', 'Ivy asks about billing']);
      for (const look of LOOKS) {
        const { page, context } = await open({ ...look, signedIn: true });
        await openThread(page, 'Ivy asks about themes');
        await page.getByRole('button', { name: 'Delete conversation' }).click();
        const dialog = page.getByRole('dialog', { name: 'Delete this conversation?' });
        await expect
          .poll(() => dialog.textContent())
          .toMatch(/its messages, the files the visitor attached and the feedback on its answers/);
        expect(await axe(page)).toEqual([]);
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/delete-conversation-${look.name}.png` });
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('button', { name: "Erase this visitor's data" }).click();
        const erase = page.getByRole('dialog', { name: "Erase this visitor's data?" });
        await erase.getByRole('button', { name: 'Erase 2 conversations' }).waitFor();
        expect(await axe(page)).toEqual([]);
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/erase-visitor-${look.name}.png` });
        await erase.getByRole('button', { name: 'Cancel' }).click();
        await context.close();
      }
      const { page, context } = await open({ signedIn: true });
      await openThread(page, 'Ivy asks about billing');
      await expect
        .poll(() =>
          conversationList(page)
            .getByRole('link', { name: /Ivy asks/ })
            .count(),
        )
        .toBe(2);
      await context.close();
    },
  );

  it(
    'conversations: a deleted conversation and an erased visitor leave the list, with a status line and an audit entry',
    { timeout: 60_000 },
    async () => {
      await visitorWithTwo('heidi@example.com', ['Heidi asks about themes', 'Heidi asks about billing']);
      const { page, context, errors, violations } = await open({ signedIn: true });
      const list = conversationList(page);
      await openThread(page, 'Heidi asks about themes');
      await page.getByText(/Kept until deleted: no retention period is set/).waitFor();
      await page.getByRole('button', { name: 'Delete conversation' }).click();
      await page
        .getByRole('dialog', { name: 'Delete this conversation?' })
        .getByRole('button', { name: 'Delete conversation' })
        .click();
      await expect
        .poll(() => page.getByRole('status').first().textContent())
        .toBe('Deleted “Heidi asks about themes”.');
      await expect.poll(() => list.getByRole('link', { name: /Heidi asks about themes/ }).count()).toBe(0);
      await expect.poll(() => focusedText(page)).toBe('H1 Conversations');
      // The other conversation of hers: erasing her takes it, and the confirmation counts it.
      await list.getByRole('link', { name: /Heidi asks about billing/ }).click();
      await page.getByRole('button', { name: "Erase this visitor's data" }).click();
      await page
        .getByRole('dialog', { name: "Erase this visitor's data?" })
        .getByRole('button', { name: 'Erase 1 conversation' })
        .click();
      await expect
        .poll(() => page.getByRole('status').first().textContent())
        .toMatch(/^Erased the visitor's data: 1 conversation, 0 other reactions, 1 session/);
      await expect.poll(() => list.getByRole('link', { name: /Heidi asks/ }).count()).toBe(0);
      await page.getByRole('link', { name: 'Audit log', exact: true }).click();
      await page
        .getByRole('cell', { name: /^Erased a visitor's data .* conversations: 1 · sessions: 1/ })
        .first()
        .waitFor();
      await page
        .getByRole('cell', { name: /^Deleted a conversation th_/ })
        .first()
        .waitFor();
      expect(await page.content()).not.toContain('heidi@example.com');
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
  );
});

describe('agent-chat-service admin (the built program)', () => {
  const CLI = join(import.meta.dirname, '../../service/dist/cli.js');
  const run = (args: string[], stdin: string) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, DATABASE_URL: '' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      child.once('exit', (code) => resolve({ code, out }));
      child.stdin.end(stdin);
    });

  it('adds with the password from stdin (refusing a short one and a taken name), lists, resets, removes the last only when told', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-chat-admin-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    expect(await run(['admin', 'add', 'Grace', '--data', dir], 'eleven char\n')).toEqual({
      code: 1,
      out: 'agent-chat-service admin: the password must be at least 12 characters (it has 11).\n',
    });
    expect(await run(['admin', 'add', 'Grace', '--data', dir], 'twelve chars\n')).toMatchObject({
      code: 0,
      out: expect.stringContaining('Added console admin grace'),
    });
    expect(await run(['admin', 'add', 'grace', '--data', dir], 'another password\n')).toMatchObject({
      code: 1,
      out: expect.stringContaining('an admin named grace exists already'),
    });
    expect(await run(['admin', 'rename', 'grace', '--data', dir], '')).toMatchObject({
      code: 2,
      out: expect.stringContaining(
        'usage: agent-chat-service admin add USERNAME [--role admin|viewer] | list',
      ),
    });
    expect(await run(['admin', 'list', '--data', dir], '')).toMatchObject({
      code: 0,
      out: expect.stringMatching(
        /^USERNAME +ROLE +ADDED +LAST SIGN-IN\ngrace +admin +\d{4}-\d\d-\d\d \d\d:\d\d UTC  never\n$/,
      ),
    });
    expect(
      await run(['admin', 'add', 'vera', '--role', 'viewer', '--data', dir], 'twelve chars\n'),
    ).toMatchObject({
      code: 0,
      out: expect.stringContaining('Added console viewer (reads, changes nothing) vera'),
    });
    expect(await run(['admin', 'role', 'grace', 'viewer', '--data', dir], '')).toMatchObject({
      code: 1,
      out: expect.stringContaining('grace is the only console admin'),
    });
    expect(await run(['admin', 'remove', 'vera', '--data', dir], '')).toMatchObject({ code: 0 });
    expect(await run(['admin', 'password', 'grace', '--data', dir], 'a newer password\n')).toEqual({
      code: 0,
      out: 'Set a new password for console admin grace; 0 console sessions ended.\n',
    });
    // The last admin stays unless the call says none may be left.
    expect(await run(['admin', 'remove', 'grace', '--data', dir], '')).toMatchObject({
      code: 1,
      out: expect.stringContaining('grace is the only console admin'),
    });
    expect(await run(['admin', 'remove', 'grace', '--allow-no-admins', '--data', dir], '')).toMatchObject({
      code: 0,
      out: expect.stringContaining('No admin is left: add one with agent-chat-service admin add USERNAME'),
    });
  }, 120_000);
});
