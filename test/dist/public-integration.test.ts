import { readdirSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, axe, launchChromium, openWatched } from './chromium.js';
import { PUBLIC, allowMore, startPublicService, staticSite } from './public-site.js';

let browser: Browser;
let service: Awaited<ReturnType<typeof startPublicService>>;
let site: Awaited<ReturnType<typeof staticSite>>;
let elsewhere: Awaited<ReturnType<typeof staticSite>>;
let elsewhereInGerman: Awaited<ReturnType<typeof staticSite>>;

beforeAll(async () => {
  // The sites' origins come first: the service lists the first one as the integration's only origin.
  site = await staticSite(() => service);
  elsewhere = await staticSite(() => service);
  elsewhereInGerman = await staticSite(() => service, 'de');
  [browser, service] = await Promise.all([launchChromium(), startPublicService(site.origin)]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service?.running.close();
  await Promise.all([site?.close(), elsewhere?.close(), elsewhereInGerman?.close()]);
});

/** Opens `origin` (recording CSP violations, console errors and requests) and waits for the widget. */
async function open(origin: string) {
  const watched = await openWatched(browser, origin);
  await watched.page.getByRole('textbox', { name: 'Message' }).waitFor();
  return watched;
}

/** Sends a question and waits for the visitor's words of refusal (an alert in the conversation). */
async function refused(page: Page, question: string, words: string) {
  await page.getByRole('textbox', { name: 'Message' }).fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText(words).first().waitFor({ timeout: 15_000 });
  // Words, never a status code or a stack.
  expect(await page.getByText(/\b(403|429)\b|Error:|at \w+ \(/).count()).toBe(0);
}

/** The classic script's part that holds the proof of work (its name carries a content hash). */
const publicSessionPart = readdirSync('dist').find((f) => f.startsWith('agent-chat.part.public-session-'));

describe('a static site on another origin, through a public integration (§2b, §12)', () => {
  it('loads the widget from the service with its SRI hash under a strict CSP and gets an answer; no violation, no error', async () => {
    const { page, errors, requests, violations } = await open(site.origin);
    const answer = await ask(page, 'How do I theme the widget?');
    expect(answer).toContain('Style the widget from your page');
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    const widget = `${service.url}/widget/${service.version}`;
    // The script first; the proof of work (a part loaded only now) before the challenge, then the session.
    const fromService = requests
      .filter((r) => r.includes(service.url))
      .map((r) => r.replace(service.url, ''));
    const part = `GET /widget/${service.version}/${publicSessionPart}`;
    const challenge = 'GET /agent/v1/projects/proj_static/integrations/int_static/challenge/';
    expect(fromService[0]).toBe(`GET /widget/${service.version}/agent-chat.iife.js`);
    expect(fromService.indexOf(part)).toBeGreaterThan(0);
    expect(fromService.indexOf(part)).toBeLessThan(fromService.indexOf(challenge));
    expect(fromService.filter((r) => !r.includes('/widget/')).slice(0, 2)).toEqual([
      challenge,
      'POST /agent/v1/projects/proj_static/integrations/int_static/sessions/',
    ]);
    expect(requests.filter((r) => !r.includes(service.url))).toEqual([`GET ${site.origin}/`]);
    // The hash the page pinned is the one the service publishes, and the widget's build wrote.
    const sri = await (await fetch(`${widget}/sri.json`)).json();
    expect(sri['agent-chat.iife.js']).toBe(service.integrity);
    expect(sri).toEqual(JSON.parse(readFileSync('dist/sri.json', 'utf8')));
    expect(await axe(page)).toEqual([]);
    await page.close();
  });

  it('the tag that follows upgrades loads the release the service serves through /widget/latest/, its part too, and answers', async () => {
    const { page, errors, requests, violations } = await open(`${site.origin}/following`);
    const answer = await ask(page, 'How do I theme the widget?');
    expect(answer).toContain('Style the widget from your page');
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    const widgetFiles = requests
      .filter((r) => r.includes(`${service.url}/widget/`))
      .map((r) => r.replace(service.url, ''));
    // The script and its proof-of-work part are asked for as latest and redirected to the release.
    expect(widgetFiles).toEqual(
      expect.arrayContaining([
        'GET /widget/latest/agent-chat.iife.js',
        `GET /widget/${service.version}/agent-chat.iife.js`,
        `GET /widget/latest/${publicSessionPart}`,
        `GET /widget/${service.version}/${publicSessionPart}`,
      ]),
    );
    await page.close();
  });

  it('a page on an origin the integration does not list: the visitor reads that the chat is not available here', async () => {
    const { page, violations } = await open(elsewhere.origin);
    await refused(page, 'How do I theme the widget?', "This chat isn't available on this website.");
    expect(await violations()).toEqual([]);
    expect(await axe(page)).toEqual([]);
    await page.close();
  });

  it("in the page's language: a German page elsewhere reads the refusal in German, its locale loaded from the service", async () => {
    const { page, requests, violations } = await openWatched(browser, elsewhereInGerman.origin);
    await page.getByRole('textbox', { name: 'Nachricht' }).fill('Wie passe ich das Design an?');
    await page.getByRole('button', { name: 'Senden' }).click();
    await page
      .getByText('Dieser Chat ist auf dieser Website nicht verfügbar.')
      .first()
      .waitFor({ timeout: 15_000 });
    expect(requests).toContain(`GET ${service.url}/widget/${service.version}/agent-chat.locale.de.js`);
    expect(await violations()).toEqual([]);
    await page.close();
  });

  it('a replayed solution is refused: the visitor reads that the chat could not start, and Retry solves a new challenge', async () => {
    const { page } = await open(site.origin);
    let first: string | undefined;
    let replays = 0;
    // What a replay looks like on the wire: the second mint carries the first one's solution.
    await page.route('**/integrations/int_static/sessions/', async (route) => {
      if (first === undefined) first = route.request().postData() ?? '';
      else if (replays++ === 0) return route.continue({ postData: first });
      return route.continue();
    });
    await ask(page, 'How do I theme the widget?');
    await page.evaluate(() =>
      (document.querySelector('agent-chat') as unknown as { clearSession(): void }).clearSession(),
    );
    await refused(page, 'Is it safe against XSS?', "The chat couldn't start. Please try again.");
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('How answers are rendered safely').first().waitFor({ timeout: 15_000 });
    expect(replays).toBe(2);
    await page.close();
  });

  it("the proof-of-work part does not load (404, a CSP, offline): the visitor reads that the chat couldn't start, the site owner reads once what to check, and Retry loads it once it is served", async () => {
    let served = false;
    const { page, requests } = await openWatched(browser, site.origin, async (page) => {
      await page.route(`**/${publicSessionPart}`, (route) =>
        served ? route.continue() : route.fulfill({ status: 404, body: 'Not found' }),
      );
      await page.addInitScript(() => {
        const seen: unknown[] = [];
        (window as unknown as { __errors: unknown[] }).__errors = seen;
        addEventListener('agent-chat-error', (e) => seen.push((e as CustomEvent).detail));
      });
    });
    const warnings: string[] = [];
    page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await refused(page, 'How do I theme the widget?', "The chat couldn't start. Please try again.");
    expect(requests).toContain(`GET ${service.url}/widget/${service.version}/${publicSessionPart}`);
    // The page learns the code it can act on; the console says which file and what to check.
    expect(await page.evaluate(() => (window as unknown as { __errors: unknown[] }).__errors)).toEqual([
      expect.objectContaining({ code: 'session_failed', recoverable: true }),
    ]);
    expect(await axe(page)).toEqual([]);
    // A Retry that fails the same way says nothing new in the console.
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { __errors: unknown[] }).__errors.length))
      .toBe(2);
    const told = warnings.filter((w) => w.includes("public session's part"));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/beside the widget's script/);
    expect(told[0]).toMatch(/script-src/);
    served = true;
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Style the widget from your page').first().waitFor({ timeout: 15_000 });
    await page.close();
  });

  it("the day's budget spent: answers, then sessions; the visitor reads that the chat has reached its limit for today", async () => {
    await allowMore(service.storage, { sessions: 100, answers: 1 });
    try {
      const { page } = await open(site.origin);
      await ask(page, 'How do I theme the widget?');
      await refused(
        page,
        'Is it safe against XSS?',
        'This chat has reached its limit for today. Please try again tomorrow.',
      );
      expect(await axe(page)).toEqual([]);
      await page.close();

      await allowMore(service.storage, { sessions: 0, answers: 100 });
      const next = await open(site.origin);
      await refused(
        next.page,
        'How do I theme the widget?',
        'This chat has reached its limit for today. Please try again tomorrow.',
      );
      // No work was asked of the visitor's browser for a session that could not be had.
      expect(next.requests.filter((r) => r.includes('/sessions/'))).toEqual([]);
      await next.page.close();
    } finally {
      await allowMore(service.storage, { sessions: 500, answers: 2000 });
    }
  });

  it("the visitor's past conversations come back after a reload, from the device; the older one goes on and is answered (decision 518)", async () => {
    const { page, errors, violations } = await open(site.origin);
    const widget = page.locator('agent-chat');
    await ask(page, 'How do I theme the widget?');
    await widget.getByRole('button', { name: 'New conversation' }).click();
    await ask(page, 'Is it safe against XSS?');
    await page.reload();
    await widget.getByRole('button', { name: 'Conversations' }).click();
    const list = widget.getByRole('region', { name: 'Conversations' });
    await expect
      .poll(() => list.locator('.title').allTextContents())
      .toEqual(['Is it safe against XSS?', 'How do I theme the widget?']);
    await list.getByRole('button', { name: /^How do I theme the widget\?/ }).click();
    // Opened once its question is on screen (the conversation shown before it has one answer
    // too). What is typed and sent before then waits for it and goes into it (decision 659).
    const questions = widget.locator('agent-chat-message[aria-label="You"] .bubble');
    await expect.poll(() => questions.allTextContents()).toEqual(['How do I theme the widget?']);
    const answers = widget.locator('agent-chat-message[aria-label="Assistant"] .content');
    await expect.poll(() => answers.count()).toBe(1);
    await widget.getByRole('textbox', { name: 'Message' }).fill('And in dark mode?');
    await widget.getByRole('button', { name: 'Send' }).click();
    // The built service takes the thread from this later session without owner and answers in it.
    await expect.poll(() => answers.count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => answers.nth(1).textContent(), { timeout: 15_000 }).toMatch(/\w{3}/);
    // Continued, it is the newest (the list may still be open beside the conversation).
    if (!(await list.isVisible())) await widget.getByRole('button', { name: 'Conversations' }).click();
    await expect
      .poll(() => list.locator('.title').allTextContents())
      .toEqual(['How do I theme the widget?', 'Is it safe against XSS?']);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    expect(await axe(page)).toEqual([]);
    await page.close();
  });

  it("the session's owner key is the service's `-` on the device, though the service is on another origin (decision 540)", async () => {
    const { page, errors } = await open(site.origin);
    await ask(page, 'How do I theme the widget?');
    /** The owner key the widget's device memory stored its conversation under, once written. */
    const storedUnder = () =>
      page.evaluate(
        (head) =>
          new Promise<unknown>((resolve, reject) => {
            const opening = indexedDB.open('agent-chat');
            opening.onerror = () => reject(opening.error);
            opening.onsuccess = () => {
              const read = opening.result.transaction('ui-state').objectStore('ui-state').get(head);
              read.onsuccess = () => resolve((read.result as { ownerKey?: unknown } | undefined)?.ownerKey);
              read.onerror = () => reject(read.error);
            };
          }),
        `${PUBLIC.projectId}:${PUBLIC.integrationId}:ui`,
      );
    // Not '' (a site that names no owner): the header's `-`, which the page may read.
    await expect.poll(storedUnder).toBe('-');
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a page cannot read the integration's description with the key, even on an origin the integration lists", async () => {
    const page = await browser.newPage();
    await page.goto(site.origin);
    const url = `${service.url}/query/v1/projects/${PUBLIC.projectId}/integrations/${PUBLIC.integrationId}/`;
    const outcome = await page.evaluate(
      async ({ url, key }) => {
        const read = async (init: RequestInit) => {
          try {
            return `read ${(await fetch(url, init)).status}`;
          } catch (error) {
            return `refused: ${String(error)}`;
          }
        };
        return { withKey: await read({ headers: { 'X-API-Key': key } }), without: await read({}) };
      },
      { url, key: PUBLIC.apiKey },
    );
    // The preflight never clears X-API-Key; without it the call is only the 401 anyone gets.
    expect(outcome).toEqual({ withKey: expect.stringMatching(/^refused: TypeError/), without: 'read 401' });
    const server = await fetch(url, { headers: { 'X-API-Key': PUBLIC.apiKey } });
    expect(await server.json()).toEqual({
      id: PUBLIC.integrationId,
      name: PUBLIC.integrationId,
      public: true,
      allowed_origins: [site.origin],
    });
    await page.close();
  });
});
