/**
 * One console service and one Chromium for a test file of the console, and how its tests open
 * pages: each file calls `consoleInChromium()` and runs on its own worker beside the other.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchChromium } from './chromium.js';
import { ADMIN, startConsoleService } from './console-site.js';

/** `CONSOLE_SCREENSHOTS=1` (npm run screenshots:console) also writes docs/screenshots/console/. */
export const SHOTS = process.env.CONSOLE_SCREENSHOTS ? 'docs/screenshots/console' : null;
export const LOOKS = [
  { name: 'light', colorScheme: 'light' as const, viewport: { width: 1280, height: 860 } },
  { name: 'dark', colorScheme: 'dark' as const, viewport: { width: 1280, height: 860 } },
  { name: '390', colorScheme: 'light' as const, viewport: { width: 390, height: 844 } },
];

export let browser: Browser;
export let service: Awaited<ReturnType<typeof startConsoleService>>;
/** What a test started beside the shared service, stopped after the file. */
export const cleanup: (() => Promise<unknown>)[] = [];

/**
 * The cookies of one sign-in, which the tests that start signed in begin with: each sign-in
 * is a scrypt hash (about a second of CPU on a loaded machine), and signing in is tested by its
 * own tests.
 */
let signedIn: Awaited<ReturnType<BrowserContext['storageState']>>;

/** Starts the service and Chromium for the calling test file, and stops them after it. */
export function consoleInChromium() {
  beforeAll(async () => {
    [browser, service] = await Promise.all([launchChromium(), startConsoleService()]);
    if (SHOTS) await mkdir(SHOTS, { recursive: true });
    const { context, page } = await open();
    await signIn(page);
    signedIn = await context.storageState();
    await context.close();
  }, 60_000);
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
    await browser?.close();
    await service?.running.close();
  });
}

/** A fresh browser context (its own cookies) on the console, recording CSP violations and errors. */
export async function open(
  options: {
    colorScheme?: 'light' | 'dark';
    viewport?: { width: number; height: number };
    url?: string;
    /** Start with the shared sign-in's cookies, on Activity. */
    signedIn?: boolean;
  } = {},
) {
  const context: BrowserContext = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: options.viewport ?? { width: 1280, height: 860 },
    reducedMotion: 'reduce',
    ...(options.signedIn && { storageState: signedIn }),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(error.message));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto(`${options.url ?? service.url}/console/`);
  if (options.signedIn) await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
  const violations = () =>
    page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  return { context, page, errors, violations };
}

export async function signIn(page: Page) {
  await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
  await page.getByRole('textbox', { name: 'Password' }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
}

/** The element that holds the focus, through shadow roots: its tag and text. */
export const focusedText = (page: Page) =>
  page.evaluate(() => {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return `${active?.tagName} ${active?.textContent}`;
  });

/** A control's description: the text of what its aria-describedby names, in its shadow root. */
export const description = (control: Locator) =>
  control.evaluate((el) => {
    const root = el.getRootNode() as ShadowRoot;
    const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    return ids.map((id) => root.getElementById(id)?.textContent?.trim()).join(' ');
  });

/** The first ranked section of the search the Sources page shows. */
export const firstHit = (page: Page) =>
  page
    .getByRole('list', { name: /Sections for/ })
    .getByRole('listitem')
    .first();

/** `open`, signed in, on the Sources page. */
export async function openSources(options: Parameters<typeof open>[0] = {}) {
  // Another service than the shared one has its own sessions: sign in there.
  const opened = await open({ ...options, signedIn: !options.url });
  if (options.url) await signIn(opened.page);
  await opened.page.getByRole('link', { name: 'Sources', exact: true }).click();
  await opened.page.getByRole('heading', { name: 'Sources', level: 1 }).waitFor();
  return opened;
}

/** Waits until what a page loads is drawn (no "Loading" status left, charts on their canvas). */
export async function settled(page: Page) {
  await expect
    .poll(
      () =>
        page
          .getByRole('status')
          .filter({ hasText: /Loading/ })
          .count(),
      { timeout: 10_000 },
    )
    .toBe(0);
  if (await page.getByRole('heading', { name: 'Activity', level: 1 }).count())
    await page.locator('activity-chart canvas').first().waitFor();
}
