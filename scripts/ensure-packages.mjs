// Runs before the CMS suites: finds PHP, Python, MariaDB and WordPress, installs Debian's packages
// when we can (as root with apt-get, like the browser tests' Chromium), and otherwise stops with
// what to install. A suite that cannot run fails; it never passes as skipped.
// Usage: node scripts/ensure-packages.mjs examples|wordpress
import { execSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const ok = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const phpHas = (extension) => ok('php', ['-r', `exit(extension_loaded('${extension}') ? 0 : 1);`]);
const mariadb = (program) => ['/usr/sbin/', '/usr/bin/'].some((dir) => existsSync(dir + program));

/** Debian package → whether what the suite uses of it is here. */
const NEEDS = {
  examples: {
    'php-cli': () => ok('php', ['--version']),
    'php-curl': () => phpHas('curl'),
    python3: () => ok('python3', ['--version']),
  },
  wordpress: {
    php: () => ok('php', ['--version']),
    'php-curl': () => phpHas('curl'),
    'php-mysql': () => phpHas('mysqli'),
    'mariadb-server': () => mariadb('mariadbd') && mariadb('mariadb-install-db'),
    wordpress: () => existsSync('/usr/share/wordpress/wp-settings.php'),
    // A Recommends of wordpress: the default theme, which the suite's pages are drawn with.
    'wordpress-theme-twentytwentythree': () =>
      existsSync('/usr/share/wordpress/wp-content/themes/twentytwentythree/theme.json'),
  },
};

const suite = process.argv[2];
if (!(suite in NEEDS)) {
  console.error(`Usage: node scripts/ensure-packages.mjs ${Object.keys(NEEDS).join('|')}`);
  process.exit(2);
}
const missing = () => Object.keys(NEEDS[suite]).filter((name) => !NEEDS[suite][name]());

let wanted = missing();
const canApt = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (wanted.length && canApt) {
  console.log(`[agent-chat] Installing Debian's ${wanted.join(', ')} for the ${suite} suite (one time)…`);
  // Services stay as they are: the suites start their own MariaDB and PHP servers on free ports.
  execSync(
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ' +
      `-o DPkg::Lock::Timeout=300 --no-install-recommends ${wanted.join(' ')}`,
    { stdio: 'inherit' },
  );
  wanted = missing();
}
if (wanted.length) {
  console.error(
    `[agent-chat] The ${suite} suite needs Debian's ${wanted.join(', ')}, and ${canApt ? 'installing them failed' : 'they are not installed'}.\n` +
      `  Debian/Ubuntu:  sudo apt-get install --no-install-recommends ${wanted.join(' ')}`,
  );
  process.exit(1);
}
