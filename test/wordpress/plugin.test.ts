import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ownerKey } from '../../contract/owner-key.js';
import { ask, axe, launchChromium } from '../dist/chromium.js';
import { ERROR_BODY, startMisbehavingService } from '../cms/misbehaving-service.js';
import { ROOT, freePort, startService, tempDir, type RunningService } from '../cms/processes.js';
import { startWordPress, type WordPressSite } from './site.js';

/**
 * The plugin from dist/agent-chat-wordpress.zip in Debian's WordPress, against the real agent
 * service, driven as its users drive it: an Administrator sets it up, an Author publishes, a
 * Subscriber and an anonymous visitor chat, another site tries to mint. The cases run in order
 * on one site.
 */

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

type Role = 'admin' | 'author' | 'subscriber';
let wp: WordPressSite;
let service: RunningService;
let browser: Browser;
let misbehaving: Awaited<ReturnType<typeof startMisbehavingService>>;
/** Every page and REST answer anyone was served: the API key must be in none of them. */
const served: { url: string; body: string }[] = [];
const SESSION_ROUTE = '/wp-json/agent-chat/v1/session';
/** An address of the site on the internet, which the mu-plugin `moveSite` writes gives it. */
const PUBLIC_ORIGIN = 'https://blog.example.com';
/** The version of Debian's wordpress package, which the site runs. */
const debianWordPress = /\$wp_version = '([^']+)'/.exec(
  readFileSync('/usr/share/wordpress/wp-includes/version.php', 'utf8'),
)?.[1];
/** Whether WordPress `version` is `wanted` or later (major.minor). */
const atLeast = (version: string, wanted: string) => {
  const [a = 0, b = 0] = version.split('.').map(Number);
  const [c = 0, d = 0] = wanted.split('.').map(Number);
  return a > c || (a === c && b >= d);
};

beforeAll(async () => {
  const dir = await tempDir('agent-chat-wordpress-');
  cleanup.push(dir.remove);
  const port = await freePort();
  const started = await Promise.all([
    // The integration allows the WordPress site's origin, as its owner would set it, and the
    // public address the site is given in the setup check's loopback case.
    startService(join(dir.path, 'service'), {
      allowedOrigins: [`http://127.0.0.1:${port}`, PUBLIC_ORIGIN],
    }),
    startWordPress(dir.path, join(ROOT, 'dist/agent-chat-wordpress.zip'), port),
    launchChromium(),
    startMisbehavingService(),
  ]);
  [service, wp, browser, misbehaving] = started;
  cleanup.push(service.stop, wp.stop, () => browser.close(), misbehaving.close);
}, 180_000);

/** A fetch from Node (no browser), recorded for the key check. */
async function get(
  path: string,
  init: RequestInit = {},
): Promise<{ response: globalThis.Response; body: string }> {
  const response = await fetch(new URL(path, wp.origin), { redirect: 'manual', ...init });
  const body = await response.text();
  served.push({ url: path, body });
  return { response, body };
}

function record(context: BrowserContext): BrowserContext {
  // Nothing leaves the machine: WordPress's admin bar shows a Gravatar, and a "load" that waits on
  // a host name this network may take its time to refuse failed the sign-in once in CI.
  void context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => route.abort('internetdisconnected'),
  );
  context.on('response', (response: Response) => {
    if (!['document', 'fetch', 'xhr'].includes(response.request().resourceType())) return;
    void response.text().then(
      (body) => served.push({ url: response.url(), body }),
      () => {},
    );
  });
  return context;
}

/**
 * A browser of its own for a visitor who is not signed in, tall enough to show the inline chat
 * whole below the theme's header: axe measures the contrast of text in a scrolled shadow root
 * against the page's white (the pixels are the panel's dark; checked on a screenshot).
 */
const visitor = async () => record(await browser.newContext({ viewport: { width: 1280, height: 1200 } }));

/**
 * Signs in through wp-login.php's form, posted by the context's own request client, so the
 * context's pages carry the session's cookies. Not through the page: once in a few runs the
 * form's post never reached the dashboard within 30 s (no failed request, nothing in PHP's log),
 * and the login screen is WordPress's, not what these tests are about.
 */
async function signIn(role: Role): Promise<BrowserContext> {
  const context = record(await browser.newContext());
  const login = `${wp.origin}/wp-login.php`;
  // wp-login.php refuses a post without the test cookie its page sets.
  await context.request.get(login, { timeout: 20_000 });
  const response = await context.request.post(login, {
    form: {
      log: role,
      pwd: wp.passwords[role],
      'wp-submit': 'Log In',
      testcookie: '1',
      redirect_to: `${wp.origin}/wp-admin/`,
    },
    maxRedirects: 0,
    timeout: 20_000,
  });
  const cookies = await context.cookies();
  if (response.status() !== 302 || !cookies.some((c) => c.name.startsWith('wordpress_logged_in_')))
    throw new Error(
      `${role} could not sign in: ${response.status()} ${(await response.text()).match(/id="login_error"[\s\S]{0,300}/)?.[0] ?? ''}`,
    );
  return context;
}

/** A page of the site in `context`, on a static file: a same-origin place to call from. */
async function onSite(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${wp.origin}/readme.html`);
  return page;
}

/** Settings → Agent Chat, as the Administrator. */
async function settingsPage(): Promise<Page> {
  const page = await admin.newPage();
  await page.goto(`${wp.origin}/wp-admin/options-general.php?page=agent-chat`);
  return page;
}

/** The text of what describes the field labelled `label` (its aria-describedby). */
async function describedBy(page: Page, label: string): Promise<string> {
  const ids = (await page.getByLabel(label).getAttribute('aria-describedby')) ?? '';
  const texts = await Promise.all(
    ids
      .split(' ')
      .filter(Boolean)
      .map((id) => page.locator(`#${id}`).innerText()),
  );
  return texts.join(' ').trim();
}

