// npm run bench:console — the console's activity charts for a project with 1,000,000 stored
// events, on PostgreSQL (scripts/with-postgres.sh gives DATABASE_URL), through the service's
// own handler (console API, cookie session), as the Activity page asks for them.
// Seeding: 100,000 sessions over 90 days, each 1 session + 1 thread + 8 message events
// (1,000,000 events), 2 integrations, a third of the sessions anonymous, 20,000 reactions.
import { cpus, loadavg } from 'node:os';
import { createAgentService, openStorage, scryptPasswords } from '../service/dist/index.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.log('bench:console: no DATABASE_URL (and no PostgreSQL binaries to make one); skipped');
  process.exit(0);
}
const DAY = 86_400_000;
const PROJECT = 'proj_bench';
const SESSIONS = 100_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 89 * DAY;

const { default: pg } = await import('pg');
const db = new pg.Client({ connectionString: url });
await db.connect();
const storage = await openStorage({ databaseUrl: url });
const service = createAgentService({
  projects: [{ id: PROJECT, apiKey: 'bench-key-not-secret', integrationIds: ['int_docs', 'int_app'] }],
  storage,
  console: { passwords: scryptPasswords },
  activityStalenessMs: 24 * 3_600_000,
  rateLimit: false,
});

let t = performance.now();
await db.query(
  `INSERT INTO events (kind, project_id, at, session_token, owner, integration_id)
  SELECT CASE WHEN k = 0 THEN 'session' WHEN k = 1 THEN 'thread' ELSE 'message' END, $1,
    $2::bigint + (i % 90) * ${DAY}::bigint + (i % 43200) * 2000, 'ses_' || i,
    CASE WHEN i % 3 = 0 THEN NULL ELSE 'owner-' || (i % 20000) END,
    CASE WHEN k = 0 THEN NULL WHEN i % 4 = 0 THEN 'int_app' ELSE 'int_docs' END
  FROM generate_series(0, ${SESSIONS - 1}) AS i, generate_series(0, 9) AS k`,
  [PROJECT, start],
);
await db.query(
  `INSERT INTO feedback (message_id, voter, project_id, session_token, owner, integration_id, reaction, comment, at)
  SELECT 'msg_' || i, 'session:ses_' || i, $1, 'ses_' || i, NULL, CASE WHEN i % 4 = 0 THEN 'int_app' ELSE 'int_docs' END,
    CASE WHEN i % 3 = 0 THEN 'downvote' ELSE 'upvote' END, NULL, $2::bigint + (i % 90) * ${DAY}::bigint + 3600000
  FROM generate_series(0, ${SESSIONS - 1}, 5) AS i`,
  [PROJECT, start],
);
await db.query('ANALYZE events; ANALYZE feedback');
const seeded = performance.now() - t;
const {
  rows: [{ count: events }],
} = await db.query('SELECT count(*) FROM events WHERE project_id = $1', [PROJECT]);

t = performance.now();
await storage.activity.refreshActivity();
const refresh = performance.now() - t;
const {
  rows: [{ count: rollupRows }],
} = await db.query('SELECT count(*) FROM activity_rollup WHERE project_id = $1', [PROJECT]);
await db.query('ANALYZE activity_rollup');

await storage.accounts.createAdmin({
  username: 'bench',
  passwordHash: await scryptPasswords.hash('bench password 1'),
  createdAt: Date.now(),
});
const signIn = await service.handle(
  new Request('http://bench.test/console/api/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: 'http://bench.test' },
    body: JSON.stringify({ username: 'bench', password: 'bench password 1' }),
  }),
);
const cookie = signIn.headers.get('Set-Cookie').split(';')[0];
const day = (time) => new Date(time).toISOString().slice(0, 10);

async function measure(label, query, runs = 30) {
  const path = `http://bench.test/console/api/projects/${PROJECT}/activity?${new URLSearchParams(query)}`;
  const first = await service.handle(new Request(path, { headers: { Cookie: cookie } }));
  if (first.status !== 200) throw new Error(`${label}: ${first.status} ${await first.text()}`);
  const body = await first.json();
  const times = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const response = await service.handle(new Request(path, { headers: { Cookie: cookie } }));
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  const pct = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
  return {
    query: label,
    days: body.by_day.length,
    sessions: body.totals.sessions,
    owners: body.totals.unique_owners,
    messages: body.totals.messages,
    'p50 ms': pct(0.5),
    'p95 ms': pct(0.95),
    'max ms': times.at(-1).toFixed(1),
    'service CPU ms/call': ((used.user + used.system) / 1000 / runs).toFixed(2),
  };
}

// The first call after start fills the directory cache; not part of the figures.
await measure('warm-up', { start: day(today - 29 * DAY), end: day(today) }, 1);
const rows = [
  await measure('30 days (the default)', { start: day(today - 29 * DAY), end: day(today) }),
  await measure('90 days (every event)', { start: day(start), end: day(today) }),
  await measure('90 days, one integration', {
    start: day(start),
    end: day(today),
    integration_id: 'int_docs',
  }),
  await measure('1 year', { start: day(today - 364 * DAY), end: day(today) }),
];
console.log(
  `bench:console on PostgreSQL ${(await db.query('SHOW server_version')).rows[0].server_version}: ${events} events (${rollupRows} rollup rows), seeded in ${(seeded / 1000).toFixed(1)} s; rollup refresh ${(refresh / 1000).toFixed(2)} s (off the request path: once per staleness interval)`,
);
console.table(rows);
console.log(
  `machine: ${cpus().length} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')} (1/5/15 min) at the end; budget 200 ms`,
);
const worst = Math.max(...rows.map((r) => Number(r['p95 ms'])));
await service.close();
await db.end();
if (worst > 200) {
  console.error(`bench:console: p95 ${worst} ms is over the 200 ms budget`);
  process.exit(1);
}
