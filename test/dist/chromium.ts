import { readFileSync } from 'node:fs';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';

/** Debian's Chromium, headless, with the flags this network-less machine needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions());
}

/**
 * Opens `origin` in a new page, recording from the first byte its CSP violations, its console
 * errors and every request it makes (`METHOD url`); `prepare` (routes, say) runs before it loads.
 */
export async function openWatched(
  browser: Browser,
  origin: string,
  prepare?: (page: Page) => Promise<unknown>,
): Promise<{ page: Page; violations: () => Promise<string[]>; errors: string[]; requests: string[] }> {
  const page = await browser.newPage();
  // A click or a wait for an element that never comes fails here, naming its locator, rather
  // than as the test's anonymous 30 s timeout (Playwright's own default is to wait for ever).
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(`${request.method()} ${request.url()}`));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await prepare?.(page);
  await page.goto(origin);
  return {
    page,
    errors,
    requests,
    violations: () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
  };
}

/**
 * Gives a string to an HTML sink of the page (`insertAdjacentHTML`): 'TypeError' when Trusted
 * Types refuse it, 'written' when nothing does. The canary that makes a Trusted Types policy's
 * zero violations mean something.
 */
export function giveHtmlSinkAString(page: Page): Promise<string> {
  return page.evaluate(() => {
    try {
      document.body.insertAdjacentHTML('beforeend', '<b>not trusted</b>');
      return 'written';
    } catch (error) {
      return (error as Error).name;
    }
  });
}

/** Waits until the widget `host` selects shows a question and its finished answer. */
export async function answered(page: Page, host = 'agent-chat'): Promise<void> {
  await page.waitForFunction(
    (selector) => {
      const outer = document.querySelector(selector);
      // Through the loader, the element is an <agent-chat-app> in <agent-chat>'s shadow root.
      const inner = outer?.shadowRoot?.querySelector('agent-chat-app') ?? outer;
      const list = inner?.shadowRoot?.querySelector('agent-chat-message-list');
      const messages = list?.shadowRoot?.querySelectorAll('agent-chat-message') ?? [];
      return (
        messages.length === 2 &&
        (messages[1] as unknown as { message?: { status: string } }).message?.status === 'complete'
      );
    },
    host,
    { timeout: 15_000 },
  );
}

/**
 * Asks a question through the real UI of the widget `host` selects (the first `<agent-chat>` by
 * default) and waits for the finished answer; resolves with its text.
 */
export async function ask(page: Page, question: string, host = 'agent-chat'): Promise<string> {
  const widget = page.locator(host);
  await widget.getByRole('textbox', { name: 'Message' }).fill(question);
  await widget.getByRole('button', { name: 'Send' }).click();
  await answered(page, host);
  return (await widget.locator('agent-chat-message[aria-label="Assistant"] .content').textContent()) ?? '';
}

const AXE = readFileSync('node_modules/axe-core/axe.min.js', 'utf8');

/**
 * axe-core's WCAG 2 A/AA rules over the page, or over what the `within` selector selects (shadow
 * roots included); the violations, described.
 */
export async function axe(page: Page, within?: string): Promise<string[]> {
  // Evaluated through the devtools protocol, which the page's CSP does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async (selector) => {
    const result = await (
      window as unknown as {
        axe: {
          run(
            context: Document | { include: string[] },
            options: object,
          ): Promise<{
            violations: { id: string; nodes: { target: unknown; any: { message: string }[] }[] }[];
          }>;
        };
      }
    ).axe.run(selector ? { include: [selector] } : document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map(
      (v) =>
        `${v.id}: ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.any[0]?.message ?? ''}`).join(', ')}`,
    );
  }, within);
}

/**
 * The colours painted in `locator`'s box, as the screen shows them: forced colours replace an
 * author's backgrounds and colours while painting, so the computed style would not tell.
 */
export async function painted(
  probe: Page,
  locator: Locator,
): Promise<{ at: (x: number, y: number) => string; ink: string }> {
  const png = (await locator.screenshot({ animations: 'disabled' })).toString('base64');
  const { width, data } = await probe.evaluate(async (base64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${base64}`;
    await image.decode();
    const canvas = new OffscreenCanvas(image.width, image.height);
    const g = canvas.getContext('2d')!;
    g.drawImage(image, 0, 0);
    return { width: image.width, data: [...g.getImageData(0, 0, image.width, image.height).data] };
  }, png);
  const at = (x: number, y: number) => data.slice((y * width + x) * 4, (y * width + x) * 4 + 3).join(',');
  // The commonest colour other than the background's (the corner's): an icon's ink.
  const counts = new Map<string, number>();
  for (let i = 0; i < data.length; i += 4) {
    const colour = data.slice(i, i + 3).join(',');
    if (colour !== at(0, 0)) counts.set(colour, (counts.get(colour) ?? 0) + 1);
  }
  const ink = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  return { at, ink };
}
