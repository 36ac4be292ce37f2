// npm run bench:service — the service under load, as a separate process (service/dist/cli.js).
// Usage: node bench/service.mjs embedded|postgres   (postgres needs DATABASE_URL; see scripts/with-postgres.sh)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const backend = process.argv[2] ?? 'embedded';
if (backend === 'postgres' && !process.env.DATABASE_URL) {
  console.log('bench:service postgres: no DATABASE_URL (and no PostgreSQL binaries to make one); skipped');
  process.exit(0);
}
// BENCH_CLI: another build of the program (to compare before and after on the same machine).
const CLI = process.env.BENCH_CLI ?? new URL('../service/dist/cli.js', import.meta.url).pathname;
const PROJECT = 'proj_bench';
const KEY = 'bench-key-not-secret';
const SEP = '\u241E';

async function start(dataDir, nodeArgs = []) {
  const env = {
    ...process.env,
    DATABASE_URL: backend === 'postgres' ? process.env.DATABASE_URL : '',
    // A realistic pace: ~20 ms between words, as a model streams.
    AGENT_CHAT_WORD_DELAY_MS: process.env.BENCH_WORD_DELAY_MS ?? '20',
    AGENT_CHAT_RATE_LIMIT: '0',
    AGENT_CHAT_SESSION_MINT_LIMIT: '0',
    DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? '20',
  };
  // BENCH_NODE_ARGS: extra flags for the service's node (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const child = spawn(
    process.execPath,
    [
      ...extra,
      ...nodeArgs,
      CLI,
      '--port',
      '0',
      '--data',
      dataDir,
      '--project',
      PROJECT,
      '--integration',
      'int_bench',
      '--api-key',
      KEY,
    ],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const url = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (!match) return;
      // The service logs every request: stop reading what it says, so the client's CPU goes to the requests.
      child.stdout.off('data', onData);
      resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`service exited ${code}`)));
  });
  child.stdout.resume();
  return { child, url, agent: `${url}/agent/v1/projects/${PROJECT}/agent` };
}

const stop = (child, signal = 'SIGTERM') =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill(signal);
  });

async function mint(agent, owner) {
  const response = await fetch(`${agent}/sessions/`, {
    method: 'POST',
    headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' },
    body: owner ? JSON.stringify({ external_owner_id: owner }) : undefined,
  });
  if (!response.ok) throw new Error(`mint ${response.status}`);
  return (await response.json()).session_token;
}

const QUESTIONS = [
  'How do I theme the widget?',
  'What is the session endpoint?',
  'Is it safe against XSS?',
  'How do I use it with React?',
  'Can I delete a conversation?',
];

