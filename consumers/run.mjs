// npm run test:consumers: packs both packages (built first, as prepack would), installs the agent-chat
// tarball into the fixture apps beside this file the way a site owner would, builds them, and
// checks each one in Node, workerd or headless Chromium; installs each tarball alone into an
// empty folder; and type-checks the published declarations with skipLibCheck off under
// TypeScript 5.9 and 7. One `npm install` for all fixtures (workspaces, the shared npm cache);
// every fixture dependency is pinned to an exact version.
//
// Runtimes not installable on this machine, and so untested: Deno, Bun.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../scripts/chromium.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
const work = join(here, '.work');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const started = Date.now();
const step = (what) => console.log(`\n▸ ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`);

step('npm pack (agent-chat, agent-chat-service)');
rmSync(work, { recursive: true, force: true });
mkdirSync(work);
// What prepack would do for both packages, at once, and nothing when `npm test` has just built
// the same sources (scripts/build.mjs keeps a stamp of what it read).
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
for (const [workspace, name] of [
  [[], 'agent-chat'],
  [['--workspace', 'agent-chat-service'], 'agent-chat-service'],
]) {
  const packed = join(work, 'packed');
  mkdirSync(packed);
  execFileSync(npm, ['pack', '--silent', '--ignore-scripts', ...workspace, '--pack-destination', packed], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  renameSync(
    join(
      packed,
      readdirSync(packed).find((f) => f.endsWith('.tgz')),
    ),
    join(work, `${name}.tgz`),
  );
  rmSync(packed, { recursive: true });
}

step('npm install (all fixtures)');
rmSync(join(here, 'node_modules', 'agent-chat'), { recursive: true, force: true });
execFileSync(npm, ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'], {
  cwd: here,
  stdio: 'inherit',
});

const results = [];
async function check(name, fn) {
  try {
    const detail = String((await fn()) ?? '').replace(`${name}: `, '');
    results.push({ name, ok: true });
    console.log(`  ✓ ${name}${detail ? `: ${detail}` : ''}`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`  ✗ ${name}\n${String(error?.stack ?? error).replace(/^/gm, '    ')}`);
  }
}
function run(cwd, command, args) {
  // Bounded: a fixture that hangs fails here instead of holding CI until its own limit.
  const result = spawnSync(command, args, { cwd: resolve(here, cwd), encoding: 'utf8', timeout: 300_000 });
  if (result.error) throw result.error;
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} in ${cwd} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout.trim().split('\n').at(-1);
}

step('each tarball alone, in an empty folder');
await check('agent-chat tarball', () => {
  const dir = join(work, 'empty-widget');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  run(dir, npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', join(work, 'agent-chat.tgz')]);
  const installed = readdirSync(join(dir, 'node_modules')).filter((name) => !name.startsWith('.'));
  if (installed.join() !== 'agent-chat')
    throw new Error(`installing agent-chat added ${installed.length} packages: ${installed.join(', ')}`);
  const size = spawnSync('du', ['-sk', join(dir, 'node_modules')], { encoding: 'utf8' }).stdout.split(
    '\t',
  )[0];
  return `adds exactly one package (node_modules ${(Number(size) / 1024).toFixed(1)} MB)`;
});
await check('agent-chat-service tarball', () => {
  const dir = join(work, 'empty-service');
  mkdirSync(dir);
  // npx in a folder with no package.json, as someone trying the program would.
  const result = spawnSync(
    npx,
    [
      '--yes',
      '--loglevel=error',
      '--package',
      join(work, 'agent-chat-service.tgz'),
      'agent-chat-service',
      '--help',
    ],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0 || !/--port/.test(result.stdout))
    throw new Error(
      `npx agent-chat-service --help failed (${result.status}):\n${result.stdout}${result.stderr}`,
    );
  return `npx agent-chat-service --help prints its options (${result.stdout.trim().split('\n').length} lines)`;
});

step('the package itself: publint, attw');
await check('publint', () => run('..', process.execPath, [join(root, 'node_modules/publint/src/cli.js')]));
await check('attw', () => {
  const attw = (...args) =>
    spawnSync(
      process.execPath,
      [
        join(root, 'node_modules/@arethetypeswrong/cli/dist/index.js'),
        join(work, 'agent-chat.tgz'),
        '--format',
        'table-flipped',
        ...args,
      ],
      { encoding: 'utf8' },
    );
  const all = attw('--exclude-entrypoints', './iife');
  console.log(all.stdout.replace(/^/gm, '    '));
  if (all.status !== 0 || !all.stdout.includes('No problems found'))
    throw new Error(`attw found problems:\n${all.stderr}`);
  // The classic script is not a module for require(): that one rule aside, it resolves everywhere.
  const iife = attw('--entrypoints', './iife', '--ignore-rules', 'cjs-resolves-to-esm');
  if (iife.status !== 0 || !iife.stdout.includes('No problems found'))
    throw new Error(`attw found problems with ./iife:\n${iife.stdout}${iife.stderr}`);
  return 'every entry point, the JSON files and the classic script included, resolves under node10, node16 (CJS and ESM) and bundler';
});

step('published declarations with skipLibCheck off: TypeScript 5.9 and 7.0');
const TYPESCRIPT = { 5.9: 'types/node_modules/typescript/bin/tsc', '7.0': 'node_modules/typescript/bin/tsc' };
const RESOLUTIONS = [
  ['bundler', 'esnext'],
  ['node16', 'node16'],
  ['nodenext', 'nodenext'],
  ['node10', 'commonjs'],
];
/** Runs the commands `cores` at a time (tsc is single-threaded); rejects with every failure. */
async function inParallel(commands) {
  const failures = [];
  const queue = [...commands];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { cwd, args, label } = next;
      const child = spawn(process.execPath, args, { cwd: resolve(here, cwd) });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise((done) => child.once('close', done));
      if (code !== 0) failures.push(`${label}:\n${output}`);
    }
  };
  await Promise.all(Array.from({ length: availableParallelism() }, worker));
  if (failures.length) throw new Error(failures.join('\n'));
}
for (const [version, tsc] of Object.entries(TYPESCRIPT)) {
  await check(`types, TypeScript ${version}`, async () => {
    const actual = JSON.parse(readFileSync(join(here, tsc, '../../package.json'), 'utf8')).version;
    if (!actual.startsWith(version)) throw new Error(`${tsc} is TypeScript ${actual}, not ${version}`);
    // TypeScript 7 removed node10. 5.9 checks what 7 cannot (node10) and the one most sites use
    // (bundler); node16 and nodenext, the same algorithm in both, are 7's: with skipLibCheck off
    // every run checks React's, Vue's and Svelte's declarations too, 20 s of CPU each under 5.9
    // against 5 s under 7 (decision 590).
    const resolutions = RESOLUTIONS.filter(([resolution]) =>
      version === '7.0' ? resolution !== 'node10' : resolution === 'bundler' || resolution === 'node10',
    );
    await inParallel(
      resolutions.flatMap(([resolution, module]) =>
        ['browser', 'server'].map((project) => {
          const config =
            resolution === 'node10' && project === 'browser'
              ? 'tsconfig.browser-node10.json'
              : `tsconfig.${project}.json`;
          return {
            cwd: 'types',
            label: `${project} under ${resolution}`,
            args: [join(here, tsc), '-p', config, '--moduleResolution', resolution, '--module', module],
          };
        }),
      ),
    );
    return `${actual}: a page's script, React/Preact/Vue/Svelte, the classic script, and a Node server (ESM and CommonJS, no DOM) under ${resolutions.map(([r]) => r).join(', ')}`;
  });
}

