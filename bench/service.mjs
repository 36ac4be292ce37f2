// npm run bench:service — the service under load, as a separate process (service/dist/cli.js).
// Usage: node bench/service.mjs embedded|postgres   (postgres needs DATABASE_URL; see scripts/with-postgres.sh)
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const backend = process.argv[2] ?? 'embedded';
if (backend === 'postgres' && !process.env.DATABASE_URL) {
  console.log('bench:service postgres: no DATABASE_URL (and no PostgreSQL binaries to make one); skipped');
  process.exit(0);
}
const CLI = new URL('../service/dist/cli.js', import.meta.url).pathname;
const PROJECT = 'proj_bench';
const KEY = 'bench-key-not-secret';
const SEP = '\u241E';

async function start(dataDir, nodeArgs = []) {
  const env = {
    ...process.env, DATABASE_URL: backend === 'postgres' ? process.env.DATABASE_URL : '',
    // A realistic pace: ~20 ms between words, as a model streams.
    AGENT_CHAT_WORD_DELAY_MS: '20', AGENT_CHAT_RATE_LIMIT: '0', AGENT_CHAT_SESSION_MINT_LIMIT: '0', DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? '20',
  };
  const child = spawn(process.execPath, [...nodeArgs, CLI, '--port', '0', '--data', dataDir, '--project', PROJECT, '--integration', 'int_bench', '--api-key', KEY], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match) resolve(match[1]);
      if (out.length > 1e6) out = out.slice(-1000);
    });
    child.once('exit', (code) => reject(new Error(`service exited ${code}`)));
  });
  child.stdout.resume();
  return { child, url, agent: `${url}/agent/v1/projects/${PROJECT}/agent` };
}

const stop = (child, signal = 'SIGTERM') => new Promise((resolve) => {
  if (child.exitCode !== null) return resolve();
  child.once('exit', resolve);
  child.kill(signal);
});

