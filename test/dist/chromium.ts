import { chromium, type Browser } from 'playwright-core';
import { chromiumLaunchOptions } from '../../scripts/chromium.mjs';

/** Debian's Chromium, headless, with the flags this network-less machine needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions());
}
