/**
 * One script tag installs the chat: the loader reads its settings from its own tag's data-*
 * attributes and adds the floating <agent-chat> where the page has none, for site builders that
 * keep a <script> but strip an unknown element or its attributes. The built loader, served by
 * the service, on a static page of another origin under a strict CSP.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATE_CHAT_MS } from '../../src/loader/one-tag.js';
import { ask, launchChromium, openWatched } from './chromium.js';
import { PUBLIC, listen, startPublicService } from './public-site.js';
import { TRUSTED_TYPES_CSP, startSite } from './static-site.js';

let browser: Browser;
let service: Awaited<ReturnType<typeof startPublicService>>;
let site: Awaited<ReturnType<typeof listen>>;

/** The one tag as the console gives it for a public integration, with `extra` attributes. */
const oneTag = (extra = '') =>
  `<script src="${service.url}/widget/latest/agent-chat.loader.iife.js" data-project-id="${PUBLIC.projectId}" data-integration-id="${PUBLIC.integrationId}" data-base-url="${service.url}"${extra}></script>`;

/** Each page: what its head and its body hold besides a heading. */
const PAGES: Record<string, () => { head: string; body: string }> = {
  '/': () => ({ head: oneTag(), body: '' }),
  '/defer': () => ({ head: oneTag(' defer'), body: '' }),
  '/async': () => ({ head: oneTag(' async'), body: '' }),
  // Site-wide code at the end of the body and a page's block: the same tag twice.
  '/twice': () => ({ head: oneTag(), body: oneTag(' async') }),
  // The page places its own chat (later in the document than the tag): left alone.
  '/own': () => ({
    head: oneTag(),
    body: `<agent-chat mode="inline" project-id="${PUBLIC.projectId}" integration-id="${PUBLIC.integrationId}" base-url="${service.url}"></agent-chat>`,
  }),
  // A builder's script adds the tag after the page has loaded (the test does it below).
  '/late': () => ({ head: '', body: '' }),
  // The other settings of the element come through too: its language and its heading.
  '/settings': () => ({ head: oneTag(' data-lang="de" data-heading="Hilfe"'), body: '' }),
  // A builder that keeps the src alone: the settings in its query come through (755).
  '/query': () => ({ head: queryTag(), body: '' }),
  // The same builder, the tag as the console gives it: its data-* are gone.
  '/stripped': () => ({
    head: `<script src="${service.url}/widget/latest/agent-chat.loader.iife.js" async></script>`,
    body: '',
  }),
};

/** The one tag with its settings in the src's query, and no data-* (HTML escapes its `&`). */
const queryTag = () => {
  const query = new URLSearchParams({
    'project-id': PUBLIC.projectId,
    'integration-id': PUBLIC.integrationId,
    'base-url': service.url,
  });
  return `<script src="${service.url}/widget/latest/agent-chat.loader.iife.js?${query.toString().replaceAll('&', '&amp;')}" async></script>`;
};

/** What a framework does once it has mounted: its own chat, inline in the page's main column. */
const mountOwn = (page: Page) =>
  page.evaluate(
    (attributes) => {
      const own = document.createElement('agent-chat');
      for (const [name, value] of Object.entries(attributes)) own.setAttribute(name, value);
      document.body.append(own);
    },
    {
      mode: 'inline',
      'project-id': PUBLIC.projectId,
      'integration-id': PUBLIC.integrationId,
      'base-url': service.url,
    },
  );