step(`Node ${process.versions.node} (ESM and CommonJS) and workerd fixtures`);
for (const [name, file] of [
  ['express', 'check.mjs'],
  ['hono', 'check.mjs'],
  ['cjs-server', 'check.js'],
  ['ssr-node', 'check.mjs'],
]) {
  await check(name, () => run(name, process.execPath, [file]));
}
await check('workers', () => {
  run('workers', npm, ['run', 'build', '--silent']);
  return run('workers', process.execPath, ['check.mjs']);
});
await check('workerd', () => run('workers', process.execPath, ['workerd.mjs']));

step('browser fixtures (build, then headless Chromium)');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
function serve(dir) {
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    const file = join(dir, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dir)) return void res.writeHead(403).end();
    let body;
    try {
      body = readFileSync(file);
    } catch {
      return void res.writeHead(404).end();
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ origin: `http://127.0.0.1:${server.address().port}`, close: () => server.close() }),
    ),
  );
}
const browser = await chromium.launch(chromiumLaunchOptions());
try {
  for (const [name, framework] of [
    ['react-ts', 'React 19'],
    ['vue', 'Vue 3'],
    ['svelte', 'Svelte 5'],
  ]) {
    await check(name, async () => {
      run(name, npm, ['run', 'build', '--silent']);
      const site = await serve(join(here, name, 'dist'));
      const page = await browser.newPage();
      const errors = [];
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      page.on('pageerror', (error) => errors.push(error.message));
      try {
        await page.goto(site.origin);
        await page.waitForFunction(
          () => customElements.get('agent-chat') && document.querySelector('agent-chat')?.shadowRoot,
          undefined,
          { timeout: 10_000 },
        );
        const kept = await page.evaluate(
          () => document.querySelector('agent-chat').getSessionToken === window.__getSessionToken,
        );
        if (!kept) throw new Error(`${framework} did not set getSessionToken as a property`);
        await page.getByRole('button', { name: 'Open chat' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor();
        const seen = await page.evaluate(() => window.__seen);
        if (!seen.includes('open:true'))
          throw new Error(`the ${framework} event listener saw ${JSON.stringify(seen)}`);
        if (errors.length) throw new Error(`console errors: ${errors.join(' | ')}`);
        return `${framework}: typed build, function property kept, launcher opens, event listener called`;
      } finally {
        await page.close();
        site.close();
      }
    });
  }
} finally {
  await browser.close();
}

const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(
  `\nconsumers (${((Date.now() - started) / 1000).toFixed(0)} s): ${results.map((r) => `${r.ok ? '✓' : '✗'} ${r.name}`).join(', ')}`,
);
console.log('untested: Deno, Bun (not installable on this machine)');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
