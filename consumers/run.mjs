// npm run test:consumers: packs the package (prepack builds it), installs the tarball into the
// fixture apps beside this file the way a site owner would, builds them, and checks each one in
// Node or headless Chromium. One `npm install` for all fixtures (workspaces, the shared npm
// cache); every fixture dependency is pinned to an exact version.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { findChromium } from '../scripts/chromium.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
const work = join(here, '.work');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();
const step = (what) => console.log(`\n▸ ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`);

step('npm pack');
rmSync(work, { recursive: true, force: true });
mkdirSync(work);
execFileSync(npm, ['pack', '--silent', '--pack-destination', work], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
renameSync(join(work, readdirSync(work).find((f) => f.endsWith('.tgz'))), join(work, 'agent-chat.tgz'));

step('npm install (all fixtures)');
rmSync(join(here, 'node_modules', 'agent-chat'), { recursive: true, force: true });
execFileSync(npm, ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error'], { cwd: here, stdio: 'inherit' });

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
  const result = spawnSync(command, args, { cwd: join(here, cwd), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout.trim().split('\n').at(-1);
}

step('the package itself: publint, attw');
await check('publint', () => run('..', process.execPath, [join(root, 'node_modules/publint/src/cli.js')]));
await check('attw', () => {
  // ./iife is a classic script and the two JSON files are data: no module resolution to check.
  const attw = (...args) => spawnSync(process.execPath, [join(root, 'node_modules/@arethetypeswrong/cli/dist/index.js'), join(work, 'agent-chat.tgz'), '--format', 'table-flipped', ...args], { encoding: 'utf8' });
  const result = attw('--exclude-entrypoints', './iife', './custom-elements.json', './sri.json');
  console.log(result.stdout.replace(/^/gm, '    '));
  if (result.status !== 0 || !result.stdout.includes('No problems found')) throw new Error(`attw found problems:\n${result.stderr}`);
  return 'no problems under node10, node16 (CJS and ESM) and bundler';
});

step('Node fixtures');
for (const [name, file] of [['express', 'check.mjs'], ['hono', 'check.mjs'], ['cjs-server', 'check.js'], ['ssr-node', 'check.mjs']]) {
  await check(name, () => run(name, process.execPath, [file]));
}
await check('workers', () => {
  run('workers', npm, ['run', 'build', '--silent']);
  return run('workers', process.execPath, ['check.mjs']);
});

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
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ origin: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })));
}
const browser = await chromium.launch({
  executablePath: findChromium() ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
});
try {
  for (const [name, framework] of [['react-ts', 'React 19'], ['vue', 'Vue 3'], ['svelte', 'Svelte 5']]) {
    await check(name, async () => {
      run(name, npm, ['run', 'build', '--silent']);
      const site = await serve(join(here, name, 'dist'));
      const page = await browser.newPage();
      const errors = [];
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      page.on('pageerror', (error) => errors.push(error.message));
      try {
        await page.goto(site.origin);
        await page.waitForFunction(() => customElements.get('agent-chat') && document.querySelector('agent-chat')?.shadowRoot, undefined, { timeout: 10_000 });
        const kept = await page.evaluate(() => document.querySelector('agent-chat').getSessionToken === window.__getSessionToken);
        if (!kept) throw new Error(`${framework} did not set getSessionToken as a property`);
        await page.getByRole('button', { name: 'Open chat' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor();
        const seen = await page.evaluate(() => window.__seen);
        if (!seen.includes('open:true')) throw new Error(`the ${framework} event listener saw ${JSON.stringify(seen)}`);
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
console.log(`\nconsumers (${((Date.now() - started) / 1000).toFixed(0)} s): ${results.map((r) => `${r.ok ? '✓' : '✗'} ${r.name}`).join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
