/**
 * Activity's note of the widget releases pages still load (decision 742): an earlier release a
 * page loaded is named with when, beside the release served and where the tag to move it is.
 */
import { describe, expect, it } from 'vitest';
import { consoleInChromium, open, service, settled } from './console-chromium.js';

consoleInChromium();

const HOUR = 3_600_000;

describe('the console in Chromium: the widget releases pages load', () => {
  it('Activity names an earlier release pages still load and links to the tag; nothing while none does', async () => {
    const { page, context, errors } = await open({ signedIn: true });
    await settled(page);
    const note = page.getByRole('note').filter({ hasText: 'earlier widget release' });
    expect(await note.count()).toBe(0);

    const widgets = service.storage.widgets;
    const body = new TextEncoder().encode('console.log("an earlier release");');
    await widgets.keepWidgetRelease(
      {
        version: '0.0.9',
        sri: { 'agent-chat.iife.js': 'sha384-x' },
        files: [{ name: 'agent-chat.iife.js', body }],
      },
      Date.now() - 40 * 24 * HOUR,
    );
    await widgets.noteWidgetLoaded('0.0.9', Date.now() - 3 * HOUR);
    // A release kept after the one served (a newer instance's, in a rolling upgrade) is not earlier.
    await widgets.keepWidgetRelease(
      {
        version: '9.9.9',
        sri: { 'agent-chat.iife.js': 'sha384-y' },
        files: [{ name: 'agent-chat.iife.js', body }],
      },
      Date.now(),
    );
    await widgets.noteWidgetLoaded('9.9.9', Date.now());
    try {
      await page.reload();
      await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
      await note.waitFor();
      const text = await note.textContent();
      expect(text).toContain('0.0.9 (last loaded 3 hours ago)');
      expect(text).toMatch(/The service serves \d+\.\d+\.\d+ and keeps/);
      expect(text).toContain('180 days');
      expect(text).not.toContain('9.9.9');
      await note.getByRole('link', { name: 'Integrations' }).click();
      await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