/** Presses Save Changes on a settings page and waits for the page WordPress answers with. */
async function saveSettings(page: Page): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Save Changes' }).click()]);
}

/** Publishes a post through the REST API the block editor saves with, as `context`'s user. */
async function publish(context: BrowserContext, title: string, content: string) {
  const page = await onSite(context);
  const result = await page.evaluate(
    async ({ title, content }) => {
      const nonce = await (await fetch('/wp-admin/admin-ajax.php?action=rest-nonce')).text();
      const response = await fetch('/wp-json/wp/v2/posts?context=edit', {
        method: 'POST',
        headers: { 'X-WP-Nonce': nonce, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title, content, status: 'publish' }),
      });
      return { status: response.status, body: await response.json() };
    },
    { title, content },
  );
  await page.close();
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return {
    id: result.body.id as number,
    link: result.body.link as string,
    raw: result.body.content.raw as string,
  };
}

/**
 * What the Agent Chat block's placeholder says in the block editor, as a screen reader reads it
 * (the accessibility tree of the block), with post `id` open as `context`'s user.
 */
async function editorSays(context: BrowserContext, id: number): Promise<string> {
  const page = await context.newPage();
  await page.goto(`${wp.origin}/wp-admin/post.php?post=${id}&action=edit`);
  await page.locator('[data-type="agent-chat/chat"]').waitFor();
  // A first-time user's welcome guide hides the rest from the accessibility tree: a person closes it.
  if ((await page.getByRole('dialog').count()) > 0) await page.keyboard.press('Escape');
  await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  const said = await page.getByRole('document', { name: 'Block: Agent Chat' }).ariaSnapshot();
  await page.close();
  // The snapshot is YAML, which doubles a quote inside a quoted line.
  return said.replaceAll("''", "'");
}

