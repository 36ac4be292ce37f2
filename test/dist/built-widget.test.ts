import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, ask as chat, giveHtmlSinkAString, launchChromium, openWatched } from './chromium.js';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { STRICT_CSP, TRUSTED_TYPES_CSP, startCdn, startSite } from './static-site.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** Opens the page in Chromium, recording from the first byte (openWatched). */
const openPage = (origin: string) => openWatched(browser, origin);

/** The classic script's parts among a page's requests, in the order they were asked for. */
const partsOf = (requests: readonly string[]) =>
  requests.filter((r) => r.includes('agent-chat.part.')).map((r) => r.replace(/^GET /, ''));

/** One of the classic script's parts in dist/ (its name carries a content hash). */
function partNamed(name: string): string {
  const parts = readdirSync('dist').filter(
    (f) => f.startsWith(`agent-chat.part.${name}-`) && f.endsWith('.js'),
  );
  expect(parts).toHaveLength(1);
  return parts[0];
}

const markdownPart = () => partNamed('markdown-engine');

/** The element names in the last answer's rendered content. */
function answerElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const list = document.querySelector('agent-chat')?.shadowRoot?.querySelector('agent-chat-message-list');
    const answer = [...(list?.shadowRoot?.querySelectorAll('agent-chat-message') ?? [])].at(-1);
    return [...(answer?.shadowRoot?.querySelectorAll('.content *') ?? [])].map((e) => e.tagName);
  });
}

/** Holds the loader's element file back until the returned function is called. */
async function holdElement(page: Page): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/agent-chat.impl.js', async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

describe('the built widget on a plain page', () => {
  it('dist/agent-chat.iife.js from a plain script tag completes a chat against the reference service', async () => {
    const site = await startSite({ script: 'iife' });
    try {
      const { page, errors } = await openPage(site.origin);
      expect(await page.evaluate(() => customElements.get('agent-chat') !== undefined)).toBe(true);
      const answer = await chat(page, 'How do I theme the widget?');
      expect(answer).toContain('Style the widget from your page');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await site.close();
    }
  });

  for (const script of ['iife', 'es'] as const) {
    it(`works under a strict CSP that enforces Trusted Types, with zero violations (${script})`, async () => {
      const site = await startSite({ script, csp: TRUSTED_TYPES_CSP });
      try {
        const { page, violations, errors } = await openPage(site.origin);
        await page.getByRole('button', { name: 'Conversations' }).click();
        const answer = await chat(page, 'Is it safe against XSS?');
        expect(answer).toContain('Answers are untrusted.');
        await page.getByRole('button', { name: 'Conversations' }).click();
        expect(await violations()).toEqual([]);
        expect(errors).toEqual([]);

        // The canaries: an inline style attribute and a string given to an HTML sink must be
        // blocked, or the zero above proves nothing.
        await page.evaluate(() => document.body.setAttribute('style', 'color: red'));
        await expect.poll(violations).toEqual([expect.stringMatching(/^style-src/)]);
        expect(await giveHtmlSinkAString(page)).toBe('TypeError');
        await expect
          .poll(violations)
          .toEqual([
            expect.stringMatching(/^style-src/),
            expect.stringMatching(/^require-trusted-types-for/),
          ]);
        await page.close();
      } finally {
        await site.close();
      }
    });
  }

  it('loads from a CDN URL pinned with its SRI hash, under a CSP that allows only that CDN', async () => {
    const sri = JSON.parse(readFileSync('dist/sri.json', 'utf8')) as Record<string, string>;
    expect(sri['agent-chat.iife.js']).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    const cdn = await startCdn();
    const tag = (hash: string) =>
      `<script src="${cdn.url('agent-chat.iife.js')}" integrity="${hash}" crossorigin="anonymous"></script>`;
    const csp = STRICT_CSP.replace("script-src 'self'", `script-src 'self' ${cdn.origin}`);
    const site = await startSite({ script: 'iife', csp, scriptTag: tag(sri['agent-chat.iife.js']) });
    const tampered = await startSite({ script: 'iife', csp, scriptTag: tag(`sha384-${'A'.repeat(64)}`) });
    try {
      // The panel shows at once (inline), so the markdown part may come at idle before the question.
      const { page, violations, errors, requests } = await openPage(site.origin);
      const answer = await chat(page, 'How do I theme the widget?');
      expect(answer).toContain('Style the widget from your page');
      // The markdown engine came from beside the script, on the CDN, and rendered the answer.
      expect(partsOf(requests)).toEqual([cdn.url(markdownPart())]);
      expect(await answerElements(page)).toContain('PRE');
      // Conversations: the drawer's element is a part too, fetched from the CDN when first shown.
      const listDefined = () => page.evaluate(() => Boolean(customElements.get('agent-chat-thread-list')));
      expect(await listDefined()).toBe(false);
      await page.locator('agent-chat').getByRole('button', { name: 'Conversations' }).click();
      await expect.poll(listDefined).toBe(true);
      await expect
        .poll(() => page.locator('agent-chat').getByRole('region', { name: 'Conversations' }).isVisible())
        .toBe(true);
      expect(partsOf(requests)).toEqual([cdn.url(markdownPart()), cdn.url(partNamed('thread-list'))]);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();

      // A file that does not match its pinned hash never runs.
      const other = await openPage(tampered.origin);
      await expect.poll(() => other.errors.join(' ')).toMatch(/integrity/i);
      expect(await other.page.evaluate(() => customElements.get('agent-chat'))).toBeUndefined();
      await other.page.close();
    } finally {
      await Promise.all([site.close(), tampered.close(), cdn.close()]);
    }
  });
});

