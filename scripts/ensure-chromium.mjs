// Runs before the browser tests: finds Chromium, installs Debian's package when we can,
// and otherwise stops with instructions instead of a Playwright stack trace.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findChromium } from './chromium.mjs';

function canApt() {
  return process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
}

if (process.env.CHROMIUM_PATH && !findChromium()) {
  console.error(`[agent-chat] CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist.`);
  process.exit(1);
}

if (!findChromium() && canApt()) {
  console.log("[agent-chat] No Chromium found; installing Debian's chromium package (one time, ~1 min)…");
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', {
    stdio: 'inherit',
  });
}

const found = findChromium();
if (!found) {
  console.error(
    '[agent-chat] The browser tests need a Chromium binary and none was found.\n' +
      '  Debian/Ubuntu:  sudo apt-get install chromium\n' +
      '  Any system:     CHROMIUM_PATH=/path/to/chrome npm test',
  );
  process.exit(1);
}
