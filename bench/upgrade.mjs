// npm run bench:upgrade -- --before DIR: an owner's upgrade, measured (decisions 730-733). DIR is
// a built checkout of the release before this one:
//   git worktree add --detach /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
// Three parts:
// - widgets: each widget build against each service program (the older widget against this
//   service, this widget against the older service, and both alike for comparison), the page on
//   another origin: ask and stream, reattach after a reload, a file, a vote, history in a new tab,
//   a new conversation, a public session and its history; then the HTTP errors and the console's.
// - fleet: on a throwaway PostgreSQL (scripts/with-postgres.sh), the older program serving 8
//   visitors who ask all along (each question under an Idempotency-Key, sent once more on a 503
//   or a refused connection), this program started on the same database (it migrates), an
//   answer generating on the older one reattached through this one, the older one drained; every
//   answer read back through this one's history. Then the older program started again on the
//   migrated schema. Answers lost should be none.
// - pinned: the older release's pinned tag (its import map and hashes, as the console gives it)
//   on a page whose files this program serves after the upgrade, the release kept with
//   keep-widget (decisions 741, 743): the chat loads and answers, every file 200.
//   node bench/upgrade.mjs --before DIR [--only widgets|pinned|fleet]
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../scripts/chromium.mjs';

const { values } = parseArgs({ options: { before: { type: 'string' }, only: { type: 'string' } } });
if (!values.before)
  throw new Error('usage: node bench/upgrade.mjs --before DIR [--only widgets|pinned|fleet]');
const BEFORE = resolve(values.before);
const builds = {
  before: { widget: join(BEFORE, 'dist'), cli: join(BEFORE, 'service/dist/cli.js') },
  this: { widget: resolve('dist'), cli: resolve('service/dist/cli.js') },
};
for (const [name, build] of Object.entries(builds))
  for (const path of [join(build.widget, 'agent-chat.iife.js'), build.cli])
    if (!existsSync(path))
      throw new Error(`${path} is missing: build ${name === 'this' ? 'this checkout' : BEFORE} first`);

const RS = '\u241E';
const P = { id: 'proj_up', int: 'int_up', pub: 'int_pub', key: 'key_up' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () =>
  new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => r(port));
    });
  });
const base = (url) => `${url}/agent/v1/projects/${P.id}/agent`;

/** A service program on a free port; ready once /readyz (or, in a release before it, /healthz) answers. */
async function startProgram(cli, args, env = {}) {
  const port = await freePort();
  const child = spawn('node', [cli, '--port', String(port), '--project', P.id, '--api-key', P.key, ...args], {
    env: { ...process.env, AGENT_CHAT_RATE_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const program = { url: `http://127.0.0.1:${port}`, child, log: '', exited: null, live: false };
  child.stdout.on('data', (d) => (program.log += d));
  child.stderr.on('data', (d) => (program.log += d));
  child.on('exit', (code) => ((program.exited = code), (program.live = false)));
  for (let i = 0; i < 600 && program.exited === null; i++) {
    const ok = (path) =>
      fetch(program.url + path).then(
        (r) => r.ok,
        () => false,
      );
    if ((await ok('/readyz')) || (await ok('/healthz'))) return Object.assign(program, { live: true });
    await sleep(100);
  }
  return program;
}

async function session(url, owner) {
  const r = await fetch(`${base(url)}/sessions/`, {
    method: 'POST',
    headers: { 'X-API-Key': P.key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ external_owner_id: owner }),
  });
  if (!r.ok) throw new Error(`session ${r.status}`);
  return (await r.json()).session_token;
}

const chunks = (text) =>
  text
    .split(RS)
    .filter(Boolean)
    .map((s) => JSON.parse(s).chunk);
const answerText = (records) =>
  records
    .filter((c) => c.type === 'partial_answer')
    .map((c) => c.content.text)
    .join('');

// ---- widgets: a widget build against a service program, the page on another origin ----

function pageHtml(serviceUrl, publicMode) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title><script src="/agent-chat.iife.js"></script></head>
<body><agent-chat mode="inline" project-id="${P.id}" integration-id="${publicMode ? P.pub : P.int}" ${publicMode ? '' : 'session-endpoint="/api/agent-session"'} base-url="${serviceUrl}"></agent-chat></body></html>`;
}

/** The site: its page, the widget's files from `widgetDir`, and a session endpoint (§2) for visitor-1. */
async function startSite(widgetDir, serviceUrl, publicMode) {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/api/agent-session') {
      const r = await fetch(`${base(serviceUrl())}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': P.key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ external_owner_id: 'visitor-1' }),
      });
      res.writeHead(r.status, { 'Content-Type': 'application/json' });
      return void res.end(await r.text());
    }
    if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return void res.end(pageHtml(serviceUrl(), publicMode));
    }
    const file = join(widgetDir, path.slice(1));
    if (/^\/[\w.-]+\.js$/.test(path) && existsSync(file)) {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      return void res.end(readFileSync(file));
    }
    res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

