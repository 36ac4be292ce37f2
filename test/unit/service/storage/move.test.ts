/**
 * The move of an embedded store into PostgreSQL (decisions 509-511): a data directory filled
 * through the service's own routes (and past a batch with generated rows), moved by the command,
 * then a service on the target that serves the same history, sign-in, keys, docs and Activity.
 * `npm test` moves into a schema of PGlite; `npm run test:postgres` into PostgreSQL, and fails
 * there without it.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentError,
  createAgentService,
  DocsLibrary,
  ManualClock,
  type Agent,
  type Stores,
} from '../../../../service/index.js';
import { readDocsFolder } from '../../../../service/docs/folder.js';
import { moveToPostgres, type MoveEngines } from '../../../../service/move-cli.js';
import { BATCH_ROWS, INSTANCE_TABLES } from '../../../../service/storage/move.js';
import { openDataDir, openStorage } from '../../../../service/storage/open.js';
import { postgresClient } from '../../../../service/storage/postgres.js';
import { openSqlStores, type SqlClient } from '../../../../service/storage/sql/index.js';
import { addAdmin, ADMIN, CONSOLE, consoleClient } from '../../../fixtures/console.js';
import { pngHeader } from '../../../fixtures/files.js';
import { allRecords, BASE } from '../../../fixtures/service.js';
import { freshPostgresSchema, sqlEngines } from '../../../fixtures/storages.js';

const DOCS = join(import.meta.dirname, '../../../fixtures/docs-site/docs');
const PROJECT = 'proj_acme';
const INTEGRATION = 'int_site';
const AGENT = `${BASE}/agent/v1/projects/${PROJECT}/agent`;

/** Streams its answer in three pieces with usage; a question that asks it to fail fails half-way. */
const agent: Agent = {
  async *answer(input) {
    if (input.message.includes('fail')) {
      yield { type: 'text', text: 'Let me ' };
      throw new AgentError('The model is away.', 'model_unavailable', 'The model server did not answer.');
    }
    for (const text of ['Set ', '--agent-chat-color-accent ', `on the element (${input.message.length}).`])
      yield { type: 'text', text };
    yield { type: 'usage', promptTokens: 120, completionTokens: 9 };
  },
};

/** One service over `storage` with the console and a docs library, on a manual clock at `now`. */
function serviceOn(storage: Stores, now: number) {
  const clock = new ManualClock(now);
  const docs = new DocsLibrary({
    store: storage.docs,
    clock,
    readFolder: readDocsFolder,
    network: { allowPrivate: true },
    crawl: { retryDelayMs: 1 },
  });
  const service = createAgentService({
    storage,
    clock,
    agent,
    docs,
    console: CONSOLE,
    rateLimit: false,
    publicUrl: BASE,
  });
  const call = (
    method: string,
    path: string,
    init: { token?: string; apiKey?: string; body?: unknown } = {},
  ) =>
    service.handle(
      new Request(`${AGENT}${path}`, {
        method,
        headers: {
          ...(init.token && { Authorization: `Bearer ${init.token}` }),
          ...(init.apiKey && { 'X-API-Key': init.apiKey }),
          ...(init.body !== undefined &&
            !(init.body instanceof FormData) && { 'Content-Type': 'application/json' }),
        },
        body:
          init.body instanceof FormData || init.body === undefined ? init.body : JSON.stringify(init.body),
      }),
    );
  const mint = async (apiKey: string, owner: string) => {
    const minted = await call('POST', '/sessions/', { apiKey, body: { external_owner_id: owner } });
    expect(minted.status).toBe(200);
    return ((await minted.json()) as { session_token: string }).session_token;
  };
  const chat = async (token: string, message: string, extra: Record<string, unknown> = {}) =>
    allRecords(
      await call('POST', '/chat/', { token, body: { integration_id: INTEGRATION, message, ...extra } }),
    );
  return { service, clock, docs, call, mint, chat };
}

type Served = ReturnType<typeof serviceOn>;