describe("the classic script's parts (loaded beside it when needed)", () => {
  it('a page pins each part with an import map integrity entry: the right hash loads it, a wrong one never runs it and the answer shows as plain text', async () => {
    const sri = JSON.parse(readFileSync('dist/sri.json', 'utf8')) as Record<string, string>;
    const cdn = await startCdn();
    const part = markdownPart();
    expect(sri[part]).toMatch(/^sha384-/);
    const page = (hash: string) => {
      const map = JSON.stringify({ integrity: { [cdn.url(part)]: hash } });
      const csp = STRICT_CSP.replace(
        "script-src 'self'",
        `script-src 'self' ${cdn.origin} 'sha256-${createHash('sha256').update(map).digest('base64')}'`,
      );
      const tag = `<script type="importmap">${map}</script><script src="${cdn.url('agent-chat.iife.js')}" integrity="${sri['agent-chat.iife.js']}" crossorigin="anonymous"></script>`;
      return startSite({ script: 'iife', csp, scriptTag: tag });
    };
    const [pinned, tampered] = await Promise.all([page(sri[part]), page(`sha384-${'A'.repeat(64)}`)]);
    try {
      const good = await openPage(pinned.origin);
      await chat(good.page, 'How do I theme the widget?');
      expect(await answerElements(good.page)).toContain('PRE');
      expect(await good.violations()).toEqual([]);
      expect(good.errors).toEqual([]);
      await good.page.close();

      const bad = await openPage(tampered.origin);
      const answer = await chat(bad.page, 'How do I theme the widget?');
      expect(answer).toContain('Style the widget from your page');
      expect(await answerElements(bad.page)).not.toContain('PRE');
      expect(bad.errors.join(' ')).toMatch(/integrity/i);
      await bad.page.close();
    } finally {
      await Promise.all([pinned.close(), tampered.close(), cdn.close()]);
    }
  });
});

