// Runs before the browser tests: finds Chromium, installs Debian's headless shell when we can,
// and otherwise stops with instructions instead of a Playwright stack trace.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { HEADLESS_SHELL, findChromium } from './chromium.mjs';

function canApt() {
  return process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
}

if (process.env.CHROMIUM_PATH && !findChromium()) {
  console.error(`[agent-chat] CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist.`);
  process.exit(1);
}

// The headless shell even beside a full Chromium: the screenshot baselines are its pixels, and
// it runs the tests on less than half the CPU (decision 622).
if (!process.env.CHROMIUM_PATH && !existsSync(HEADLESS_SHELL) && canApt()) {
  console.log("[agent-chat] Installing Debian's chromium-headless-shell package (one time, ~1 min)…");
  try {
    execSync(
      'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 chromium-headless-shell',
      { stdio: 'inherit' },
    );
  } catch (error) {
    // A full Chromium still runs the tests; only the screenshots may then differ.
    if (!findChromium()) throw error;
    console.warn(`[agent-chat] chromium-headless-shell could not be installed; using ${findChromium()}.`);
  }
}

const found = findChromium();
if (!found) {
  console.error(
    '[agent-chat] The browser tests need a Chromium binary and none was found.\n' +
      '  Debian/Ubuntu:  sudo apt-get install chromium-headless-shell\n' +
      '  Any system:     CHROMIUM_PATH=/path/to/chrome npm test',
  );
  process.exit(1);
}