/** What a visitor and an admin see of the store, read through the routes (the audit log apart: reading adds to it). */
async function observe(
  served: Served,
  admin: ReturnType<typeof consoleClient>,
  token: string,
  fileId: string,
) {
  const get = async (path: string) => (await served.call('GET', path, { token })).json();
  const threads = (await get('/threads/')) as { threads: { id: string }[] };
  const path = `projects/${PROJECT}`;
  const body = async (p: string) => (await admin.call('GET', p)).body;
  const conversations = await body(`${path}/conversations/`);
  return {
    threads,
    thread: await Promise.all(threads.threads.map((t) => get(`/threads/${t.id}/`))),
    file: Buffer.from(
      await (await served.call('GET', `/files/${fileId}/`, { token })).arrayBuffer(),
    ).toString('hex'),
    projects: await body('projects'),
    keys: await body(`${path}/keys`),
    conversations,
    conversation: await Promise.all(
      conversations.threads.map((t: { id: string }) => body(`${path}/conversations/${t.id}`)),
    ),
    activity: await body(`${path}/activity/?start=2026-11-01&end=2026-11-30`),
    sources: await body(`${path}/docs/sources`),
    search: await body(`${path}/docs/search?q=${encodeURIComponent('max_locks_per_transaction')}`),
  };
}

/**
 * The source: a data directory a service filled, still open as that service opened it (a PGlite
 * start is a second or more), what the service served, and every row the store held.
 */
interface Filled {
  dir: string;
  source: Awaited<ReturnType<typeof openDataDir>>;
  now: number;
  key: string;
  token: string;
  fileId: string;
  seen: Awaited<ReturnType<typeof observe>>;
  audit: { entries: { id: number; action: string }[] };
  contents: Record<string, string>;
}

/** A project, an integration, a key, an admin, a folder of docs, a streamed answer, a file, a failed answer, feedback. */
async function fillThroughRoutes(served: Served, admin: ReturnType<typeof consoleClient>) {
  expect((await admin.signIn()).status).toBe(200);
  expect((await admin.call('POST', 'projects', { id: PROJECT, name: 'Acme' })).status).toBe(201);
  expect(
    (await admin.call('POST', `projects/${PROJECT}/integrations`, { id: INTEGRATION, name: 'Site' })).status,
  ).toBe(201);
  const key = (await admin.call('POST', `projects/${PROJECT}/keys`, { name: 'Production' })).body
    .key as string;
  const source = { location: DOCS, public_url: 'https://acme.example/docs' };
  expect((await admin.call('POST', `projects/${PROJECT}/docs/sources`, source)).status).toBe(201);
  await served.docs.tick();

  const token = await served.mint(key, 'alice');
  const answered = await served.chat(token, 'How do I theme the widget?');
  const threadId = answered[0].content.thread_id as string;
  served.clock.advance(60_000);
  const form = new FormData();
  form.append('file', new Blob([pngHeader()], { type: 'image/png' }), 'map.png');
  const upload = await served.call('POST', `/files/?integration_id=${INTEGRATION}`, { token, body: form });
  const fileId = ((await upload.json()) as { file_id: string }).file_id;
  await served.chat(token, 'And on this map?', { thread_id: threadId, attachments: [fileId] });
  served.clock.advance(60_000);
  expect((await served.chat(await served.mint(key, 'bob'), 'Please fail')).at(-1)).toMatchObject({
    type: 'error',
  });
  const feedback = {
    question_answer_id: answered[0].content.question_answer_id,
    reaction: 'upvote',
    comment: null,
  };
  expect((await served.call('POST', '/feedback/', { token, body: feedback })).status).toBe(204);
  return { key, token, fileId };
}

async function fill(dir: string): Promise<Filled> {
  const source = await openDataDir(dir);
  const { stores, client } = source;
  // The service stops; the store stays open for the moves (and holds the directory's lock).
  const served = serviceOn({ ...stores, close: async () => {} }, Date.UTC(2026, 10, 21, 9));
  await addAdmin(stores);
  const admin = consoleClient(served.service);
  const made = await fillThroughRoutes(served, admin);
  await generateRows(client);
  await served.service.refreshActivity();
  const seen = await observe(served, admin, made.token, made.fileId);
  const audit = (await admin.call('GET', 'audit')).body;
  const held = await contents(client);
  await served.service.close();
  return { dir, source, now: served.clock.now(), ...made, seen, audit, contents: held };
}

/**
 * Rows past a batch in the big tables, of another project, with every kind of value the schema
 * has: bytes, JSON, arrays of reals, big numbers (and the rollup's ranges, from the refresh).
 */