/** The messages the widget shows, read through its shadow roots. */
const shown = (page) =>
  page.evaluate(() => {
    const list = document.querySelector('agent-chat')?.shadowRoot?.querySelector('agent-chat-message-list');
    return [...(list?.shadowRoot?.querySelectorAll('agent-chat-message') ?? [])].map((n) => ({
      role: n.message.role,
      status: n.message.status,
      text:
        n.message.role === 'user'
          ? n.message.content
          : (n.shadowRoot?.querySelector('.content')?.textContent ?? ''),
    }));
  });
async function until(check, what, ms = 15_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(150)) {
    const value = await check();
    if (value) return value;
  }
  throw new Error(`timed out: ${what}`);
}
async function ask(page, question) {
  await page.getByRole('textbox', { name: 'Message' }).fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
}
const done = (page, n) => async () => {
  const m = await shown(page);
  return m.length === n && m[n - 1].status === 'complete' ? m : null;
};

/** The flows of a signed-in visitor's site, each 'ok' or why not. */
async function signedInFlows(browser, widgetDir, cli, step, watch) {
  let program;
  const site = await startSite(widgetDir, () => program.url, false);
  program = await startProgram(
    cli,
    [
      '--data',
      mkdtempSync(join(tmpdir(), 'agent-chat-upgrade-')),
      '--integration',
      P.int,
      '--allowed-origin',
      site.origin,
    ],
    { AGENT_CHAT_WORD_DELAY_MS: '40' },
  );
  const context = await browser.newContext();
  const page = watch(await context.newPage());
  await page.goto(site.origin);
  await step('ask and stream', async () => {
    await ask(page, 'How do I theme it?');
    return (await until(done(page, 2), 'the answer'))[1].status;
  });
  await step('reattach after a reload', async () => {
    await ask(page, 'How do tokens work?');
    await until(async () => (await shown(page)).length === 4, 'the question shown');
    await page.waitForTimeout(800);
    await page.reload();
    return (await until(done(page, 4), 'the reattached answer'))[3].status;
  });
  await step('a file', async () => {
    await page
      .locator('agent-chat input[type=file]')
      .setInputFiles({ name: 'app.log', mimeType: 'text/plain', buffer: Buffer.from('ERROR 401') });
    await page.locator('agent-chat .chip.ready').waitFor();
    await ask(page, 'Why?');
    const m = await until(done(page, 6), 'the answer about the file');
    if (!m[5].text.includes('app.log')) throw new Error('the answer does not name the file');
    return 'named';
  });
  await step('a vote', async () => {
    const vote = page.waitForResponse((r) => r.url().includes('/feedback/'));
    vote.catch(() => {});
    await page.locator('agent-chat').getByRole('button', { name: 'Helpful' }).last().click();
    return `${(await vote).status()}`;
  });
  await step('history in a new tab', async () => {
    const other = watch(await context.newPage());
    await other.goto(site.origin);
    const m = await until(
      async () => ((await shown(other)).length === 6 ? shown(other) : null),
      'the history',
    );
    await other.close();
    return `${m.length} messages`;
  });
  await step('a new conversation', async () => {
    await page
      .locator('agent-chat')
      .getByRole('button', { name: 'New conversation' })
      .first()
      .click()
      .catch(() => {});
    await ask(page, 'Hello?');
    return (await until(done(page, 2), 'its answer'))[1].status;
  });
  await context.close();
  program.child.kill('SIGTERM');
  site.close();
}