describe('files in a question from the built widget', () => {
  /** The attachment view: the ES build's agent-chat.attachments.js, the classic script's kit part. */
  const KIT = /\/agent-chat\.(attachments|part\.kit-[\w-]+)\.js$/;
  /** A real 1×1 PNG, so the thumbnail has pixels to draw. */
  const PNG = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  const thumbnail = (page: Page) =>
    page.locator('agent-chat img.thumb').evaluate((img: HTMLImageElement) => ({
      drawn: img.complete && img.naturalWidth > 0,
      hidden: img.hidden,
      src: img.src.slice(0, 5),
    }));

  // Each way a page loads the widget fetches the attachment view its own way: the ES chunk, or
  // agent-chat.attachments.js from beside the classic script.
  for (const script of ['iife', 'es', 'loader'] as const) {
    it(`${script}: loads the attachment view on demand and sends a screenshot under the strict CSP with img-src blob:`, async () => {
      const site = await startSite({ script, csp: `${STRICT_CSP}; img-src 'self' blob:` });
      try {
        const { page, violations, errors } = await openPage(site.origin);
        const requested: string[] = [];
        page.on('request', (request) => requested.push(new URL(request.url()).pathname));
        await page.locator('agent-chat').getByRole('button', { name: 'Attach files' }).waitFor();
        expect(requested.filter((path) => KIT.test(path))).toEqual([]);
        await page
          .locator('agent-chat input[type=file]')
          .setInputFiles({ name: 'error.png', mimeType: 'image/png', buffer: PNG });
        await page.locator('agent-chat').getByRole('button', { name: 'Remove error.png' }).waitFor();
        await expect.poll(() => thumbnail(page)).toEqual({ drawn: true, hidden: false, src: 'blob:' });
        expect(requested.some((path) => KIT.test(path))).toBe(true);
        await page.locator('agent-chat .chip.ready').waitFor();
        const answer = await chat(page, 'What does this error mean?');
        expect(answer).toContain('error.png');
        await page.locator('agent-chat').getByRole('button', { name: 'Download error.png' }).waitFor();
        expect(await violations()).toEqual([]);
        expect(errors).toEqual([]);
        await page.close();
      } finally {
        await site.close();
      }
    });
  }

  it('a site that does not serve the attachment view still attaches and sends: names, refusals in words', async () => {
    const site = await startSite({ script: 'iife', csp: STRICT_CSP });
    try {
      const { page, violations } = await openPage(site.origin);
      await page.route(KIT, (route) => route.fulfill({ status: 404 }));
      const input = page.locator('agent-chat input[type=file]');
      await input.setInputFiles({
        name: 'logo.svg',
        mimeType: 'image/svg+xml',
        buffer: Buffer.from('<svg/>'),
      });
      await expect
        .poll(() => page.locator('agent-chat p.plain[role=alert]').textContent())
        .toContain("logo.svg can't be attached.");
      const uploaded = page.waitForResponse((r) => r.url().includes('/agent/files/') && r.status() === 201);
      await input.setInputFiles({
        name: 'app.log',
        mimeType: 'text/plain',
        buffer: Buffer.from('ERROR 401'),
      });
      await uploaded;
      await expect.poll(() => page.locator('agent-chat ul.plain').textContent()).toBe('app.log');
      const answer = await chat(page, 'Why?');
      expect(answer).toContain('app.log');
      expect(await violations()).toEqual([]);
      await page.close();
    } finally {
      await site.close();
    }
  });

  it('without img-src blob: the thumbnail is refused and hidden; the chip keeps its name and Remove', async () => {
    const site = await startSite({ script: 'iife', csp: STRICT_CSP });
    try {
      const { page, violations } = await openPage(site.origin);
      await page
        .locator('agent-chat input[type=file]')
        .setInputFiles({ name: 'error.png', mimeType: 'image/png', buffer: PNG });
      await page.locator('agent-chat').getByRole('button', { name: 'Remove error.png' }).waitFor();
      await expect.poll(() => thumbnail(page)).toMatchObject({ drawn: false, hidden: true });
      expect(await page.locator('agent-chat .chip .name').textContent()).toBe('error.png');
      expect(await violations()).toEqual([expect.stringMatching(/^img-src blob/)]);
      // Sent once uploaded (Send during an upload only asks the visitor to wait), the question's
      // image shows its name instead, and still downloads.
      await page.locator('agent-chat .chip.ready').waitFor();
      await chat(page, 'And this?');
      const sent = page.locator('agent-chat').getByRole('button', { name: 'Download error.png' });
      await expect.poll(() => sent.evaluate((b) => b.classList.contains('broken'))).toBe(true);
      expect(await sent.textContent()).toBe('error.png');
      await page.close();
    } finally {
      await site.close();
    }
  });
});