/** One streamed chat; resolves with the time to the first record, the text and the ids. */
async function chat(agent, token, message, onFirstPartial, onText) {
  const started = performance.now();
  const response = await fetch(`${agent}/chat/`, {
    method: 'POST',
    // Every question carries its Idempotency-Key, as the widget's do (decision 453);
    // BENCH_IDEMPOTENCY=off sends none, to measure what the key costs.
    headers: {
      Authorization: `Bearer ${token}`,
      ...(process.env.BENCH_IDEMPOTENCY !== 'off' && { 'Idempotency-Key': randomUUID() }),
    },
    body: JSON.stringify({ integration_id: 'int_bench', message }),
  });
  if (!response.ok) throw new Error(`chat ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let first = null;
  let text = '';
  let threadId = null;
  let answerId = null;
  let end = null;
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      const parts = buffer.split(SEP);
      buffer = parts.pop();
      for (const part of parts) {
        first ??= performance.now() - started;
        const record = JSON.parse(part).chunk;
        if (record.type === 'stream_start') {
          threadId = record.content.thread_id;
          answerId = record.content.question_answer_id;
        }
        if (record.type === 'partial_answer') {
          const firstText = !text;
          text += record.content.text;
          onText?.(text.length);
          if (firstText)
            onFirstPartial?.({ threadId, answerId, text: record.content.text, at: performance.now() });
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

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
async function cpuMs(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function concurrent(n) {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-bench-'));
  const { child, agent } = await start(dataDir);
  try {
    const tokens = [];
    // Minted in batches: the mint burst is not what this measures.
    for (let i = 0; i < n; i += 100)
      tokens.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(100, n - i) }, (_, j) => mint(agent, `owner-${n}-${i + j}`)),
        )),
      );
    // A first round at the same concurrency warms the pool and the JIT: a running service is warm,
    // and ten answers left V8's optimizing compiler with a third of the measured CPU (perf).
    // Its CPU is reported too, as the cold figure.
    const coldBefore = await cpuMs(child.pid);
    await Promise.all(tokens.map((token, i) => chat(agent, token, QUESTIONS[(i + 1) % QUESTIONS.length])));
    const cold = (await cpuMs(child.pid)) - coldBefore;
    const cpuBefore = await cpuMs(child.pid);
    const started = performance.now();
    const results = await Promise.all(
      tokens.map((token, i) => chat(agent, token, QUESTIONS[i % QUESTIONS.length])),
    );
    const cpu = (await cpuMs(child.pid)) - cpuBefore;
    const stillOpen = results.filter((r) => r.end !== 'identifiers').length;
    if (stillOpen) console.log(`  ${stillOpen} answers did not end with identifiers`);
    const wall = (performance.now() - started) / 1000;
    let stored = 0;
    for (let i = 0; i < n; i++) {
      const thread = await getThread(agent, tokens[i], results[i].threadId);
      const [q, a] = thread?.messages ?? [];
      if (
        q?.content === QUESTIONS[i % QUESTIONS.length] &&
        a?.content === results[i].text &&
        a?.status === 'complete' &&
        results[i].end === 'identifiers'
      )
        stored += 1;
    }
    const firsts = results.map((r) => r.first);
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
    return {
      n,
      p50: pct(firsts, 50),
      p95: pct(firsts, 95),
      p99: pct(firsts, 99),
      peakMb: Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024,
      answersPerSecond: n / wall,
      wall,
      stored,
      cpuPerAnswer: cpu / n,
      coldCpuPerAnswer: cold / n,
    };
  } finally {
    await stop(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * kill -9 while 20 answers stream. Embedded: after a restart every question is there, and every
 * answer up to its last save, stored as an error (decision 468). PostgreSQL: a second instance
 * keeps running and ends the dead one's answers as errors once its lease runs out; the figure is
 * how long that took.
 */
async function killNine() {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-bench-'));
  const survivor = backend === 'postgres' ? await start(dataDir) : null;
  let service = await start(dataDir);
  const n = 20;
  const tokens = await Promise.all(Array.from({ length: n }, (_, i) => mint(service.agent, `crash-${i}`)));
  // Some answers finish before the crash, the rest are cut off mid-stream.
  const done = await chat(service.agent, tokens[0], 'hello');
  let started = 0;
  let ready;
  const allStarted = new Promise((resolve) => (ready = resolve));
  const inFlight = tokens
    .slice(1)
    .map((token, i) =>
      chat(service.agent, token, QUESTIONS[i % QUESTIONS.length], () => ++started === n - 1 && ready()),
    );
  await allStarted;
  await new Promise((resolve) => setTimeout(resolve, 400));
  await stop(service.child, 'SIGKILL');
  const killedAt = performance.now();
  const cut = await Promise.all(inFlight);
  if (survivor) service = survivor;
  else service = await start(dataDir);
  const read = async () =>
    Promise.all(
      cut.map(async (c, i) =>
        getThread(service.agent, await mint(service.agent, `crash-${i + 1}`), c.threadId),
      ),
    );
  let threads = await read();
  let endedAfter = null;
  if (survivor) {
    // Polls as a client would; the survivor's own timers do the work.
    while (
      threads.some((t) => t?.messages[1]?.status === 'streaming') &&
      performance.now() - killedAt < 120_000
    ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      threads = await read();
    }
    endedAfter = (performance.now() - killedAt) / 1000;
  }
  let questions = done.threadId ? 1 : 0;
  let answers = 0;
  let prefixes = 0;
  const statuses = {};
  const first = await getThread(service.agent, await mint(service.agent, 'crash-0'), done.threadId);
  if (first?.messages[1]?.content === done.text && first.messages[1].status === 'complete') answers += 1;
  for (let i = 0; i < cut.length; i++) {
    const thread = threads[i];
    if (thread?.messages[0]?.content === QUESTIONS[i % QUESTIONS.length]) questions += 1;
    const a = thread?.messages[1];
    if (a) answers += 1;
    if (a && cut[i].text.startsWith(a.content)) prefixes += 1;
    if (a) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  }
  await stop(service.child);
  await rm(dataDir, { recursive: true, force: true });
  return { threads: n, questions, answers, prefixes, statuses, cutOff: cut.length, endedAfter };
}

/**
 * Two instances on one PostgreSQL: 20 answers generate on A, each followed by a reattach on B.
 * The lag is, for each piece of text, when B's client had it minus when A's client had it.
 */
async function fleetLag() {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-bench-'));
  const a = await start(dataDir);
  const b = await start(dataDir);
  try {
    const n = 20;
    const tokens = await Promise.all(Array.from({ length: n }, (_, i) => mint(a.agent, `lag-${i}`)));
    const lags = [];
    let followed = 0;
    await Promise.all(
      tokens.map(async (token, i) => {
        const seenOnA = [];
        let follow;
        const onA = chat(
          a.agent,
          token,
          QUESTIONS[i % QUESTIONS.length],
          (first) => {
            follow = (async () => {
              const response = await fetch(`${b.agent}/answers/${first.answerId}/stream/`, {
                headers: { Authorization: `Bearer ${token}` },
              });
              const decoder = new TextDecoder();
              let buffer = '';
              let length = 0;
              for await (const chunk of response.body) {
                buffer += decoder.decode(chunk, { stream: true });
                const parts = buffer.split(SEP);
                buffer = parts.pop();
                for (const part of parts) {
                  const record = JSON.parse(part).chunk;
                  if (record.type !== 'partial_answer') continue;
                  length += record.content.text.length;
                  const onAAt = seenOnA.find((s) => s.length >= length);
                  // Text B had from the snapshot is not live: only what B got after A.
                  if (onAAt && onAAt.at > first.at) lags.push(performance.now() - onAAt.at);
                }
              }
              followed += 1;
            })();
          },
          (length) => seenOnA.push({ length, at: performance.now() }),
        );
        await onA;
        await follow;
      }),
    );
    return {
      n,
      followed,
      samples: lags.length,
      p50: pct(lags, 50),
      p99: pct(lags, 99),
      max: Math.max(...lags),
    };
  } finally {
    await Promise.all([stop(a.child), stop(b.child)]);
    await rm(dataDir, { recursive: true, force: true });
  }
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
    for (let batch = 0; batch < 100; batch++)
      await Promise.all(Array.from({ length: 100 }, () => mint(agent)));
    const seconds = (performance.now() - started) / 1000;
    const after = await rss(child.pid);
    // A second 10,000: a plateau means the growth was heap headroom, not per-session state.
    for (let batch = 0; batch < 100; batch++)
      await Promise.all(Array.from({ length: 100 }, () => mint(agent)));
    return {
      mints: 10_000,
      rssBeforeMb: before,
      rssAfterMb: after,
      rssAfter20kMb: await rss(child.pid),
      perSecond: 10_000 / seconds,
      alive: child.exitCode === null && (await fetch(`${agent.split('/agent/')[0]}/healthz`)).ok,
    };
  } finally {
    await stop(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * 1,000 TCP connections opened at once. A full accept queue drops the handshake and the client
 * retries its SYN after 1 s (then 3, 7): any connect slower than 900 ms is such a retry.
 */
/** The kernel's count of connections dropped because an accept queue was full (machine-wide). */
async function listenOverflows() {
  const lines = (await readFile('/proc/net/netstat', 'utf8'))
    .split('\n')
    .filter((l) => l.startsWith('TcpExt:'));
  const [names, values] = lines.map((l) => l.split(/\s+/).slice(1));
  return Number(values[names.indexOf('ListenOverflows')]);
}

async function burst(count = 1000) {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-bench-'));
  const { child, url } = await start(dataDir);
  const { hostname, port } = new URL(url);
  const overflowsBefore = await listenOverflows();
  try {
    const times = await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise((resolve) => {
            const started = performance.now();
            const socket = connect({ host: hostname, port: Number(port) });
            socket.once('connect', () => {
              const ms = performance.now() - started;
              // A request, so the server has to accept the socket and answer on it.
              socket.end('GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n');
              socket.resume();
              socket.once('close', () => resolve(ms));
            });
            socket.once('error', () => resolve(Number.POSITIVE_INFINITY));
          }),
      ),
    );
    const overflows = (await listenOverflows()) - overflowsBefore;
    return {
      count,
      overflows,
      retried: times.filter((t) => t > 900).length,
      failed: times.filter((t) => t === Number.POSITIVE_INFINITY).length,
      p50: pct(times, 50),
      max: Math.max(...times),
    };
  } finally {
    await stop(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Peak RSS (VmHWM) of a first start on an empty data directory, once it listens. */
async function firstStart() {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-bench-'));
  const started = performance.now();
  const { child } = await start(join(dataDir, 'data'));
  const ms = performance.now() - started;
  try {
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
    return { peakMb: Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024, rssMb: await rss(child.pid), ms };
  } finally {
    await stop(child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

const f = (x) => x.toFixed(0);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(
  `\nagent-chat service bench — ${backend === 'postgres' ? 'PostgreSQL' : 'embedded store (PGlite)'}; load average ${load()}`,
);
// BENCH_ONLY=concurrent|burst|start|kill|fleet|mints runs one part; BENCH_LEVELS=50,200 picks the concurrency levels.
const only = process.env.BENCH_ONLY;
const levels = (process.env.BENCH_LEVELS ?? '50,200,500,1000').split(',').map(Number);
for (const n of only && only !== 'concurrent' ? [] : levels) {
  const r = await concurrent(n);
  console.log(
    `${n} concurrent answers: first record p50 ${f(r.p50)} ms, p95 ${f(r.p95)} ms, p99 ${f(r.p99)} ms; CPU ${r.cpuPerAnswer.toFixed(2)} ms per answer warm (${r.coldCpuPerAnswer.toFixed(2)} in the first, cold round); ${r.answersPerSecond.toFixed(1)} answers/s (${r.wall.toFixed(1)} s); peak RSS ${f(r.peakMb)} MB; stored whole ${r.stored}/${n}; load ${load()}`,
  );
}
const b = only && only !== 'burst' ? null : await burst();
if (b)
  console.log(
    `burst of ${b.count} connections: accept-queue overflows ${b.overflows} (kernel counter, machine-wide), ${b.retried} connects slower than 900 ms (a SYN retry), ${b.failed} failed; connect p50 ${b.p50.toFixed(1)} ms, slowest ${f(b.max)} ms`,
  );
const s0 = only && only !== 'start' ? null : backend === 'embedded' ? await firstStart() : null;
if (s0)
  console.log(
    `first start on an empty data directory: peak RSS ${f(s0.peakMb)} MB (${f(s0.rssMb)} MB once listening), ready in ${f(s0.ms)} ms`,
  );
const k = only && only !== 'kill' ? null : await killNine();
if (k) {
  const after =
    k.endedAfter === null
      ? 'after a restart'
      : `on the surviving instance, all ended ${k.endedAfter.toFixed(1)} s after the kill`;
  console.log(
    `kill -9 while ${k.cutOff} of ${k.threads} answers streamed: questions kept ${k.questions}/${k.threads}, answers kept ${k.answers}/${k.threads}; cut answers stored as a prefix of what streamed ${k.prefixes}/${k.cutOff}; ${after}: ${Object.entries(
      k.statuses,
    )
      .map(([status, count]) => `${count} ${status}`)
      .join(', ')}`,
  );
}
const l = only && only !== 'fleet' ? null : backend === 'postgres' ? await fleetLag() : null;
if (l)
  console.log(
    `fleet of two: ${l.followed}/${l.n} answers generating on A followed live through B; B behind A p50 ${f(l.p50)} ms, p99 ${f(l.p99)} ms, most ${f(l.max)} ms (${l.samples} pieces of text)`,
  );
const m = only && only !== 'mints' ? null : await mints();
if (m)
  console.log(
    `10,000 session mints (JS heap capped at 64 MB): RSS ${f(m.rssBeforeMb)} MB before, ${f(m.rssAfterMb)} MB after, ${f(m.rssAfter20kMb)} MB after 10,000 more (${f(m.perSecond)} mints/s); alive: ${m.alive ? 'yes' : 'NO'}`,
  );