async function publicFlows(browser, widgetDir, cli, step, watch) {
  let program;
  const site = await startSite(widgetDir, () => program.url, true);
  program = await startProgram(
    cli,
    [
      '--data',
      mkdtempSync(join(tmpdir(), 'agent-chat-upgrade-')),
      '--integration',
      P.pub,
      '--allowed-origin',
      site.origin,
      '--public',
    ],
    { AGENT_CHAT_CHALLENGE_WORK: '1000' },
  );
  const context = await browser.newContext();
  const page = watch(await context.newPage());
  await page.goto(site.origin);
  await step('a public session asks', async () => {
    await ask(page, 'How do I theme it?');
    return (await until(done(page, 2), 'the answer', 30_000))[1].status;
  });
  await step('a public session reloads its history', async () => {
    await page.reload();
    return `${(await until(async () => ((await shown(page)).length === 2 ? shown(page) : null), 'the history')).length} messages`;
  });
  await context.close();
  program.child.kill('SIGTERM');
  site.close();
}

async function widgets() {
  const browser = await chromium.launch(chromiumLaunchOptions());
  const rows = [];
  for (const [widget, service] of [
    ['before', 'this'],
    ['this', 'before'],
    ['this', 'this'],
    ['before', 'before'],
  ]) {
    const results = {};
    const http = [];
    const errors = [];
    const watch = (page) => {
      page.setDefaultTimeout(10_000);
      page.on(
        'response',
        (r) =>
          r.status() >= 400 &&
          http.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`),
      );
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text().slice(0, 120)));
      return page;
    };
    const step = async (name, run) => {
      results[name] = await run().then(
        (r) => `ok ${r ?? ''}`.trim(),
        (e) => `FAILED: ${String(e.message ?? e).slice(0, 80)}`,
      );
    };
    await signedInFlows(browser, builds[widget].widget, builds[service].cli, step, watch);
    await publicFlows(browser, builds[widget].widget, builds[service].cli, step, watch);
    rows.push({ widget, service, ...results });
    console.log(
      `${widget} widget, ${service} service: HTTP errors ${JSON.stringify(http)}; console errors ${JSON.stringify(errors)}`,
    );
  }
  await browser.close();
  console.table(rows);
}

// ---- pinned: the older release's pinned tag on a page, served by this program (decision 741) ----

/** The console's pinned tag of a release (snippets.ts): the import map of its parts, then the script with its hash. */
function pinnedPage(serviceUrl, version, sri) {
  const at = (file) => `${serviceUrl}/widget/${version}/${file}`;
  const parts = Object.entries(sri).filter(([name]) => /^agent-chat\.(part|locale)\./.test(name));
  const map = JSON.stringify({
    integrity: Object.fromEntries(parts.map(([name, hash]) => [at(name), hash])),
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pinned</title>
<script type="importmap">${map}</script>
<script src="${at('agent-chat.iife.js')}" integrity="${sri['agent-chat.iife.js']}" crossorigin="anonymous"></script></head>
<body><agent-chat mode="inline" project-id="${P.id}" integration-id="${P.pub}" base-url="${serviceUrl}"></agent-chat></body></html>`;
}

/**
 * A page carrying the older release's pinned tag, its files loaded from this program after the
 * upgrade: kept with `keep-widget` (decision 743; a release from 741 on keeps itself), under a
 * version of its own, since two development checkouts share one (a published release has its own).
 */
async function pinned() {
  const folder = join(BEFORE, 'service/dist/widget');
  const [version] = existsSync(folder) ? readdirSync(folder) : [];
  if (!version) {
    console.log(`pinned: ${folder} holds no widget release (a build before the service served one)`);
    return;
  }
  const kept = mkdtempSync(join(tmpdir(), 'agent-chat-kept-'));
  const release = `${version}-before`;
  cpSync(join(folder, version), join(kept, release), { recursive: true });
  const sri = JSON.parse(readFileSync(join(kept, release, 'sri.json'), 'utf8'));
  const data = mkdtempSync(join(tmpdir(), 'agent-chat-upgrade-'));
  const keep = spawnSync('node', [builds.this.cli, 'keep-widget', kept, '--data', data], {
    encoding: 'utf8',
  });
  console.log(`pinned: keep-widget ${keep.status}: ${(keep.stdout + keep.stderr).trim()}`);
  let program;
  const site = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(pinnedPage(program.url, release, sri));
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${site.address().port}`;
  program = await startProgram(
    builds.this.cli,
    ['--data', data, '--integration', P.pub, '--allowed-origin', origin, '--public'],
    { AGENT_CHAT_CHALLENGE_WORK: '1000' },
  );
  const browser = await chromium.launch(chromiumLaunchOptions());
  const page = await browser.newPage();
  const loaded = [];
  const errors = [];
  page.on(
    'response',
    (r) => r.url().includes('/widget/') && loaded.push(`${r.status()} ${r.url().split('/widget/')[1]}`),
  );
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text().slice(0, 160)));
  await page.goto(origin);
  const result = await (async () => {
    await ask(page, 'How do I theme it?');
    return (await until(done(page, 2), 'the answer', 30_000))[1].status;
  })().catch((e) => `FAILED: ${String(e.message ?? e).slice(0, 120)}`);
  console.log(
    `pinned: the ${release} tag on a page, this program serving: ${result}; files ${JSON.stringify(loaded)}; console errors ${JSON.stringify(errors)}`,
  );
  await browser.close();
  program.child.kill('SIGTERM');
  site.close();
}

// ---- fleet: the older program and this one on one PostgreSQL, one instance at a time ----

const fleetEnv = {
  DATABASE_URL: process.env.DATABASE_URL,
  AGENT_CHAT_MAX_CONCURRENT_ANSWERS: '0',
  AGENT_CHAT_WORD_DELAY_MS: '30',
};
const startInstance = (cli) => startProgram(cli, ['--integration', P.int], fleetEnv);

async function askOnce(url, token, message, key) {
  const r = await fetch(`${base(url)}/chat/`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      ...(key && { 'Idempotency-Key': key }),
    },
    body: JSON.stringify({ integration_id: P.int, message, thread_id: null }),
  });
  if (!r.ok) return { status: r.status };
  const records = chunks(await r.text());
  const start = records.find((c) => c.type === 'stream_start')?.content;
  return {
    status: 200,
    answerId: start?.question_answer_id,
    threadId: start?.thread_id,
    end: records.at(-1)?.type,
  };
}

/** A visitor asking question after question, each sent to a live instance, once more on a 503 or a refused connection. */
async function visitor(w, instances, results, stopped) {
  for (let n = 0; !stopped(); n++) {
    const q = {
      w,
      message: `How do I theme it? (${w}.${n})`,
      key: randomBytes(16).toString('hex'),
      tries: [],
    };
    for (let attempt = 0; attempt < 4 && q.end !== 'identifiers'; attempt++) {
      const live = instances.filter((i) => i.live);
      if (!live.length) {
        await sleep(200);
        continue;
      }
      const instance = live[(w + attempt + n) % live.length];
      try {
        const r = await askOnce(instance.url, await session(instance.url, `owner-${w}`), q.message, q.key);
        q.tries.push(`${instance.name} ${r.status}`);
        if (r.status === 200) Object.assign(q, r);
        else if (r.status === 503) await sleep(1000);
      } catch (error) {
        q.tries.push(`${instance.name} ${error.cause?.code ?? error.message}`);
        await sleep(200);
      }
    }
    results.push(q);
  }
}

/** An answer generating on `from`, its stream reattached (§9) through `to` after a moment: whole, and the same text? */
async function reattachAcross(from, to) {
  const token = await session(from.url, 'owner-r');
  const r = await fetch(`${base(from.url)}/chat/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ integration_id: P.int, message: 'How do I theme it?', thread_id: null }),
  });
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(RS)) text += decoder.decode((await reader.read()).value);
  const id = chunks(text)[0].content.question_answer_id;
  await sleep(300);
  const again = await fetch(`${base(to.url)}/answers/${id}/stream/`, {
    headers: { Authorization: `Bearer ${await session(to.url, 'owner-r')}` },
  });
  const reattached = chunks(await again.text());
  for (let read = await reader.read(); !read.done; read = await reader.read())
    text += decoder.decode(read.value);
  const same = answerText(reattached) === answerText(chunks(text));
  return `${again.status}, ends with ${reattached.at(-1)?.type}, the same text as the original stream: ${same}`;
}

