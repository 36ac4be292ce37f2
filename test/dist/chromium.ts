import { chromium, type Browser } from 'playwright-core';
import { findChromium } from '../../scripts/chromium.mjs';

/** Debian's Chromium, headless, with the flags this network-less machine needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium() ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