beforeAll(async () => {
  site = await listen((path) => {
    const page = PAGES[path]?.();
    return page
      ? {
          csp: `default-src 'self'; script-src ${service.url}; style-src 'self'; connect-src ${service.url}`,
          html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Built site</title>${page.head}</head><body><h1>A built site</h1>${page.body}</body></html>`,
        }
      : null;
  });
  [browser, service] = await Promise.all([launchChromium(), startPublicService(site.origin)]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service?.running.close();
  await site?.close();
});

const chats = (page: Page) => page.evaluate(() => document.querySelectorAll('agent-chat').length);

/** Opens the launcher and waits for the message box: the element came with its settings. */
async function opens(page: Page, name = 'Open chat') {
  await page.getByRole('button', { name }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  expect(await page.getByText('This chat is not set up yet.').count()).toBe(0);
}

describe('one script tag installs the chat (a public integration, strict CSP)', () => {
  it('a classic tag in the head adds the floating chat, which answers; no violation, no error', async () => {
    const { page, errors, violations } = await openWatched(browser, `${site.origin}/`);
    await opens(page);
    expect(await chats(page)).toBe(1);
    expect(await ask(page, 'How do I theme the widget?')).toContain('Style the widget from your page');
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  for (const path of ['/defer', '/async'])
    it(`works deferred and async too (${path})`, async () => {
      const { page, errors, violations } = await openWatched(browser, `${site.origin}${path}`);
      await opens(page);
      expect(await chats(page)).toBe(1);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    });

  it('a tag inserted after the page has loaded adds the chat', async () => {
    const { page, errors } = await openWatched(browser, `${site.origin}/late`);
    await page.waitForLoadState('load');
    await page.evaluate((html) => {
      const template = document.createElement('template');
      template.innerHTML = html;
      const parsed = template.content.querySelector('script')!;
      // A script parsed from HTML does not run: a builder's code creates one, as here.
      const script = document.createElement('script');
      for (const { name, value } of Array.from(parsed.attributes)) script.setAttribute(name, value);
      document.body.append(script);
    }, oneTag());
    await opens(page);
    expect(await chats(page)).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the tag pasted twice makes one chat, with one launcher', async () => {
    const { page, errors } = await openWatched(browser, `${site.origin}/twice`);
    await page.getByRole('button', { name: 'Open chat' }).waitFor();
    await page.waitForLoadState('load');
    expect(await chats(page)).toBe(1);
    expect(await page.getByRole('button', { name: 'Open chat' }).count()).toBe(1);
    await opens(page);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('leaves a page that places its own chat alone: no second chat', async () => {
    const { page, errors } = await openWatched(browser, `${site.origin}/own`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.waitForLoadState('load');
    expect(await chats(page)).toBe(1);
    // The page's inline chat, and no floating one beside it.
    expect(await page.getByRole('button', { name: 'Open chat' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("carries the element's other settings from the tag (its language, its heading)", async () => {
    const { page, errors } = await openWatched(browser, `${site.origin}/settings`);
    await page.getByRole('button', { name: 'Chat öffnen' }).click();
    await page.getByRole('heading', { name: 'Hilfe' }).waitFor();
    expect(await chats(page)).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("one script tag where a builder strips its data-*, and beside a framework's own chat", () => {
  it("takes the settings from the src's query: the chat answers, no violation, no error", async () => {
    const { page, errors, violations } = await openWatched(browser, `${site.origin}/query`);
    await opens(page);
    expect(await chats(page)).toBe(1);
    expect(await ask(page, 'How do I theme the widget?')).toContain('Style the widget from your page');
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says in the console what went missing and what to do, some seconds after the page loaded', async () => {
    const warnings: string[] = [];
    const { page, errors } = await openWatched(browser, `${site.origin}/stripped`, async (page) => {
      page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
      // The page's clock: the seconds the loader gives a page's own chat to come (800) pass at once.
      await page.clock.install();
    });
    await page.waitForLoadState('load');
    await page.clock.runFor(LATE_CHAT_MS - 1_000);
    expect(warnings).toEqual([]);
    await page.clock.runFor(1_000);
    await expect.poll(() => warnings.length).toBe(1);
    expect(warnings[0]).toContain("the loader's tag has no data-project-id");
    expect(warnings[0]).toContain('agent-chat.loader.iife.js?project-id=');
    expect(await chats(page)).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says nothing where a single-page app mounts its own chat a second after load', async () => {
    const warnings: string[] = [];
    const { page } = await openWatched(browser, `${site.origin}/stripped`, async (page) => {
      page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
      await page.clock.install();
    });
    await page.waitForLoadState('load');
    await page.clock.runFor(1_000);
    await mountOwn(page);
    await page.clock.runFor(LATE_CHAT_MS * 2);
    expect(await chats(page)).toBe(1);
    expect(warnings.filter((text) => text.includes('No chat on this page'))).toEqual([]);
    await page.close();
  });

  it("yields to a framework's own chat mounted after the page was parsed", async () => {
    const { page, errors } = await openWatched(browser, `${site.origin}/`);
    await page.getByRole('button', { name: 'Open chat' }).waitFor();
    await page.waitForLoadState('load');
    await mountOwn(page);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await expect.poll(() => chats(page)).toBe(1);
    expect(await page.getByRole('button', { name: 'Open chat' }).count()).toBe(0);
    expect(await ask(page, 'How do I theme the widget?')).toContain('Style the widget from your page');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps the chat the visitor has open when a framework mounts its own, until they close it', async () => {
    const { page, errors } = await openWatched(browser, `${site.origin}/`);
    await opens(page);
    await mountOwn(page);
    await expect.poll(() => page.getByRole('textbox', { name: 'Message' }).count()).toBe(2);
    expect(await chats(page)).toBe(2);
    // Closed (the element reflects it), the tag's chat goes at the page's next change.
    await page.getByRole('button', { name: 'Close chat' }).click();
    await page.evaluate(() => document.body.append(document.createElement('p')));
    await expect.poll(() => chats(page)).toBe(1);
    expect(await page.getByRole('button', { name: 'Open chat' }).count()).toBe(0);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('one script tag with a session endpoint (a site with its own server)', () => {
  it('takes the endpoint from data-session-endpoint, and the chat answers under a strict CSP with Trusted Types', async () => {
    const tag =
      '<script src="/agent-chat.loader.iife.js" data-project-id="proj_site" data-integration-id="int_site" data-session-endpoint="/api/agent-session" data-base-url="/service"></script>';
    const own = await startSite({ script: 'loader', scriptTag: tag, element: false, csp: TRUSTED_TYPES_CSP });
    try {
      const { page, errors, violations, requests } = await openWatched(browser, own.origin);
      await opens(page);
      expect(await ask(page, 'How do I theme the widget?')).toContain('Style the widget from your page');
      expect(requests).toContain(`POST ${own.origin}/api/agent-session`);
      expect(await chats(page)).toBe(1);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await own.close();
    }
  });
});