/** Opens `url` and asks the widget a question; resolves with the answer and the session exchange. */
async function chatOn(context: BrowserContext, url: string, question = 'How do I install the widget?') {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // What the browser's console reports as failed loads.
  const failed: string[] = [];
  page.on(
    'response',
    (response) => response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`),
  );
  await page.goto(url);
  const [session, answer] = await Promise.all([
    page.waitForResponse((response) => response.url().includes('agent-chat/v1/session')),
    ask(page, question),
  ]);
  const result = {
    page,
    answer,
    errors,
    failed,
    html: await page.content(),
    requestHeaders: await session.request().allHeaders(),
    headers: await session.allHeaders(),
    body: (await session.json()) as { session_token: string },
  };
  return result;
}

const agent = () => `${service.url}/agent/v1/projects/${service.projectId}/agent`;
/** The service's own §1 mint for `owner`, to see a thread from the owner's side. */
async function threadsOf(owner: string): Promise<string[]> {
  const { session_token } = await fetch(`${agent()}/sessions/`, {
    method: 'POST',
    headers: { 'X-API-Key': service.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ external_owner_id: owner }),
  }).then((r) => r.json());
  const list = await fetch(`${agent()}/threads/`, {
    headers: { Authorization: `Bearer ${session_token}` },
  }).then((r) => r.json());
  return list.threads.map((t: { title: string }) => t.title);
}
const historyStatus = (token: string) =>
  fetch(`${agent()}/threads/`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);

/** Starts every window of the per-address limit afresh (the cases share 127.0.0.1). */
const resetLimits = () =>
  wp.sql("DELETE FROM wordpress.wp_options WHERE option_name LIKE '%transient%agent_chat_limit%'");

// The cases share 127.0.0.1; the limit has its own case.
beforeEach(() => void resetLimits());

let admin: BrowserContext;
let author: BrowserContext;
let shortcodePost: string;
/** The post the block editor saved with the block. */
let blockPost: number;

describe('installing and setting up', () => {
  it("installs from the zip with WordPress's own unzip, and activates", () => {
    // Debian's WordPress, whichever release the machine has (bookworm 6.1, trixie 6.8), and at
    // least what the plugin says it requires.
    expect(wp.version).toBe(debianWordPress);
    expect(atLeast(wp.version, '6.1')).toBe(true);
    const bundled = readFileSync(join(wp.root, 'wp-content/plugins/agent-chat/assets/agent-chat.iife.js'));
    expect(bundled.equals(readFileSync(join(ROOT, 'dist/agent-chat.iife.js')))).toBe(true);
    // And what the script loads from beside itself when a visitor needs it: its parts (the
    // markdown engine, the Conversations list, the attachment view) and its languages.
    const beside = readdirSync(join(ROOT, 'dist')).filter((name) =>
      /^agent-chat\.(part\.[\w.-]+|locale\.\w+)\.js$/.test(name),
    );
    expect(beside.filter((name) => name.startsWith('agent-chat.part.markdown-engine'))).toHaveLength(1);
    const assets = readdirSync(join(wp.root, 'wp-content/plugins/agent-chat/assets'));
    expect(beside.filter((name) => !assets.includes(name))).toEqual([]);
    expect(
      wp.sql("SELECT option_value FROM wordpress.wp_options WHERE option_name = 'active_plugins'"),
    ).toContain('agent-chat/agent-chat.php');
  });

  it('Settings → Agent Chat: an Administrator saves the service, and the API key field never shows the key', async () => {
    admin = await signIn('admin');
    const page = await admin.newPage();
    // Just activated, the plugin's row on the Plugins screen leads to its settings.
    await page.goto(`${wp.origin}/wp-admin/plugins.php`);
    await page
      .locator('tr[data-slug="agent-chat"]')
      .getByRole('link', { name: 'Settings', exact: true })
      .click();
    await expect
      .poll(() => page.getByRole('heading', { name: 'Agent Chat', level: 1 }).isVisible())
      .toBe(true);
    expect(await page.getByText('Not set up yet').isVisible()).toBe(true);
    // A plain-http service elsewhere is refused: the key would travel in clear text.
    await page.getByLabel('Service URL').fill('http://agent.example.com');
    await saveSettings(page);
    expect(await page.getByText('must start with https://').isVisible()).toBe(true);
    expect(await page.getByLabel('Service URL').inputValue()).toBe('');

    // Each field says where its value comes from, in the words of the service's start command
    // and its console: an owner who started it as the README says has no console admin yet.
    expect(await page.getByLabel('Service URL').getAttribute('aria-describedby')).toBeTruthy();
    expect(await describedBy(page, 'Service URL')).toBe(
      'The address agent-chat-service printed as it started ("listening on …"). Visitors\' browsers connect to it too, so a live site needs an https address they can reach, not 127.0.0.1.',
    );
    expect(await describedBy(page, 'Project ID')).toBe(
      "The --project the service was started with, or a project's ID in its console.",
    );
    expect(await describedBy(page, 'Integration ID')).toBe(
      "The --integration the service was started with, or an ID from its console's Integrations page.",
    );
    expect(await describedBy(page, 'API key')).toBe(
      "The --api-key the service was started with, or a key from its console's API keys page. It stays on this server; or define AGENT_CHAT_API_KEY in wp-config.php.",
    );
    await page.getByLabel('Service URL').fill(service.url);
    await page.getByLabel('Project ID').fill(service.projectId);
    await page.getByLabel('Integration ID').fill(service.integrationId);
    await page.getByLabel('API key').fill(service.apiKey);
    await saveSettings(page);
    expect(await page.getByText('Settings saved.').isVisible()).toBe(true);
    // Checked against the service on save: the project's key, its integration, this site's origin.
    const status = page.getByRole('status');
    expect(
      await status.getByText('Connected: visitors can chat wherever you place the widget.').isVisible(),
    ).toBe(true);
    expect(
      await status
        .getByText(`Project ${service.projectId}, integration ${service.integrationId}.`)
        .textContent(),
    ).toContain('The integration is not public');
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByLabel('API key').inputValue()).toBe('');
    expect(await page.getByText('A key is saved. It is never shown again').isVisible()).toBe(true);
    expect(await page.content()).not.toContain(service.apiKey);
    expect(await axe(page, '.wrap')).toEqual([]);

    // Saving again with the key field empty keeps the key (checked by every mint below).
    await saveSettings(page);
    expect(await page.getByText('Settings saved.').isVisible()).toBe(true);
    expect(await page.getByRole('status').getByText('Connected: visitors can chat').isVisible()).toBe(true);
    // WordPress's page of every option prints plain options; the key is not one of them.
    await page.goto(`${wp.origin}/wp-admin/options.php`);
    expect(await page.content()).toContain('agent_chat_secret');
    expect(await page.content()).not.toContain(service.apiKey);
    await page.close();
  });
});

describe('an Author places the chat', () => {
  it("loses the README's script-tag snippet: WordPress strips it from an Author's post", async () => {
    author = await signIn('author');
    const snippet = `<script src="https://cdn.jsdelivr.net/npm/agent-chat@0.1.0/dist/agent-chat.iife.js" crossorigin="anonymous"></script>
<agent-chat project-id="${service.projectId}" integration-id="${service.integrationId}" session-endpoint="/api/agent-session" base-url="${service.url}"></agent-chat>`;
    const post = await publish(author, 'Pasted snippet', snippet);
    expect(post.raw).not.toMatch(/<script|<agent-chat/);
    const { body } = await get(post.link);
    expect(body).not.toMatch(/<agent-chat|agent-chat\.iife\.js|cdn\.jsdelivr/);
  });

  it('with the shortcode: a visitor gets an answer, and what the post says of endpoints is ignored', async () => {
    const post = await publish(
      author,
      'Shortcode',
      '[agent_chat heading="Ask the docs" greeting="Hello from WordPress" prompts="How do I install it?|Theming" theme="dark" session-endpoint="https://evil.example/steal" base_url="https://evil.example" base-url="https://evil.example"]',
    );
    shortcodePost = post.link;
    const { body: html } = await get(post.link);
    const element = /<agent-chat [^>]*><\/agent-chat>/.exec(html)?.[0] ?? '';
    expect(element).toContain(`session-endpoint="${wp.origin}/wp-json/agent-chat/v1/session"`);
    expect(element).toContain(`base-url="${service.url}"`);
    expect(element).toContain('heading="Ask the docs"');
    expect(element).toContain('prompts="How do I install it?|Theming"');
    expect(element).toContain('theme="dark"');
    expect(element).toContain('mode="inline"');
    expect(html).not.toContain('evil.example');

    // The bundled script with its integrity hash, deferred where WordPress has the `defer`
    // strategy (6.3+), else in the footer after the content; then the nonce script.
    const sri = JSON.parse(readFileSync(join(ROOT, 'dist/sri.json'), 'utf8'))['agent-chat.iife.js'];
    expect(sri).toBe(
      `sha384-${createHash('sha384')
        .update(readFileSync(join(ROOT, 'dist/agent-chat.iife.js')))
        .digest('base64')}`,
    );
    const script = /<script [^>]*agent-chat\.iife\.js[^>]*>/.exec(html)?.[0] ?? '';
    expect(script).toContain(`integrity="${sri}"`);
    expect(script).toContain('crossorigin="anonymous"');
    expect(script).toContain('/wp-content/plugins/agent-chat/assets/agent-chat.iife.js');
    if (atLeast(wp.version, '6.3')) expect(script).toMatch(/\sdefer[\s=>]/);
    else expect(html.indexOf(script)).toBeGreaterThan(html.indexOf(element));
    expect(html.indexOf('assets/wordpress.js')).toBeGreaterThan(html.indexOf(script));
    // The plugin prints no inline script (WordPress's own emoji loader is one; none is ours).
    const inline = [...html.matchAll(/<script\b(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(inline.length).toBeGreaterThan(0);
    expect(inline.filter((code) => /agent|rest-nonce|wp-json/i.test(code))).toEqual([]);

    const chat = await chatOn(await visitor(), post.link);
    expect(chat.answer).toMatch(/Three steps get the widget on a page/);
    expect(chat.errors).toEqual([]);
    // A signed-out visitor's nonce request is answered, empty, not refused with WordPress's 400
    // that every visitor's console showed.
    expect(chat.failed).toEqual([]);
    // Rendered as markdown (the engine is a part the script fetches from the plugin's assets).
    await expect.poll(() => chat.page.locator('agent-chat .content ol li strong').count()).toBe(3);
    expect(await axe(chat.page, 'agent-chat')).toEqual([]);
    expect(chat.requestHeaders['x-wp-nonce']).toBeUndefined();
    expect(chat.headers['agent-chat-owner-key']).toBe('-');
    expect(chat.headers['cache-control']).toBe('no-store');
    expect(await historyStatus(chat.body.session_token)).toBe(403);
    // Nothing of the session is in the page: the token lives in the widget's memory only.
    expect(chat.html).not.toContain(chat.body.session_token);
    await chat.page.close();
  });

  it('with the block, saved by the block editor: found in the inserter, rendered, and the chat answers', async () => {
    const page = await author.newPage();
    await page.goto(`${wp.origin}/wp-admin/post-new.php`);
    await page.waitForFunction(() => {
      const wp = (window as unknown as { wp?: { blocks?: { getBlockType(name: string): unknown } } }).wp;
      return Boolean(wp?.blocks?.getBlockType('agent-chat/chat'));
    });
    // The editor greets a first-time author with a guide; a person closes it, then finds the
    // block by name in the inserter.
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    // Named "Toggle block inserter" and "Search for blocks and patterns" in 6.1, "Block Inserter"
    // and "Search" in 6.8.
    await page.getByRole('button', { name: /^(toggle block inserter|block inserter)$/i }).click();
    await page
      .getByRole('searchbox', { name: /^(search for blocks and patterns|search)$/i })
      .fill('Agent Chat');
    await expect.poll(() => page.getByRole('option', { name: 'Agent Chat' }).isVisible()).toBe(true);
    const saved = await page.evaluate(async () => {
      type Data = {
        dispatch(store: string): Record<string, (...args: unknown[]) => Promise<unknown>>;
        select(store: string): Record<string, (...args: unknown[]) => unknown>;
      };
      const { data, blocks } = (
        window as unknown as { wp: { data: Data; blocks: { createBlock(...a: unknown[]): unknown } } }
      ).wp;
      await data.dispatch('core/block-editor').insertBlocks([
        blocks.createBlock('agent-chat/chat', {
          heading: 'Block heading',
          theme: 'auto',
          prompts: 'Theming|Events',
        }),
      ]);
      await data.dispatch('core/editor').editPost({ title: 'Block', status: 'publish' });
      await data.dispatch('core/editor').savePost();
      return {
        id: data.select('core/editor').getCurrentPostId() as number,
        link: data.select('core/editor').getPermalink() as string,
        content: data.select('core/editor').getEditedPostContent() as string,
      };
    });
    await page.close();
    blockPost = saved.id;
    // Set up, and the setup check (kept since the settings page ran it) found it connected.
    expect(await editorSays(author, blockPost)).toContain('Visitors chat with your agent here.');
    expect(saved.content).toContain(
      '<!-- wp:agent-chat/chat {"heading":"Block heading","prompts":"Theming|Events","theme":"auto"} /-->',
    );
    const { body: html } = await get(saved.link);
    const element = /<agent-chat [^>]*><\/agent-chat>/.exec(html)?.[0] ?? '';
    expect(element).toContain('heading="Block heading"');
    expect(element).toContain('theme="auto"');
    expect(element).toContain(`session-endpoint="${wp.origin}/wp-json/agent-chat/v1/session"`);
    const chat = await chatOn(await visitor(), saved.link, 'Which events does it fire?');
    expect(chat.answer).toMatch(/Every event is named/);
    await chat.page.close();
  });

  it('a block whose markup names an endpoint or a service: both ignored', async () => {
    const post = await publish(
      author,
      'Forged block',
      '<!-- wp:agent-chat/chat {"mode":"launcher","sessionEndpoint":"https://evil.example/steal","baseUrl":"https://evil.example","session-endpoint":"https://evil.example/s"} /-->',
    );
    const { body: html } = await get(post.link);
    const element = /<agent-chat [^>]*><\/agent-chat>/.exec(html)?.[0] ?? '';
    expect(element).toContain('mode="launcher"');
    expect(element).toContain(`session-endpoint="${wp.origin}/wp-json/agent-chat/v1/session"`);
    expect(html).not.toContain('evil.example');
  });

  it('a heading with markup or quotes stays text in the element: no attribute of its own, no element, no script', async () => {
    // Quotes in the shortcode (WordPress's parser takes no markup there); markup in the block's
    // attributes, which the block editor saves as JSON.
    const quotes = `x" onmouseover="window.hit=1" data-x="y`;
    const markup = `"><img src=x onerror=window.hit=2></agent-chat><script>window.hit=3</script>`;
    const post = await publish(
      author,
      'Heading with markup',
      `[agent_chat heading='${quotes}']\n\n` +
        `<!-- wp:agent-chat/chat ${JSON.stringify({ heading: markup, prompts: markup, theme: '" onclick="x' })} /-->`,
    );
    const page = await (await visitor()).newPage();
    await page.goto(post.link);
    await page.waitForFunction(() => customElements.get('agent-chat') !== undefined);
    const found = await page.evaluate(() => {
      const elements = [...document.querySelectorAll('agent-chat')];
      return {
        names: [...new Set(elements.flatMap((e) => e.getAttributeNames()))],
        headings: elements.map((e) => e.getAttribute('heading') ?? ''),
        themes: elements.map((e) => e.getAttribute('theme')),
        children: elements.map((e) => e.children.length),
        images: elements.reduce((n, e) => n + (e.shadowRoot?.querySelectorAll('img, script').length ?? 0), 0),
        hit: (window as unknown as { hit?: number }).hit,
      };
    });
    await page.context().close();
    const allowed = [
      'base-url',
      'greeting',
      'heading',
      'integration-id',
      'mode',
      'project-id',
      'prompts',
      'session-endpoint',
      'theme',
    ];
    expect(found.names.filter((name) => !allowed.includes(name))).toEqual([]);
    expect(found.headings).toHaveLength(2);
    expect(found.headings[0]).toBe(quotes);
    expect(found.children).toEqual([0, 0]);
    // A theme that is not one of the three never reaches the page.
    expect(
      found.themes.filter((theme) => theme !== null && !['light', 'dark', 'auto'].includes(theme)),
    ).toEqual([]);
    expect(found.images).toBe(0);
    expect(found.hit).toBeUndefined();
  });
});

