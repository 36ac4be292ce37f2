/**
 * A WordPress site for the tests, from Debian's packages and without wp-cli: MariaDB in a
 * temporary folder on a socket, a copy of /usr/share/wordpress with its own wp-config.php,
 * WordPress's installer, the plugin installed from dist/agent-chat-wordpress.zip, and PHP's
 * built-in server on a free port.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startProgram, type Program } from '../cms/processes.js';

const DEBIAN_WORDPRESS = '/usr/share/wordpress';
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/bin/mariadbd'].find((path) => existsSync(path)) ?? 'mariadbd';

/** A PHP single-quoted string literal: only backslash and quote are special there. */
const phpString = (value: string) => `'${value.replace(/[\\']/g, '\\$&')}'`;

export interface WordPressSite {
  origin: string;
  /** The WordPress folder (its wp-content holds the unzipped plugin). */
  root: string;
  users: Record<'admin' | 'author' | 'subscriber', number>;
  passwords: Record<'admin' | 'author' | 'subscriber', string>;
  version: string;
  /** Runs SQL on the site's database (MariaDB's client, on the socket). */
  sql: (statement: string) => string;
  /** Writes constants into the file wp-config.php includes (none: removes it). */
  setConstants: (constants: Record<string, string> | null) => void;
  /** PHP notices and warnings WordPress logged (WP_DEBUG_LOG). */
  debugLog: () => string;
  stop: () => Promise<void>;
}

export async function startWordPress(dir: string, zip: string, port: number): Promise<WordPressSite> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn();
  };
  try {
    // MariaDB: a fresh data folder, no network, root without a password on the socket only.
    const data = join(dir, 'mariadb');
    const socket = join(dir, 'mysql.sock');
    const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
    execFileSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        `--datadir=${data}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...asRoot,
      ],
      { stdio: 'pipe' },
    );
    const mariadb = await startProgram(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${data}`,
        `--socket=${socket}`,
        `--pid-file=${join(dir, 'mariadb.pid')}`,
        '--skip-networking',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
        ...asRoot,
      ],
      { ready: /ready for connections/ },
    );
    stops.push(mariadb.stop);
    const sql = (statement: string) =>
      execFileSync('mariadb', ['--no-defaults', '-S', socket, '-u', 'root', '-N', '-B', '-e', statement], {
        encoding: 'utf8',
      });
    sql('CREATE DATABASE wordpress');

    // WordPress: Debian's files hard-linked into a folder of our own (copied where links cannot
    // go), whose wp-config.php replaces Debian's, which reads /etc/wordpress.
    const root = join(dir, 'wordpress');
    try {
      execFileSync('cp', ['-al', DEBIAN_WORDPRESS, root]);
    } catch {
      execFileSync('cp', ['-a', DEBIAN_WORDPRESS, root]);
    }
    // Debian links some of WordPress's files to its own packages by relative paths (underscore.js
    // to ../../../javascript/…, getID3 to ../../../php/…): beside the copy, those folders too, or
    // the admin's scripts that need underscore.js (the Plugins screen, the media library) throw.
    for (const shared of ['javascript', 'php'])
      if (existsSync(`/usr/share/${shared}`)) symlinkSync(`/usr/share/${shared}`, join(dir, shared));
    // Unlinked before writing: writing through the hard link would change Debian's file.
    rmSync(join(root, 'wp-config.php'));
    const origin = `http://127.0.0.1:${port}`;
    const salts = ['AUTH', 'SECURE_AUTH', 'LOGGED_IN', 'NONCE']
      .flatMap((name) => [`${name}_KEY`, `${name}_SALT`])
      .map((name) => `define('${name}', '${randomBytes(32).toString('hex')}');`)
      .join('\n');
    writeFileSync(
      join(root, 'wp-config.php'),
      `<?php
define('DB_NAME', 'wordpress');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', 'localhost:${socket}');
define('DB_CHARSET', 'utf8mb4');
$table_prefix = 'wp_';
${salts}
define('WP_HOME', '${origin}');
define('WP_SITEURL', '${origin}');
define('WP_DEBUG', true);
define('WP_DEBUG_DISPLAY', false);
define('WP_DEBUG_LOG', '${join(dir, 'debug.log')}');
define('DISABLE_WP_CRON', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
// No calls out of this machine (update checks); 127.0.0.1, where the service runs, is the site's own host.
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('FS_METHOD', 'direct');
if (file_exists(__DIR__ . '/agent-chat-constants.php')) require __DIR__ . '/agent-chat-constants.php';
if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
require_once ABSPATH . 'wp-settings.php';
`,
    );
    const installed = JSON.parse(
      execFileSync('php', [join(ROOT, 'test/wordpress/install.php'), root, zip], { encoding: 'utf8' }),
    ) as { users: WordPressSite['users']; theme: string; version: string };
    if (installed.theme !== 'twentytwentythree')
      throw new Error(`WordPress chose the theme ${installed.theme}`);

    const php: Program = await startProgram(
      'php',
      [
        // The tests rewrite wp-config.php's constants file between requests: no cached copy.
        '-d',
        'opcache.revalidate_freq=0',
        '-S',
        `127.0.0.1:${port}`,
        '-t',
        root,
        join(ROOT, 'test/wordpress/router.php'),
      ],
      {
        // Several workers: a page, its scripts and the widget's session request come at once.
        env: { PHP_CLI_SERVER_WORKERS: '4' },
        ready: /Development Server \(http:\/\/127\.0\.0\.1:\d+\) started/,
      },
    );
    stops.push(php.stop);
    const constants = join(root, 'agent-chat-constants.php');
    return {
      origin,
      root,
      users: installed.users,
      passwords: {
        admin: 'admin-password-1',
        author: 'author-password-1',
        subscriber: 'subscriber-password-1',
      },
      version: installed.version,
      sql,
      setConstants: (values) => {
        if (!values) return rmSync(constants, { force: true });
        writeFileSync(
          constants,
          `<?php\n${Object.entries(values)
            .map(([name, value]) => `define(${phpString(name)}, ${phpString(value)});`)
            .join('\n')}\n`,
        );
      },
      debugLog: () =>
        existsSync(join(dir, 'debug.log')) ? readFileSync(join(dir, 'debug.log'), 'utf8') : '',
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