describe('the loader (a small first script)', () => {
  // The ES entry (`es` above) is the loader too; this is the classic-script loader.
  for (const script of ['loader'] as const) {
    it(`${script}: completes a chat under the strict CSP with zero violations`, async () => {
      const site = await startSite({ script, csp: STRICT_CSP });
      try {
        const { page, violations, errors } = await openPage(site.origin);
        const answer = await chat(page, 'Is it safe against XSS?');
        expect(answer).toContain('Answers are untrusted.');
        expect(await violations()).toEqual([]);
        expect(errors).toEqual([]);
        await page.close();
      } finally {
        await site.close();
      }
    });
  }

  it('draws the launcher at once and keeps properties and method calls made before the element arrives', async () => {
    // Under Trusted Types: the loader fetches the element with import(), never a <script> sink.
    const site = await startSite({ script: 'loader', csp: TRUSTED_TYPES_CSP, mode: 'launcher' });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      // Hold the element back until the page has used the widget.
      const release = await holdElement(page);
      await page.goto(site.origin);
      const launcher = page.getByRole('button', { name: 'Open chat' });
      await expect.poll(() => launcher.getAttribute('aria-expanded')).toBe('false');
      expect(await page.evaluate(() => customElements.get('agent-chat-app'))).toBeUndefined();
      await page.evaluate(() => {
        const el = document.querySelector('agent-chat') as HTMLElement & {
          heading: string;
          open: () => Promise<void>;
        };
        el.heading = 'Set before the element arrived';
        void el.open();
      });
      release();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      expect(await page.getByText('Set before the element arrived').count()).toBeGreaterThan(0);
      expect(await page.evaluate(() => document.querySelector('agent-chat')!.hasAttribute('open'))).toBe(
        true,
      );
      // Moving the element keeps the same element inside, with its state.
      const kept = await page.evaluate(async () => {
        const el = document.querySelector('agent-chat')!;
        const inner = el.shadowRoot!.querySelector('agent-chat-app');
        document.body.prepend(el);
        await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
        return {
          inner: inner !== null,
          same: el.shadowRoot!.querySelector('agent-chat-app') === inner,
          open: el.hasAttribute('open'),
        };
      });
      expect(kept).toEqual({ inner: true, same: true, open: true });
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await site.close();
    }
  });

  it("a connection dropped while the page idles costs nothing: the visitor's click loads the element and opens the chat", async () => {
    const site = await startSite({ script: 'loader', mode: 'launcher' });
    try {
      const page = await browser.newPage();
      const told: string[] = [];
      const thrown: string[] = [];
      page.on('console', (m) => m.type() === 'error' && told.push(m.text()));
      page.on('pageerror', (error) => thrown.push(error.message));
      let aborted = 0;
      await page.route('**/agent-chat.impl.js', (route) =>
        aborted === 0 ? ((aborted += 1), route.abort('connectionreset')) : route.continue(),
      );
      await page.goto(site.origin);
      // The idle-time fetch of the element fails; the browser does not keep the failure either.
      await expect.poll(() => aborted).toBe(1);
      await expect.poll(() => told.filter((t) => t.includes('[agent-chat]')).length).toBe(1);
      await page.getByRole('button', { name: 'Open chat' }).click();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      expect(told.filter((t) => t.includes('[agent-chat]'))).toEqual([
        expect.stringContaining('The element did not load'),
      ]);
      expect(thrown).toEqual([]);
      await page.close();
    } finally {
      await site.close();
    }
  });

  it('two widgets of one integration with different ids keep their own conversations through the loader', async () => {
    const site = await startSite({ script: 'loader', csp: STRICT_CSP, mode: 'inline' });
    try {
      const page = await browser.newPage();
      const release = await holdElement(page);
      await page.goto(site.origin);
      // The page gives each widget its own id before the element arrives (decision 113).
      await page.evaluate(() => {
        const docs = document.querySelector('agent-chat')!;
        const shop = docs.cloneNode() as Element;
        docs.id = 'docs-help';
        shop.id = 'shop-help';
        docs.after(shop);
      });
      release();
      const docs = page.locator('#docs-help');
      await docs.getByRole('textbox', { name: 'Message' }).fill('How do I theme the widget?');
      await docs.getByRole('button', { name: 'Send' }).click();
      const countIn = (id: string) =>
        page.evaluate((id) => {
          const inner = document.getElementById(id)!.shadowRoot!.querySelector('agent-chat-app')!;
          const list = inner.shadowRoot!.querySelector('agent-chat-message-list');
          return list?.shadowRoot?.querySelectorAll('agent-chat-message').length ?? 0;
        }, id);
      await expect.poll(() => countIn('docs-help'), { timeout: 15_000 }).toBe(2);
      // Long enough for the device to carry the conversation to a widget of the same scope.
      await page.waitForTimeout(1_000);
      expect(await countIn('shop-help')).toBe(0);
      await page.close();
    } finally {
      await site.close();
    }
  });

  for (const script of ['loader', 'iife'] as const)
    it(`runs the pre-load queue in order on the first <agent-chat> (${script})`, async () => {
      const site = await startSite({ script, csp: STRICT_CSP, mode: 'launcher' });
      try {
        const page = await browser.newPage();
        // What a page does before the script tag: queue commands on window.agentChat.
        await page.addInitScript(() => {
          const w = window as unknown as { agentChat?: unknown[] };
          (w.agentChat = w.agentChat || []).push(['open'], ['toggle'], ['toggle']);
        });
        await page.goto(site.origin);
        await page.getByRole('textbox', { name: 'Message' }).waitFor();
        expect(await page.evaluate(() => document.querySelector('agent-chat')!.hasAttribute('open'))).toBe(
          true,
        );
        // A push after the script ran runs at once.
        await page.evaluate(() =>
          (window as unknown as { agentChat: { push: (c: unknown[]) => void } }).agentChat.push(['close']),
        );
        await expect
          .poll(() => page.evaluate(() => document.querySelector('agent-chat')!.hasAttribute('open')))
          .toBe(false);
        await page.close();
      } finally {
        await site.close();
      }
    });

  for (const script of ['loader', 'iife'] as const)
    it(`a queued open({query, submit}) opens the panel and sends the question once the element is ready (${script})`, async () => {
      const site = await startSite({ script, csp: STRICT_CSP, mode: 'launcher' });
      try {
        const page = await browser.newPage();
        await page.addInitScript(() => {
          const w = window as unknown as { agentChat?: unknown[] };
          (w.agentChat = w.agentChat || []).push([
            'open',
            { query: 'How do I theme the widget?', submit: true },
          ]);
        });
        await page.goto(site.origin);
        await answered(page);
        expect(await page.evaluate(() => document.querySelector('agent-chat')!.hasAttribute('open'))).toBe(
          true,
        );
        // Filled in only (no submit): the question waits in the message box.
        await page.evaluate(() =>
          (window as unknown as { agentChat: { push: (c: unknown[]) => void } }).agentChat.push([
            'open',
            { query: 'And events?' },
          ]),
        );
        await expect
          .poll(() => page.getByRole('textbox', { name: 'Message' }).inputValue())
          .toBe('And events?');
        await page.close();
      } finally {
        await site.close();
      }
    });

  it("keeps the page's theming: theme, custom properties and ::part reach the element", async () => {
    const site = await startSite({ script: 'loader', csp: STRICT_CSP, mode: 'launcher' });
    try {
      const { page, violations } = await openPage(site.origin);
      await page.getByRole('button', { name: 'Open chat' }).click();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      const launcher = page.getByRole('button', { name: 'Open chat' });
      const style = (property: string) =>
        launcher.evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);
      expect(await style('background-color')).toBe('rgb(29, 78, 216)');

      await page.evaluate(() => document.querySelector('agent-chat')!.setAttribute('theme', 'dark'));
      await expect.poll(() => style('background-color')).toBe('rgb(138, 180, 255)');

      await page.evaluate(() => {
        (document.querySelector('agent-chat') as HTMLElement).style.setProperty(
          '--agent-chat-color-accent',
          'rgb(1, 2, 3)',
        );
        const sheet = new CSSStyleSheet();
        sheet.replaceSync('agent-chat::part(launcher) { border-radius: 3px; }');
        document.adoptedStyleSheets = [sheet];
      });
      await expect.poll(() => style('background-color')).toBe('rgb(1, 2, 3)');
      expect(await style('border-top-left-radius')).toBe('3px');
      expect(await violations()).toEqual([]);
      await page.close();
    } finally {
      await site.close();
    }
  });
});