describe('whose session it is', () => {
  let subscriber: BrowserContext;

  it("a Subscriber's session is theirs: minted with a fresh nonce, owner wp:<id>, and the owner key of §2", async () => {
    subscriber = await signIn('subscriber');
    const chat = await chatOn(subscriber, shortcodePost, 'How do I theme it?');
    expect(chat.answer).toMatch(/Style the widget/);
    expect(chat.requestHeaders['x-wp-nonce']).toMatch(/^[0-9a-f]{10}$/);
    const owner = `wp:${wp.users.subscriber}`;
    expect(chat.headers['agent-chat-owner-key']).toBe(await ownerKey(owner, service.apiKey));
    expect(chat.headers['cache-control']).toBe('no-store');
    expect(await historyStatus(chat.body.session_token)).toBe(200);
    expect(await threadsOf(owner)).toContain('How do I theme it?');
    // Neither the nonce nor the owner key is in the page, which a cache may keep.
    expect(chat.html).not.toContain(chat.requestHeaders['x-wp-nonce']);
    expect(chat.html).not.toContain(chat.headers['agent-chat-owner-key']);
    await chat.page.close();
  });

  it('a call without a nonce is anonymous, even with the signed-in cookies; a forged nonce is refused', async () => {
    const cookie = (await subscriber.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const page = await onSite(subscriber);
    // The same cookies, and WordPress does know who they are…
    expect(
      await page.evaluate(async () => (await fetch('/wp-admin/admin-ajax.php?action=rest-nonce')).status),
    ).toBe(200);
    await page.close();
    // …but a request without the nonce (what another site can make a browser send) is nobody's.
    const { response, body } = await get(SESSION_ROUTE, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: 'https://evil.example' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Agent-Chat-Owner-Key')).toBe('-');
    expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(await historyStatus(JSON.parse(body).session_token)).toBe(403);
    const forged = await get(SESSION_ROUTE, {
      method: 'POST',
      headers: { Cookie: cookie, 'X-WP-Nonce': '0123456789' },
    });
    expect(forged.response.status).toBe(403);
    expect(forged.body).not.toContain('session_token');
  });

  it("another site's page cannot read a session: the route answers no CORS, whatever WordPress does elsewhere", async () => {
    const other = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Elsewhere</title>'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const page = await subscriber.newPage();
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const outcome = await page.evaluate(async (url) => {
        try {
          const response = await fetch(url, { method: 'POST', credentials: 'include' });
          return `read ${response.status}`;
        } catch (error) {
          return `refused: ${String(error)}`;
        }
      }, `${wp.origin}${SESSION_ROUTE}`);
      expect(outcome).toMatch(/^refused: TypeError/);
      // WordPress's other routes do answer it: the refusal is this route's own.
      const index = await page.evaluate(
        async (url) => (await fetch(url, { credentials: 'include' })).status,
        `${wp.origin}/wp-json/`,
      );
      expect(index).toBe(200);
      await page.close();
    } finally {
      other.close();
    }
  });

  it("another site's script tag cannot read a session either: no JSONP of a GET dressed as a POST", async () => {
    const other = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Elsewhere</title>'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const page = await subscriber.newPage();
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      // WordPress takes `_method` as the request's method and wraps the answer in `_jsonp`'s call.
      const leaked = await page.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            (window as unknown as { leak: (data: unknown) => void }).leak = (data) =>
              resolve(JSON.stringify(data));
            const script = document.createElement('script');
            script.src = url;
            script.onerror = () => resolve('no script');
            script.onload = () => setTimeout(() => resolve('not called'), 500);
            document.head.append(script);
          }),
        `${wp.origin}${SESSION_ROUTE}?_method=POST&_jsonp=leak`,
      );
      expect(leaked).not.toContain('session_token');
      // The same from a server: no session for a GET, whatever `_method` says.
      const { response, body } = await get(`${SESSION_ROUTE}?_method=POST`);
      expect(response.status).toBe(405);
      expect(body).not.toContain('session_token');
      await page.close();
    } finally {
      other.close();
    }
  });

  it('is also reachable as ?rest_route= (sites without pretty permalinks)', async () => {
    const { response, body } = await get(`/?rest_route=/agent-chat/v1/session`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(JSON.parse(body).session_token).toMatch(/^ses_/);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
  });
});

