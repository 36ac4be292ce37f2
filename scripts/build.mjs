// npm run build: both packages, step by step. Quiet unless something needs reading: a step's
// warnings (its stderr) always show, a failing step shows everything it printed, and VERBOSE=1
// shows every file of every step (sizes, SRI hashes).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const verbose = Boolean(process.env.VERBOSE && process.env.VERBOSE !== '0');
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

const STEPS = [
  ['ES modules', bin('vite'), ['build']],
  ['classic script', bin('vite'), ['build', '--mode', 'iife']],
  ['loader script', bin('vite'), ['build', '--mode', 'loader-iife']],
  ['CommonJS API', bin('vite'), ['build', '--mode', 'cjs']],
  ['server helpers', bin('vite'), ['build', '--config', 'vite.server.config.ts']],
  ['declarations', bin('tsc'), ['-p', 'tsconfig.build.json']],
  ['declaration entries', process.execPath, ['scripts/dist-types.mjs']],
  ['custom elements manifest', bin('custom-elements-manifest'), ['analyze', ...(verbose ? [] : ['--quiet'])]],
  ['SRI hashes', process.execPath, ['scripts/sri.mjs']],
  // The service's own build (its package.json says what it is), without npm's banner.
  [
    'agent-chat-service',
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    ['run', 'build', '--silent', '--workspace', 'agent-chat-service'],
  ],
];

/**
 * What the build reads: every file git tracks or would track (so a fresh clone and a working
 * copy with edits both count), hashed with Node's version. null without git (a tarball): then
 * it always builds.
 */
function inputsDigest() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) return null;
  const hash = createHash('sha256').update(process.version);
  for (const file of listed.stdout.toString().split('\0').filter(Boolean).sort()) {
    hash.update(`\0${file}\0`);
    if (existsSync(join(root, file))) hash.update(readFileSync(join(root, file)));
  }
  return hash.digest('hex');
}

// `npm test` builds, and so do `npm run demo` and `npm pack` (prepack) after it: the second
// time, with nothing changed, there is nothing to do. The stamp sits in dist/, which the first
// step empties, so a build that fails half-way leaves none. FORCE_BUILD=1 builds anyway.
const STAMP = join(root, 'dist/.build-inputs');
const digest = inputsDigest();
const built = ['dist/.build-inputs', 'dist/agent-chat.js', 'service/dist/cli.js'].every((f) =>
  existsSync(join(root, f)),
);
if (digest && built && !process.env.FORCE_BUILD && readFileSync(STAMP, 'utf8') === digest) {
  console.log(
    '✓ build: up to date (nothing it reads has changed since the last build; FORCE_BUILD=1 builds anyway)',
  );
  process.exit(0);
}

const started = performance.now();
for (const [name, command, args] of STEPS) {
  const t0 = performance.now();
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: verbose ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
  });
  if (result.status !== 0) {
    if (!verbose) process.stdout.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    console.error(`✗ build: ${name} failed (${[command.replace(root, ''), ...args].join(' ')})`);
    process.exit(result.status ?? 1);
  }
  if (!verbose && result.stderr.trim()) process.stderr.write(result.stderr);
  if (verbose) console.log(`✓ ${name} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
if (digest) writeFileSync(STAMP, digest);
console.log(
  `✓ build: ${STEPS.map(([name]) => name).join(', ')} in ${((performance.now() - started) / 1000).toFixed(1)} s${verbose ? '' : ' (VERBOSE=1 lists every file)'}`,
);
