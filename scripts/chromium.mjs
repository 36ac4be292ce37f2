// Where the tests and benches find a headless Chromium, and how they launch it. Shared by the
// pre-test check, vite.config.ts, the built-file tests and the benches, so all agree.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Debian's headless shell first: the same Blink as its chromium package without the browser
 * around it, it drew the built-file tests on 43 % of the CPU (decision 622), and the screenshot
 * baselines are its pixels. A full Chromium still runs every test but the screenshots.
 */
export const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const CANDIDATES = [
  HEADLESS_SHELL,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

/** @returns {string | undefined} */
export function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}

/** Chromium's flags here: the machine has no network, and without these it keeps dialling out and being refused. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** What playwright's launch needs for Debian's Chromium, headless. */
export const chromiumLaunchOptions = () => ({
  executablePath: findChromium() ?? HEADLESS_SHELL,
  args: CHROMIUM_ARGS,
});

/**
 * A fontconfig file for the test browser: the machine's fonts (or FONTCONFIG_FILE's), with the
 * rendering settings pinned. Chromium on Linux asks fontconfig how to draw every font, web fonts
 * included, so a machine with full hinting or subpixel text would otherwise draw other pixels.
 * @param {string} dir where to write it
 * @returns {string} its path
 */
export function pinnedFontconfig(dir) {
  const base = process.env.FONTCONFIG_FILE ?? '/etc/fonts/fonts.conf';
  const path = join(dir, 'fonts.conf');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path,
    `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">${base.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</include>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>false</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintnone</const></edit>
    <edit name="autohint" mode="assign"><bool>false</bool></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
    <edit name="lcdfilter" mode="assign"><const>lcdnone</const></edit>
    <edit name="embeddedbitmap" mode="assign"><bool>false</bool></edit>
  </match>
</fontconfig>
`,
  );
  return path;
}