describe('the site-wide launcher', () => {
  it('shows the chat button on every page once ticked, and not twice where a post already has the chat', async () => {
    const page = await settingsPage();
    await page.getByLabel('Show the chat button on every page').check();
    await saveSettings(page);
    expect(await page.getByText('Settings saved.').isVisible()).toBe(true);
    await page.close();
    const home = await (await visitor()).newPage();
    await home.goto(`${wp.origin}/`);
    await home.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => home.getByRole('textbox', { name: 'Message' }).isVisible()).toBe(true);
    expect(await home.locator('agent-chat').count()).toBe(1);
    expect(await home.locator('agent-chat').getAttribute('mode')).toBe('launcher');
    await home.goto(shortcodePost);
    expect(await home.locator('agent-chat').count()).toBe(1);
    expect(await home.locator('agent-chat').getAttribute('mode')).toBe('inline');
    await home.close();
  });
});

describe('the setup check: the settings page says what is wrong, and how to fix it', () => {
  const mu = () => join(wp.root, 'wp-content/mu-plugins');
  // Each case sets only what it gets wrong; the rest is the setup saved above.
  beforeEach(() => wp.setConstants(null));
  afterAll(() => {
    wp.setConstants(null);
    rmSync(join(mu(), 'agent-chat-moved.php'), { force: true });
  });

  /** The settings page's alert, once the page is open (the check runs as it opens). */
  async function alertOn(page: Page): Promise<string> {
    const alert = page.getByRole('alert');
    expect(await page.getByRole('status').count()).toBe(0);
    expect(await axe(page, '.wrap')).toEqual([]);
    return (await alert.textContent()) ?? '';
  }

  it('an integration the project does not have', async () => {
    wp.setConstants({ AGENT_CHAT_INTEGRATION_ID: 'int_mistyped' });
    const page = await settingsPage();
    const alert = await alertOn(page);
    expect(alert).toContain(`Project ${service.projectId} has no integration int_mistyped.`);
    expect(alert).toContain(
      'Copy the integration ID from the Integrations page of the service console, then save.',
    );
    await page.close();
  });

  it('a service that does not answer: its URL and the error', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    wp.setConstants({ AGENT_CHAT_BASE_URL: url });
    const page = await settingsPage();
    const alert = await alertOn(page);
    expect(alert).toMatch(new RegExp(`The agent service at ${url} could not be reached: \\S.*`));
    expect(alert).toContain('Check the service URL, and that the service is running');
    await page.close();
  });

  it('a site whose origin the integration does not list: named, and where to add it', async () => {
    // The site as if it had moved to another address, which its integration does not list yet.
    mkdirSync(mu(), { recursive: true });
    writeFileSync(
      join(mu(), 'agent-chat-moved.php'),
      "<?php add_filter('home_url', fn ($url, $path) => 'https://www.example.org' . $path, 10, 2);\n",
    );
    try {
      const page = await settingsPage();
      const alert = await alertOn(page);
      expect(alert).toContain(
        `This site's origin, https://www.example.org, is not among the allowed origins of integration ${service.integrationId}`,
      );
      expect(alert).toContain(
        `In the service console, open Integrations, then ${service.integrationId}; add https://www.example.org to its Allowed origins and save.`,
      );
      await page.close();
    } finally {
      rmSync(join(mu(), 'agent-chat-moved.php'));
    }
  });

  it("a service URL on this server's loopback while the site is public: visitors' browsers cannot reach it", async () => {
    // The site at its public address, which the integration allows: the service answers this
    // server, but a visitor's browser streams from the service URL and finds its own computer there.
    mkdirSync(mu(), { recursive: true });
    writeFileSync(
      join(mu(), 'agent-chat-moved.php'),
      `<?php add_filter('home_url', fn ($url, $path) => '${PUBLIC_ORIGIN}' . $path, 10, 2);\n`,
    );
    try {
      const page = await settingsPage();
      const alert = await alertOn(page);
      expect(alert).toContain(
        `The service URL, ${service.url}, is this server's own address: visitors' browsers connect to the service too, and there they find their own computer, so the chat cannot answer them.`,
      );
      expect(alert).toContain(
        'Give the service an https address visitors can reach (a reverse proxy in front of it), and set that as the service URL. Then check again.',
      );
      expect(alert).not.toContain('Connected');
      await page.close();
    } finally {
      rmSync(join(mu(), 'agent-chat-moved.php'));
    }
  });

  it('keeps a result briefly, and "Check again" asks again, never following a redirect with the key', async () => {
    wp.setConstants({ AGENT_CHAT_BASE_URL: misbehaving.url });
    misbehaving.set('html');
    const page = await settingsPage();
    const expected = 'did not answer as expected: it answered 503 with text/html instead of JSON.';
    expect(await alertOn(page)).toContain(expected);
    misbehaving.set('redirect');
    await page.reload();
    expect(await alertOn(page)).toContain(expected);
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Check again' }).click()]);
    expect(page.url()).toBe(`${wp.origin}/wp-admin/options-general.php?page=agent-chat`);
    expect(await alertOn(page)).toContain('it answered with a redirect, which is not followed');
    expect(misbehaving.keysElsewhere).toEqual([]);
    await page.close();
  });

  it('a service URL ending in /agent/v1 (an API path, not the address): told to remove it, not to update the service', async () => {
    wp.setConstants({ AGENT_CHAT_BASE_URL: `${service.url}/agent/v1` });
    const page = await settingsPage();
    const alert = await alertOn(page);
    expect(alert).toContain(
      `The agent service at ${service.url}/agent/v1 did not answer as expected: the service URL ends in /agent/v1, which the plugin adds itself; remove it.`,
    );
    expect(alert).not.toContain('update the service');
    await page.close();
  });

  it('a service older than the setup check: told so, not taken for an unknown integration', async () => {
    wp.setConstants({ AGENT_CHAT_BASE_URL: misbehaving.url });
    misbehaving.set('older');
    const page = await settingsPage();
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Check again' }).click()]);
    const alert = await alertOn(page);
    expect(alert).toContain(
      'did not answer as expected: it answered 404 for the setup check, so it is older than this plugin or not an agent service; update the service.',
    );
    expect(alert).not.toContain('has no integration');
    await page.close();
  });

  it('the block editor tells an Author what the check found, and whom to ask, from the kept result', async () => {
    wp.setConstants({ AGENT_CHAT_BASE_URL: misbehaving.url });
    // No kept result: the first editor load checks, the next reads what it kept.
    wp.sql("DELETE FROM wordpress.wp_options WHERE option_name LIKE '%transient%agent_chat_check%'");
    misbehaving.set('html');
    const said = await editorSays(author, blockPost);
    expect(said).toContain('Visitors cannot chat here: the setup check of Agent Chat failed.');
    expect(said).toContain(
      `The agent service at ${misbehaving.url} did not answer as expected: it answered 503 with text/html instead of JSON.`,
    );
    expect(said).toContain("Ask this site's administrator to fix it in Settings → Agent Chat.");
    expect(said).not.toContain('Visitors chat with your agent here.');
    // Another editor load calls no service: it still says what the kept check found.
    misbehaving.set('redirect');
    expect(await editorSays(author, blockPost)).toContain('it answered 503 with text/html instead of JSON.');
  });

  it('the published post tells an Author what the check found, and whom to ask, above the chat; a visitor reads none of it', async () => {
    wp.setConstants({ AGENT_CHAT_BASE_URL: misbehaving.url });
    misbehaving.set('html');
    const page = await author.newPage();
    await page.goto(shortcodePost);
    // The editor's words (one place says them), once: the site-wide launcher adds no second note.
    for (const line of [
      'Visitors cannot chat here: the setup check of Agent Chat failed.',
      `The agent service at ${misbehaving.url} did not answer as expected: it answered 503 with text/html instead of JSON.`,
      "Ask this site's administrator to fix it in Settings → Agent Chat.",
    ]) {
      const note = page.getByText(line, { exact: true });
      expect(await note.count()).toBe(1);
      expect(await note.isVisible()).toBe(true);
    }
    await page.close();
    const { body } = await get(shortcodePost);
    expect(body).not.toContain('setup check');
    expect(body).not.toContain('Visitors cannot chat here');
    expect(body).toMatch(/<agent-chat /);
  });
});