async function generateRows(db: SqlClient) {
  const statements = [
    "INSERT INTO projects VALUES ('p', 'P', 's', 1)",
    `INSERT INTO integrations (project_id, id, name, allowed_origins, created_at) VALUES ('p', 'i', 'I', '["https://a.example"]', 1)`,
    "INSERT INTO threads VALUES ('t', 'p', 'i', 'carol', 'T', 1, 9007199254740993)",
    `INSERT INTO messages (id, thread_id, role, content, sources, created_at, updated_at, status, tool_calls, activity, uncertain, failure_code)
       SELECT 'm' || n, 't', 'assistant', 'line ' || n || E'\\n"quoted" \\\\ é', jsonb_build_array(jsonb_build_object('n', n, 'source_url', 'https://docs.example/' || n % 50 || '#s')), n, n,
         'complete', '[]', '[]', n % 2 = 0, CASE WHEN n % 7 = 0 THEN 'model_timeout' END
       FROM generate_series(1, 1201) n`,
    `INSERT INTO events (kind, project_id, at, session_token, owner, prompt_tokens)
       SELECT 'message', 'p', n::bigint * 86400000, 'h' || (n % 5), 'carol', n FROM generate_series(1, 1201) n`,
    `INSERT INTO files (id, project_id, integration_id, uploader, name, content_type, kind, size, bytes, created_at, thread_id)
       SELECT 'f' || n, 'p', 'i', 'carol', 'f.png', 'image/png', 'image', 3, decode('00ff0' || n, 'hex'), n, 't' FROM generate_series(1, 3) n`,
    `INSERT INTO doc_sections (source_id, page_url, position, url, title, headings, body, embedding, embedding_model)
       SELECT source_id, url, 99, url || '#e', 'E', '["E"]', 'e', '{0.1,-1e-30,3.4028235e+38}', 'm' FROM doc_pages LIMIT 1`,
  ];
  for (const sql of statements) await db.query(sql);
}

/** The tables of the schema a client is on. */
async function tableNames(db: SqlClient): Promise<string[]> {
  const { rows } = await db.query(
    'SELECT tablename::text AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename',
  );
  return rows.map((r) => String(r.name));
}

/** Every row of every table the move copies and of the rollup, as PostgreSQL prints it, sorted: what "the same" compares. */
async function contents(db: SqlClient): Promise<Record<string, string>> {
  const all: Record<string, string> = {};
  for (const table of [...(await tableNames(db)), 'activity_rollup']) {
    if (INSTANCE_TABLES.includes(table)) continue;
    const { rows } = await db.query(
      `SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') AS rows FROM ${table} t`,
    );
    all[table] = String(rows[0].rows);
  }
  return all;
}

/** Where a move goes: a fresh, empty schema named by a URL, its client, and the stores a service opens on it. */
interface Target {
  name: string;
  fresh(): Promise<string>;
  connect(url: string): Promise<SqlClient>;
  stores(url: string): Promise<Stores>;
}

/** Schemas of the tests' one PGlite: each client switches the database to its schema, so one is used at a time. */
const pgliteSchemas = new Map<string, SqlClient>();
const pglite: Target = {
  name: 'a PGlite schema',
  async fresh() {
    const url = `pglite:${pgliteSchemas.size}`;
    pgliteSchemas.set(
      url,
      await sqlEngines()
        .find((e) => e.name === 'pglite')!
        .client(),
    );
    return url;
  },
  connect: async (url) => pgliteSchemas.get(url)!,
  stores: async (url) => openSqlStores(pgliteSchemas.get(url)!),
};
const postgresql: Target = {
  name: 'PostgreSQL',
  fresh: freshPostgresSchema,
  connect: postgresClient,
  stores: (databaseUrl) => openStorage({ databaseUrl }),
};

/** `npm run test:postgres` moves into PostgreSQL only; without it there, freshPostgresSchema fails the tests. */
const targets =
  process.env.SERVICE_TEST_STORAGE === 'postgres'
    ? [postgresql]
    : [pglite, ...(process.env.DATABASE_URL ? [postgresql] : [])];