async function mint(agent, owner) {
  const response = await fetch(`${agent}/sessions/`, { method: 'POST', headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' }, body: owner ? JSON.stringify({ external_owner_id: owner }) : undefined });
  if (!response.ok) throw new Error(`mint ${response.status}`);
  return (await response.json()).session_token;
}

const QUESTIONS = ['How do I theme the widget?', 'What is the session endpoint?', 'Is it safe against XSS?', 'How do I use it with React?', 'Can I delete a conversation?'];

/** One streamed chat; resolves with the time to the first record, the text and the ids. */
async function chat(agent, token, message, onFirstPartial) {
  const started = performance.now();
  const response = await fetch(`${agent}/chat/`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify({ integration_id: 'int_bench', message }) });
  if (!response.ok) throw new Error(`chat ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let first = null;
  let text = '';
  let threadId = null;
  let end = null;
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      const parts = buffer.split(SEP);
      buffer = parts.pop();
      for (const part of parts) {
        first ??= performance.now() - started;
        const record = JSON.parse(part).chunk;
        if (record.type === 'stream_start') threadId = record.content.thread_id;
        if (record.type === 'partial_answer') {
          if (!text) onFirstPartial?.({ threadId, text: record.content.text });
          text += record.content.text;
        }
        if (record.stream_end) end = record.type;
      }
    }
  } catch {
    // a killed service ends the stream
  }
  return { first, text, threadId, end, ms: performance.now() - started };
}

const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function getThread(agent, token, id) {
  const response = await fetch(`${agent}/threads/${id}/`, { headers: { Authorization: `Bearer ${token}` } });
  return response.ok ? response.json() : null;
}

async function concurrent(n) {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-bench-'));
  const { child, agent } = await start(dataDir);
  try {
    const tokens = await Promise.all(Array.from({ length: n }, (_, i) => mint(agent, `owner-${n}-${i}`)));
    // Warm up (connection pool, JIT) so the figures are about steady state.
    await Promise.all(tokens.slice(0, 10).map((token) => chat(agent, token, 'warm up')));
    const started = performance.now();
    const results = await Promise.all(tokens.map((token, i) => chat(agent, token, QUESTIONS[i % QUESTIONS.length])));
    const stillOpen = results.filter((r) => r.end !== 'identifiers').length;
    if (stillOpen) console.log(`  ${stillOpen} answers did not end with identifiers`);
    const wall = (performance.now() - started) / 1000;
    let stored = 0;
    for (let i = 0; i < n; i++) {
      const thread = await getThread(agent, tokens[i], results[i].threadId);
      const [q, a] = thread?.messages ?? [];
      if (q?.content === QUESTIONS[i % QUESTIONS.length] && a?.content === results[i].text && a?.status === 'complete' && results[i].end === 'identifiers') stored += 1;
    }
    const firsts = results.map((r) => r.first);
    return { n, p50: pct(firsts, 50), p99: pct(firsts, 99), answersPerSecond: n / wall, wall, stored };
  } finally {
    await stop(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** kill -9 while 20 answers stream: after a restart every question is there, and every answer up to its last save. */
async function killNine() {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-bench-'));
  let service = await start(dataDir);
  const n = 20;
  const tokens = await Promise.all(Array.from({ length: n }, (_, i) => mint(service.agent, `crash-${i}`)));
  // Some answers finish before the crash, the rest are cut off mid-stream.
  const done = await chat(service.agent, tokens[0], 'hello');
  let started = 0;
  let ready;
  const allStarted = new Promise((resolve) => (ready = resolve));
  const inFlight = tokens.slice(1).map((token, i) => chat(service.agent, token, QUESTIONS[i % QUESTIONS.length], () => ++started === n - 1 && ready()));
  await allStarted;
  await new Promise((resolve) => setTimeout(resolve, 400));
  await stop(service.child, 'SIGKILL');
  const cut = await Promise.all(inFlight);
  service = await start(dataDir);
  let questions = done.threadId ? 1 : 0;
  let answers = 0;
  let prefixes = 0;
  let stopped = 0;
  let complete = 0;
  const first = await getThread(service.agent, await mint(service.agent, 'crash-0'), done.threadId);
  if (first?.messages[1]?.content === done.text && first.messages[1].status === 'complete') answers += 1;
  for (let i = 0; i < cut.length; i++) {
    const thread = await getThread(service.agent, await mint(service.agent, `crash-${i + 1}`), cut[i].threadId);
    if (thread?.messages[0]?.content === QUESTIONS[i % QUESTIONS.length]) questions += 1;
    const a = thread?.messages[1];
    if (a) answers += 1;
    if (a && cut[i].text.startsWith(a.content)) prefixes += 1;
    if (a?.status === 'stopped') stopped += 1;
    if (a?.status === 'complete') complete += 1;
  }
  await stop(service.child);
  await rm(dataDir, { recursive: true, force: true });
  return { threads: n, questions, answers, prefixes, stopped, complete, cutOff: cut.length };
}

async function rss(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

/**
 * RSS alone cannot tell garbage from retention, so the service runs with its JS heap capped
 * at 64 MB: 20,000 mints under that cap mean nothing per session stays in the process.
 */
async function mints() {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-bench-'));
  const { child, agent } = await start(dataDir, ['--max-old-space-size=64']);
  try {
    for (let i = 0; i < 200; i++) await mint(agent);
    const before = await rss(child.pid);
    const started = performance.now();
    for (let batch = 0; batch < 100; batch++) await Promise.all(Array.from({ length: 100 }, () => mint(agent)));
    const seconds = (performance.now() - started) / 1000;
    const after = await rss(child.pid);
    // A second 10,000: a plateau means the growth was heap headroom, not per-session state.
    for (let batch = 0; batch < 100; batch++) await Promise.all(Array.from({ length: 100 }, () => mint(agent)));
    return { mints: 10_000, rssBeforeMb: before, rssAfterMb: after, rssAfter20kMb: await rss(child.pid), perSecond: 10_000 / seconds, alive: child.exitCode === null && (await fetch(`${agent.split('/agent/')[0]}/healthz`)).ok };
  } finally {
    await stop(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

const f = (x) => x.toFixed(0);
console.log(`\nagent-chat service bench — ${backend === 'postgres' ? 'PostgreSQL' : 'embedded store (PGlite)'}`);
// BENCH_ONLY=concurrent|kill|mints runs one part.
const only = process.env.BENCH_ONLY;
for (const n of only && only !== 'concurrent' ? [] : [50, 200]) {
  const r = await concurrent(n);
  console.log(`${n} concurrent answers: first record p50 ${f(r.p50)} ms, p99 ${f(r.p99)} ms; ${r.answersPerSecond.toFixed(1)} answers/s (${r.wall.toFixed(1)} s); stored whole ${r.stored}/${n}`);
}
const k = only && only !== 'kill' ? null : await killNine();
if (k) console.log(`kill -9 while ${k.cutOff} of ${k.threads} answers streamed: questions kept ${k.questions}/${k.threads}, answers kept ${k.answers}/${k.threads}; cut answers stored as a prefix of what streamed ${k.prefixes}/${k.cutOff}, after restart ${k.complete} complete (ended before the kill), ${k.stopped} stopped, ${k.cutOff - k.complete - k.stopped} still streaming (PostgreSQL: left to maintenance, decision 32)`);
const m = only && only !== 'mints' ? null : await mints();
if (m) console.log(`10,000 session mints (JS heap capped at 64 MB): RSS ${f(m.rssBeforeMb)} MB before, ${f(m.rssAfterMb)} MB after, ${f(m.rssAfter20kMb)} MB after 10,000 more (${f(m.perSecond)} mints/s); alive: ${m.alive ? 'yes' : 'NO'}`);