describe('wp-config.php constants', () => {
  afterAll(() => wp.setConstants(null));

  it('win over the settings page, which shows them as fixed and never prints the key', async () => {
    wp.setConstants({
      AGENT_CHAT_API_KEY: 'key-from-wp-config-0000',
      AGENT_CHAT_PROJECT_ID: service.projectId,
    });
    const page = await settingsPage();
    expect(await page.getByLabel('API key').isDisabled()).toBe(true);
    expect(await page.getByLabel('Project ID').isDisabled()).toBe(true);
    expect(await page.getByText('Set in wp-config.php.').count()).toBe(2);
    // The service does not know that key, and the page says so (and nothing of the key).
    const refused = await page.getByRole('alert').textContent();
    expect(refused).toContain(`The agent service refused the API key for project ${service.projectId}.`);
    // Where the key comes from for an owner who started the service with the README's command.
    expect(refused).toContain('the --api-key the service was started with');
    expect(await page.content()).not.toContain('key-from-wp-config-0000');
    expect(await axe(page, '.wrap')).toEqual([]);
    await page.close();
    // The service does not know that key: its 401 comes through as it is.
    const { response, body } = await get(SESSION_ROUTE, { method: 'POST' });
    expect(response.status).toBe(401);
    expect(JSON.parse(body).code).toBe('invalid_api_key');
    expect(body).not.toContain('key-from-wp-config-0000');
    // A key revoked after the setup check said "Connected" shows here, in the site's log (decision 677).
    expect(wp.debugLog()).toContain(
      `[agent-chat] POST ${service.url}/agent/v1/projects/${service.projectId}/agent/sessions/ answered 401: Missing or invalid X-API-Key for this project: check the project id and the API key.`,
    );
    expect(wp.debugLog()).not.toContain('key-from-wp-config-0000');
  });

  describe('pointing at a service that misbehaves', () => {
    const base = () => ({ AGENT_CHAT_BASE_URL: misbehaving.url });

    it("passes the service's JSON error through with its Retry-After and no owner key", async () => {
      wp.setConstants(base());
      misbehaving.set('error-json');
      const { response, body } = await get(SESSION_ROUTE, { method: 'POST' });
      expect(response.status).toBe(429);
      expect(JSON.parse(body)).toEqual(JSON.parse(ERROR_BODY));
      expect(response.headers.get('Retry-After')).toBe('7');
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      expect(response.headers.get('Agent-Chat-Owner-Key')).toBeNull();
    });

    it('never follows a redirect with the key', async () => {
      wp.setConstants(base());
      misbehaving.set('redirect');
      const { response, body } = await get(SESSION_ROUTE, { method: 'POST' });
      expect(response.status).toBe(502);
      expect(JSON.parse(body)).toEqual({
        detail: 'The agent service answered with a redirect, which is not followed.',
        code: 'service_unavailable',
      });
      expect(misbehaving.keysElsewhere).toEqual([]);
    });

    it('refuses an oversized answer, and an error page that is not JSON', async () => {
      wp.setConstants(base());
      misbehaving.set('huge');
      const huge = await get(SESSION_ROUTE, { method: 'POST' });
      expect(huge.response.status).toBe(502);
      expect(JSON.parse(huge.body).detail).toBe('The agent service answered with an oversized body.');
      misbehaving.set('html');
      const html = await get(SESSION_ROUTE, { method: 'POST' });
      expect(html.response.status).toBe(502);
      expect(JSON.parse(html.body).detail).toBe(
        'The agent service answered 503 with text/html instead of JSON.',
      );
      expect(html.response.headers.get('Retry-After')).toBe('30');
    });

    it('answers the JSON 502 at its time limit when the service stalls', async () => {
      wp.setConstants(base());
      misbehaving.set('stall');
      // The limit is a filter; a must-use plugin sets it as a site owner would.
      const mu = join(wp.root, 'wp-content/mu-plugins');
      mkdirSync(mu, { recursive: true });
      writeFileSync(
        join(mu, 'agent-chat-timeout.php'),
        "<?php add_filter('agent_chat_timeout', fn () => 1.5);\n",
      );
      try {
        const started = Date.now();
        const { response, body } = await get(SESSION_ROUTE, { method: 'POST' });
        expect(Date.now() - started).toBeLessThan(8_000);
        expect(response.status).toBe(502);
        expect(JSON.parse(body)).toEqual({
          detail: 'The agent service did not answer within 1500 ms.',
          code: 'service_unavailable',
        });
      } finally {
        rmSync(join(mu, 'agent-chat-timeout.php'));
      }
    });

    it('answers a JSON 502 when the service is down, and the log says which service', async () => {
      const down = `http://127.0.0.1:${await freePort()}`;
      wp.setConstants({ AGENT_CHAT_BASE_URL: down });
      const { response, body } = await get(SESSION_ROUTE, { method: 'POST' });
      expect(response.status).toBe(502);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      expect(JSON.parse(body)).toEqual({
        detail: 'The agent service could not be reached.',
        code: 'service_unavailable',
      });
      expect(wp.debugLog()).toContain(
        `[agent-chat] POST ${down}/agent/v1/projects/${service.projectId}/agent/sessions/ failed: The agent service could not be reached.`,
      );
    });
  });
});

