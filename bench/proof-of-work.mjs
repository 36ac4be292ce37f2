// node bench/proof-of-work.mjs: what a public session's proof of work costs a visitor. The
// built solver (dist/agent-chat.public-session.js, what the widget loads) runs in headless
// Chromium, unthrottled and with its CPU slowed 4x and 6x (Lighthouse's mid-range and a slow
// phone), on challenges from altcha-lib made at the service's default work; it reports hashes a
// second, the time to solve a challenge hiding its number at the middle of its range (the
// average case) and at the end (the worst), and the long tasks the page saw; beside them a
// control, 10 ms loops yielding as the solver does, whose long tasks are the machine's (on a
// loaded machine a task also holds the time the renderer waited for a core). Each on two pages:
// one at 127.0.0.1 (a secure context: crypto.subtle hashes) and one at http://bench.test, which
// the browser maps to the same server (an insecure context: no crypto.subtle, sha256.ts hashes,
// decision 667). HASHING=subtle or HASHING=js runs one of them.
// Run after `npm run build`.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createChallenge } from 'altcha-lib/v1';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../scripts/chromium.mjs';

const WORK = Number(process.env.WORK ?? 50_000);
const solver = readFileSync('dist/agent-chat.public-session.js');
const server = createServer((req, res) => {
  if (req.url === '/solver.js')
    return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(solver);
  res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>proof of work</title>');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = server.address().port;
const pages = [
  { hashing: 'crypto.subtle', origin: `http://127.0.0.1:${port}` },
  { hashing: 'sha256.ts (http)', origin: `http://bench.test:${port}` },
].filter(({ hashing }) => !process.env.HASHING || hashing.startsWith(process.env.HASHING));
const options = chromiumLaunchOptions();
const browser = await chromium.launch({
  ...options,
  args: [...options.args, '--host-resolver-rules=MAP bench.test 127.0.0.1'],
});
const rows = [];

for (const { hashing, origin } of pages)
  for (const rate of [1, 4, 6]) {
    const page = await browser.newPage();
    await page.goto(origin);
    const subtle = await page.evaluate(() => typeof crypto.subtle);
    if ((subtle === 'object') !== (hashing === 'crypto.subtle'))
      throw new Error(`${origin}: crypto.subtle is ${subtle}`);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    for (const [where, number] of [
      ['middle', Math.floor(WORK / 2)],
      ['end', WORK],
    ]) {
      const challenge = await createChallenge({ hmacKey: 'bench', maxnumber: WORK, number });
      const result = await page.evaluate(async (c) => {
        const { solveChallenge } = await import('/solver.js');
        const tasks = [];
        const observer = new PerformanceObserver((list) =>
          list.getEntries().forEach((e) => tasks.push(e.duration)),
        );
        observer.observe({ type: 'longtask' });
        const t0 = performance.now();
        const found = await solveChallenge(c);
        const ms = performance.now() - t0;
        await new Promise((resolve) => setTimeout(resolve, 100));
        observer.disconnect();
        return { found, ms, longest: Math.max(0, ...tasks), over50: tasks.filter((d) => d > 50).length };
      }, challenge);
      if (result.found !== number) throw new Error(`solved ${result.found}, expected ${number}`);
      rows.push({
        hashing,
        cpu: rate === 1 ? 'unthrottled' : `${rate}x slower`,
        number: where,
        'time (ms)': Math.round(result.ms),
        'hashes/s': Math.round((number + 1) / (result.ms / 1000)),
        'long tasks (>50 ms)': result.over50,
        'longest task (ms)': Math.round(result.longest),
      });
    }
    // The control: 2 s of 10 ms busy loops yielding as the solver does. Its long tasks are the
    // machine's (a renderer waiting for a core), and say how far to trust the solver's above.
    const control = await page.evaluate(async () => {
      const tasks = [];
      const observer = new PerformanceObserver((list) =>
        list.getEntries().forEach((e) => tasks.push(e.duration)),
      );
      observer.observe({ type: 'longtask' });
      const end = performance.now() + 2000;
      while (performance.now() < end) {
        const t = performance.now();
        while (performance.now() - t < 10);
        await new Promise((resolve) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = resolve;
          channel.port2.postMessage(null);
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      observer.disconnect();
      return { longest: Math.max(0, ...tasks), over50: tasks.filter((d) => d > 50).length };
    });
    rows.push({
      hashing,
      cpu: rate === 1 ? 'unthrottled' : `${rate}x slower`,
      number: 'control: 10 ms loops',
      'long tasks (>50 ms)': control.over50,
      'longest task (ms)': Math.round(control.longest),
    });
    await page.close();
  }
console.log(`work ${WORK} (a challenge's maxnumber)`);
console.table(rows);
await browser.close();
server.close();