async function readBack(url, results) {
  const counts = {
    questions: results.length,
    'stored complete': 0,
    'never answered': 0,
    'answered, not stored complete': 0,
    'asked twice': 0,
  };
  const tokens = {};
  for (const q of results) {
    if (!q.answerId) {
      counts['never answered']++;
      continue;
    }
    tokens[q.w] ??= await session(url, `owner-${q.w}`);
    const thread = await (
      await fetch(`${base(url)}/threads/${q.threadId}/`, {
        headers: { Authorization: `Bearer ${tokens[q.w]}` },
      })
    ).json();
    const messages = thread.messages ?? [];
    if (messages.filter((m) => m.role === 'user').length > 1) counts['asked twice']++;
    const answer = messages.filter((m) => m.role === 'assistant').at(-1);
    if (answer?.status === 'complete' && answer.content) counts['stored complete']++;
    else counts['answered, not stored complete']++;
  }
  const tries = {};
  for (const q of results) tries[q.tries.join(', ')] = (tries[q.tries.join(', ')] ?? 0) + 1;
  return { counts, tries };
}

async function fleet() {
  const t0 = Date.now();
  const say = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)} s]`, ...a);
  const older = Object.assign(await startInstance(builds.before.cli), { name: 'older' });
  if (!older.live) throw new Error(`the older program did not start: ${older.log.slice(-500)}`);
  const instances = [older];
  const results = [];
  let stop = false;
  const visitors = Array.from({ length: 8 }, (_, w) => visitor(w, instances, results, () => stop));
  await sleep(4000);
  const newer = Object.assign(await startInstance(builds.this.cli), { name: 'this' });
  say(`this program started on the same database: ${newer.live ? 'serving' : newer.log.slice(-500)}`);
  instances.push(newer);
  say(`an answer on the older, reattached through this one: ${await reattachAcross(older, newer)}`);
  await sleep(4000);
  older.child.kill('SIGTERM');
  await new Promise((r) => older.child.on('exit', r));
  say(`the older one drained and exited ${older.exited}`);
  await sleep(3000);
  stop = true;
  await Promise.all(visitors);
  const { counts, tries } = await readBack(newer.url, results);
  console.table([counts]);
  // What each program logged at error or warn level over the roll (none expected).
  const worse = (log) => log.split('\n').filter((line) => /"level":"(error|warn)"/.test(line));
  console.log('logged errors and warnings:', { older: worse(older.log), this: worse(newer.log) });
  console.log('what each question met:', tries);
  const again = await startInstance(builds.before.cli);
  if (again.live) {
    const r = await askOnce(again.url, await session(again.url, 'owner-x'), 'How do tokens work?');
    say(`the older program started again on the migrated schema: ${r.status} ${r.end}`);
    again.child.kill('SIGTERM');
  } else say(`the older program refused the migrated schema: ${again.log.slice(-300)}`);
  newer.child.kill('SIGTERM');
  await sleep(1500);
}

if (!values.only || values.only === 'widgets') await widgets();
if (!values.only || values.only === 'pinned') await pinned();
if (!values.only || values.only === 'fleet') {
  if (process.env.DATABASE_URL) await fleet();
  else
    spawnSync(
      'scripts/with-postgres.sh',
      ['node', 'bench/upgrade.mjs', '--before', BEFORE, '--only', 'fleet'],
      { stdio: 'inherit' },
    );
}
process.exit(0);