describe('the limit per address', () => {
  it('refuses the 21st session of a minute with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++)
      statuses.push((await get(SESSION_ROUTE, { method: 'POST' })).response.status);
    expect(statuses).toEqual(Array(20).fill(200));
    const { response, body } = await get(SESSION_ROUTE, { method: 'POST' });
    expect(response.status).toBe(429);
    const wait = Number(response.headers.get('Retry-After'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(JSON.parse(body)).toEqual({
      detail: 'Too many sessions requested; try again later.',
      code: 'rate_limited',
    });
  });
});

describe('the API key', () => {
  it('is in no page and no answer anyone was served', async () => {
    // The pages a key could leak into, as each role sees them.
    await get('/');
    await get(shortcodePost);
    await get('/wp-json/');
    await get('/wp-json/agent-chat/v1');
    for (const path of [
      '/wp-admin/options-general.php?page=agent-chat',
      '/wp-admin/options.php',
      '/wp-json/wp/v2/settings',
    ]) {
      const page = await admin.newPage();
      if (path.startsWith('/wp-json/')) {
        await page.goto(`${wp.origin}/readme.html`);
        const body = await page.evaluate(async (url) => {
          const nonce = await (await fetch('/wp-admin/admin-ajax.php?action=rest-nonce')).text();
          return (await fetch(url, { headers: { 'X-WP-Nonce': nonce } })).text();
        }, path);
        served.push({ url: path, body });
      } else await page.goto(`${wp.origin}${path}`);
      await page.close();
    }
    expect(served.length).toBeGreaterThan(40);
    expect(served.filter(({ body }) => body.includes(service.apiKey)).map(({ url }) => url)).toEqual([]);
  });
});

describe('forgetting the key', () => {
  it('"Forget the saved key" removes it: the chat is not set up any more, and the route says so', async () => {
    const page = await settingsPage();
    await page.getByLabel('Forget the saved key').check();
    await saveSettings(page);
    expect(await page.getByText('Not set up yet').isVisible()).toBe(true);
    expect(await page.getByText('A key is saved').count()).toBe(0);
    await page.close();
    const { response, body } = await get(SESSION_ROUTE, { method: 'POST' });
    expect(response.status).toBe(500);
    expect(JSON.parse(body).code).toBe('misconfigured');
    expect(
      wp.sql("SELECT option_value FROM wordpress.wp_options WHERE option_name = 'agent_chat_secret'"),
    ).not.toContain(service.apiKey);
  });

  it('an Author who views a post with the chat reads that it is not set up, and whom to ask; a visitor sees nothing', async () => {
    // The block editor shows "Visitors chat with your agent here." whatever the settings: the
    // published post is where an Author finds out that it is not so. Once: the site-wide
    // launcher (still ticked) adds no second note below the post's.
    const page = await author.newPage();
    await page.goto(shortcodePost);
    const note = page.getByText(
      "Agent Chat is not set up yet, so visitors see nothing here: ask this site's administrator to finish Settings → Agent Chat.",
    );
    expect(await note.count()).toBe(1);
    expect(await note.isVisible()).toBe(true);
    await page.close();
    const { body } = await get(shortcodePost);
    expect(body).not.toContain('not set up yet');
    expect(body).not.toMatch(/<agent-chat /);
  });

  it('the block editor tells an Author that it is not set up, and whom to ask', async () => {
    const said = await editorSays(author, blockPost);
    expect(said).toContain(
      "Agent Chat is not set up yet, so visitors see nothing here: ask this site's administrator to finish Settings → Agent Chat.",
    );
    expect(said).not.toContain('Visitors chat with your agent here.');
  });
});

describe('deleting the plugin', () => {
  it('removes its options and its limit windows', () => {
    expect(
      wp.sql("SELECT COUNT(*) FROM wordpress.wp_options WHERE option_name LIKE 'agent_chat%'").trim(),
    ).not.toBe('0');
    execFileSync('php', [
      '-r',
      `define('WP_ADMIN', true); require '${join(wp.root, 'wp-load.php')}'; require_once ABSPATH . 'wp-admin/includes/plugin.php';
       deactivate_plugins('agent-chat/agent-chat.php'); uninstall_plugin('agent-chat/agent-chat.php');`,
    ]);
    expect(
      wp.sql("SELECT option_name FROM wordpress.wp_options WHERE option_name LIKE '%agent_chat%'").trim(),
    ).toBe('');
  });

  it('left no PHP notice or warning of its own in the log', () => {
    expect(wp.debugLog()).not.toMatch(/wp-content\/plugins\/agent-chat\//);
  });
});
