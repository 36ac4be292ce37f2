// npm run bench:streams — the CPU an answer's stream costs the service in its own process, by how
// the Node host reads it: 1,000 answers at once, each 20 pieces (a 1.6 s answer at the fan-out's
// 100 ms tick), one piece per event-loop turn. `direct`: node-handler.ts takes the record stream and
// writes each piece as it comes (here to a counter, not a socket: the socket's cost is the same in
// every mode); `guarded`: the same with the session guard on the record stream (decision 706);
// `web`: the Response's web stream read by a reader, node-handler's path for any other body;
// `wrapped`: that stream wrapped in a second one that asks at most every 5 s, as the guard was
// first written (decision 684). Usage: node bench/answer-streams.mjs [pieces]
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';

const root = new URL('..', import.meta.url).pathname;
const out = await mkdtemp(join(tmpdir(), 'agent-chat-streams-'));
await build({
  root,
  configFile: false,
  logLevel: 'silent',
  build: {
    ssr: join(root, 'service/answers/record-stream.ts'),
    outDir: out,
    rollupOptions: { output: { entryFileNames: 'record-stream.mjs' } },
  },
});
const { RecordStream, takeRecordStream } = await import(join(out, 'record-stream.mjs'));
await rm(out, { recursive: true, force: true });

const PIECES = Number(process.argv[2] ?? 20);
const ANSWERS = 1_000;
const RECHECK_MS = 5_000;
const piece = new TextEncoder().encode(
  '{"chunk":{"type":"partial_answer","content":{"text":"a few words "},"stream_end":false}}\u241E',
);
const turn = () => new Promise((resolve) => setImmediate(resolve));
let bytes = 0;

/** Decision 684's first guard: a second web stream that reads the first and asks between reads. */
function wrapped(response) {
  const reader = response.body.getReader();
  let checkedAt = Date.now();
  const body = new ReadableStream({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) return controller.close();
      if (Date.now() - checkedAt >= RECHECK_MS) checkedAt = Date.now();
      controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

async function readAll(response) {
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    bytes += value.length;
  }
}

function reading(stream, mode) {
  const response = stream.response({ 'Content-Type': 'text/plain' });
  if (mode === 'web') return readAll(response);
  if (mode === 'wrapped') return readAll(wrapped(response));
  const records = takeRecordStream(response);
  if (mode === 'guarded')
    records.guard(
      async () => true,
      RECHECK_MS,
      () => Date.now(),
    );
  return new Promise((resolve) => records.pipe({ write: (b) => void (bytes += b.length), end: resolve }));
}

/** CPU (user + system) per answer in ms, from the first piece to the last reader's end. */
async function run(mode) {
  const streams = Array.from({ length: ANSWERS }, () => new RecordStream(() => {}));
  const cpu = process.cpuUsage();
  const reads = streams.map((stream) => reading(stream, mode));
  for (let i = 0; i < PIECES; i++) {
    for (const stream of streams) stream.write(piece);
    await turn();
  }
  for (const stream of streams) stream.end();
  await Promise.all(reads);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / ANSWERS;
}

const modes = ['direct', 'guarded', 'web', 'wrapped'];
const figures = Object.fromEntries(modes.map((m) => [m, []]));
// A first round warms the JIT; the modes then alternate their order, so none always runs first.
for (const mode of modes) await run(mode);
for (let round = 0; round < 8; round++)
  for (const mode of round % 2 ? [...modes].reverse() : modes) figures[mode].push(await run(mode));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `answer streams: ${ANSWERS} answers of ${PIECES} pieces; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (const mode of modes) {
  const xs = figures[mode];
  console.log(
    `${mode.padEnd(8)} CPU per answer: median ${median(xs).toFixed(3)} ms (${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)}, ${xs.length} runs)`,
  );
}
if (bytes === 0) throw new Error('nothing was read');