let filled: Filled;
const dirs: string[] = [];
beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-chat-move-'));
  dirs.push(dir);
  filled = await fill(dir);
}, 120_000);
afterAll(async () => {
  await filled?.source.stores.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The filled store as the command's source: the command's close leaves it open for the next. */
const filledSource: MoveEngines['open'] = async () => ({
  client: filled.source.client,
  stores: { ...filled.source.stores, close: async () => {} },
});

/** The command's run on the filled directory, its lines kept; `engines` may stand in for the real ones. */
async function run(url: string | undefined, engines: Partial<MoveEngines> = {}, dataDir = filled.dir) {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await moveToPostgres(
    [],
    { databaseUrl: url, dataDir },
    { print: (line) => lines.push(line), error: (line) => errors.push(line) },
    { open: openDataDir, connect: postgresClient, ...engines },
  );
  return { code, lines, errors };
}

describe.each(targets)('move-to-postgres into $name', { timeout: 60_000 }, (target) => {
  it('copies every row in batches; a service on the target serves the same history, sign-in, keys, docs and Activity', async () => {
    const url = await target.fresh();
    const reads: Record<string, number[]> = {};
    const moved = await run(url, { open: () => countingReads(reads), connect: target.connect });
    expect(moved.errors).toEqual([]);
    expect(moved.code).toBe(0);
    // Table by table with its rows, then the total and the next step.
    expect(moved.lines).toContainEqual(expect.stringMatching(/^ {2}messages +1207$/));
    expect(moved.lines).toContainEqual(expect.stringMatching(/^ {2}admins +1$/));
    expect(moved.lines.at(-1)).toMatch(/^Next: start the service with DATABASE_URL/);
    // Never more than a batch in hand: 500 rows, and a file's row alone.
    expect(reads.messages).toEqual([BATCH_ROWS, BATCH_ROWS, 207]);
    expect(reads.files).toEqual([1, 1, 1, 1, 0]);

    const db = await target.connect(url);
    try {
      expect(await contents(db)).toEqual(filled.contents);
      // The citations, which the target's trigger writes as the messages arrive (decision 748), as the source's.
      expect(filled.contents.citations).not.toBe('');
      // Every sequence goes on past the ids it copied.
      const { rows } = await db.query(
        `SELECT table_name::text AS t, column_name::text AS c, pg_get_serial_sequence(quote_ident(table_name), column_name) AS s
         FROM information_schema.columns WHERE table_schema = current_schema() AND column_default LIKE 'nextval%' ORDER BY table_name`,
      );
      expect(rows.map((r) => r.t)).toEqual([
        'audit_log',
        'doc_crawl_runs',
        'doc_sections',
        'events',
        'messages',
      ]);
      for (const { t, c, s } of rows) {
        const next = `SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END AS n FROM ${String(s)}`;
        const max = `SELECT coalesce(max(${String(c)}), 0) + 1 AS n FROM ${String(t)}`;
        expect((await db.query(next)).rows[0].n, String(t)).toEqual((await db.query(max)).rows[0].n);
      }
    } finally {
      await db.close();
    }
    const served = serviceOn(await target.stores(url), filled.now);
    try {
      await servesTheSame(served);
    } finally {
      await served.service.close();
    }
  });

  it('refuses a target that holds data, naming the table, and copies nothing', async () => {
    const url = await target.fresh();
    const before = await target.stores(url);
    await before.directory.createProject({ id: 'proj_there', name: 'There', ownerSecret: 's', createdAt: 1 });
    await before.close();
    const refused = await run(url, { open: filledSource, connect: target.connect });
    expect(refused.code).toBe(1);
    expect(refused.errors.join('\n')).toMatch(
      /already holds rows in projects; nothing was copied\.\nThe move copies into an empty database only/,
    );
    const db = await target.connect(url);
    try {
      const held = Object.entries(await contents(db)).filter(([, rows]) => rows !== '');
      expect(held).toEqual([['projects', '(proj_there,There,s,1)']]);
    } finally {
      await db.close();
    }
  });

  it('a failure half-way leaves the target without a row of the move', async () => {
    const url = await target.fresh();
    let inserts = 0;
    const dropping = async (databaseUrl: string): Promise<SqlClient> => {
      const db = await target.connect(databaseUrl);
      return {
        ...db,
        transaction: (fn) =>
          db.transaction((query) =>
            fn(async (sql, params) => {
              // The connection drops once the first tables are written, at the second batch of messages.
              if (sql.startsWith('INSERT INTO "messages"') && ++inserts === 2)
                throw new Error('the connection dropped');
              return query(sql, params);
            }),
          ),
      };
    };
    const failed = await run(url, { open: filledSource, connect: dropping });
    expect(failed.code).toBe(1);
    expect(failed.errors.join('\n')).toMatch(/the connection dropped\nNothing was copied/);
    const db = await target.connect(url);
    try {
      expect(Object.values(await contents(db)).every((rows) => rows === '')).toBe(true);
      expect(await tableNames(db)).toContain('messages');
    } finally {
      await db.close();
    }
  });
});

/** The filled store, every batch read counted by table. */
async function countingReads(reads: Record<string, number[]>) {
  const opened = await filledSource(filled.dir);
  const query: SqlClient['query'] = async (sql, params) => {
    const result = await opened.client.query(sql, params);
    const table = /FROM "(\w+)" t WHERE t\.ctid/.exec(sql)?.[1];
    if (table) (reads[table] ??= []).push(Number(result.rows[0].n));
    return result;
  };
  return { ...opened, client: { ...opened.client, query } };
}

/** The console's sign-in, the audit log, every observation, the key and the visitor's thread, on the target. */
async function servesTheSame(served: Served) {
  const admin = consoleClient(served.service);
  expect((await admin.signIn(ADMIN.username, ADMIN.password)).status).toBe(200);
  // The audit log goes on past the copied entries: the sign-in is the next id.
  const audit = (await admin.call('GET', 'audit')).body;
  expect(audit.entries[0]).toMatchObject({ action: 'sign_in', id: filled.audit.entries[0].id + 1 });
  expect(audit.entries.slice(1)).toEqual(filled.audit.entries.slice(0, 49));
  // When the rollup was last rebuilt is an instance's, not data: the target's first refresh says.
  await served.service.refreshActivity();
  const seen = await observe(served, admin, filled.token, filled.fileId);
  expect(seen).toEqual(filled.seen);
  expect(seen.thread[0].messages.map((m: { content: string }) => m.content)).toContain('And on this map?');
  const failures = seen.conversation.flatMap((t: { messages: { failure: unknown }[] }) =>
    t.messages.map((m) => m.failure),
  );
  expect(failures).toContainEqual({ code: 'model_unavailable', message: 'The model server did not answer.' });
  expect(seen.search.hits[0].headings).toContain('max_locks_per_transaction (integer)');
  expect(seen.activity.totals).toMatchObject({
    sessions: 2,
    threads: 2,
    messages: 6,
    upvotes: 1,
    failed_answers: 1,
  });

  // The key mints sessions; the visitor's thread goes on, its new messages after the copied ones.
  const token = await served.mint(filled.key, 'alice');
  const threadId = seen.threads.threads[0].id;
  await served.chat(token, 'One more?', { thread_id: threadId });
  const thread = await (await served.call('GET', `/threads/${threadId}/`, { token })).json();
  expect(thread.messages.map((m: { content: string }) => m.content).slice(-2)).toEqual([
    'One more?',
    'Set --agent-chat-color-accent on the element (9).',
  ]);
  expect(thread.messages).toHaveLength(6);
}

describe.each(process.env.SERVICE_TEST_STORAGE === 'postgres' ? [] : ['the embedded store'])(
  'move-to-postgres refuses',
  () => {
    it('a data directory a service holds, saying to stop it first, and reads nothing', async () => {
      // The filled store is open, as a running service holds it: the command opens the directory itself.
      const refused = await run('postgres://never');
      expect(refused.code).toBe(1);
      expect(refused.errors[0]).toContain(
        `${filled.dir} is in use by process ${process.pid}, the service running on it. Stop it first`,
      );
      expect(refused.lines).toEqual([]);
    });

    it('without DATABASE_URL or with arguments it does not take (2), and a directory with no store (1), making none', async () => {
      expect(await run(undefined)).toMatchObject({
        code: 2,
        errors: [expect.stringContaining('DATABASE_URL must name')],
      });
      const quiet = { print: () => {}, error: () => {} };
      expect(await moveToPostgres(['now'], { databaseUrl: 'postgres://x', dataDir: filled.dir }, quiet)).toBe(
        2,
      );
      const empty = await mkdtemp(join(tmpdir(), 'agent-chat-move-'));
      dirs.push(empty);
      const missing = await run('postgres://never', {}, empty);
      expect(missing).toMatchObject({
        code: 1,
        errors: [expect.stringContaining(`${empty} holds no embedded store`)],
      });
      expect(await readdir(empty)).toEqual([]);
    });
  },
);
