import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, painted } from './chromium.js';
import { startSite } from './static-site.js';

let browser: Browser;
let site: Awaited<ReturnType<typeof startSite>>;
beforeAll(async () => {
  [browser, site] = await Promise.all([launchChromium(), startSite({ script: 'iife', mode: 'launcher' })]);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe('the built widget in forced colours (Windows High Contrast)', () => {
  it("draws the loader's stand-in launcher with its ring too, before the widget arrives", async () => {
    const loaderSite = await startSite({ script: 'loader', mode: 'launcher' });
    const context = await browser.newContext({ forcedColors: 'active', reducedMotion: 'reduce' });
    try {
      const page = await context.newPage();
      const probe = await context.newPage();
      // The element is held back: what shows is the loader's stand-in.
      await page.route('**/agent-chat.impl.js', () => {});
      await page.goto(loaderSite.origin);
      const launcher = page.getByRole('button', { name: 'Open chat' });
      await launcher.waitFor();
      expect(await page.evaluate(() => customElements.get('agent-chat-app'))).toBeUndefined();
      const box = (await launcher.boundingBox())!;
      const ring = await painted(probe, launcher);
      expect(ring.at(1, Math.round(box.height / 2))).not.toBe(ring.at(0, 0));
    } finally {
      await context.close();
      await loaderSite.close();
    }
  });

  it("draws the launcher, the visitor's question and the vote given, which a background or a colour alone drew", async () => {
    const context = await browser.newContext({ forcedColors: 'active', reducedMotion: 'reduce' });
    try {
      const page = await context.newPage();
      const probe = await context.newPage();
      await page.goto(site.origin);
      expect(await page.evaluate(() => matchMedia('(forced-colors: active)').matches)).toBe(true);
      const launcher = page.getByRole('button', { name: 'Open chat' });
      // The launcher's edge, left of its middle: a ring, not the page's background.
      const box = (await launcher.boundingBox())!;
      const ring = await painted(probe, launcher);
      expect(ring.at(1, Math.round(box.height / 2))).not.toBe(ring.at(0, 0));
      await launcher.click();
      await page
        .getByRole('textbox', { name: 'Message' })
        .fill('How do I theme it to match the dark colours of my own site, and its fonts?');
      await page.getByRole('button', { name: 'Send' }).click();
      const helpful = page.getByRole('button', { name: 'Helpful', exact: true });
      await helpful.waitFor();
      // The question's bubble has an edge (its background is gone).
      const bubble = page.locator('.user .bubble').first();
      const { height } = (await bubble.boundingBox())!;
      const edge = await painted(probe, bubble);
      expect(edge.at(0, Math.round(height / 2))).not.toBe(edge.at(6, Math.round(height / 2)));
      // A vote given looks unlike the one not given.
      await helpful.click();
      await expect.poll(() => helpful.getAttribute('aria-pressed')).toBe('true');
      await page.mouse.move(0, 0);
      const given = await painted(probe, helpful);
      const other = await painted(probe, page.getByRole('button', { name: 'Not helpful' }));
      expect(given.ink).not.toBe(other.ink);
    } finally {
      await context.close();
    }
  });
});
