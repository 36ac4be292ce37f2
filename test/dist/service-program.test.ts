import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { solveChallenge } from 'altcha-lib/v1';
import { afterAll, describe, expect, it } from 'vitest';
import { serveFolder } from '../../scripts/static-site.mjs';
import { lockDataDir } from '../../service/storage/data-dir-lock.js';
import { completion, startMockLlm } from '../fixtures/mock-llm.js';

const CLI = join(import.meta.dirname, '../../service/dist/cli.js');
/**
 * The built program is run as shipped, but for one V8 flag: WebAssembly compiled by the baseline
 * compiler only. Each of this file's twenty-odd starts compiles PGlite's PostgreSQL anew, and the
 * optimising tier (worth it in a process that runs for days) is most of a start's CPU in one
 * that runs for seconds: measured, a start on a new data directory 6.0 s -> 2.3-3.2 s.
 */
const NODE_FLAGS = ['--liftoff-only'];
const FLAGS = [
  '--port',
  '0',
  '--host',
  '127.0.0.1',
  '--project',
  'proj_prog',
  '--integration',
  'int_prog',
  '--api-key',
  'key-prog-test',
];

interface Program {
  child: ChildProcess;
  url: string;
  output: () => string;
  /**
   * Resolves once the program's output (stdout and stderr) holds `pattern`: checked as each
   * chunk arrives, not on a timer, so a loaded machine makes it later, never wrong; rejects if
   * the program exits first. The test's own timeout is the only ceiling.
   */
  printed: (pattern: string | RegExp) => Promise<void>;
}

const holds = (text: string, pattern: string | RegExp) =>
  typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);

/** Starts the built program and resolves with the URL it prints. */
function start(
  dataDir: string,
  extra: { flags?: string[]; env?: Record<string, string> } = {},
): Promise<Program> {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, CLI, ...FLAGS, '--data', dataDir, ...(extra.flags ?? [])],
    {
      env: { ...process.env, DATABASE_URL: '', AGENT_CHAT_WORD_DELAY_MS: '0', ...extra.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const waiting = new Set<() => void>();
  const printed = (pattern: string | RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (holds(output, pattern)) {
          waiting.delete(check);
          resolve();
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiting.delete(check);
          reject(new Error(`exited before printing ${pattern}: ${output}`));
        }
      };
      waiting.add(check);
      check();
    });
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      for (const check of waiting) check();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url) resolve({ child, url, output: () => output, printed });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      for (const check of waiting) check();
      reject(new Error(`exited with ${code}: ${output}`));
    });
  });
}

/**
 * Runs a command of the built program (not the server) with `input` on its stdin, to its end: its
 * exit code and output. The test's own timeout is the only ceiling.
 */
function finished(args: string[], input: string): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], {
    env: { ...process.env, DATABASE_URL: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  child.stdin.end(input);
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, output })));
}

function stop(program: Program): Promise<number | null> {
  return new Promise((resolve) => {
    program.child.once('exit', (code) => resolve(code));
    program.child.kill('SIGTERM');
  });
}

/** Signs in to the program's console as grace: the headers of her requests (cookie, CSRF token). */
async function signIn(url: string): Promise<Record<string, string>> {
  const headers = { Origin: url, 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' };
  const session = await fetch(`${url}/console/api/session`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ username: 'grace', password: 'correct horse battery' }),
  });
  expect(session.status).toBe(200);
  const { csrf_token: csrf } = await session.json();
  return { ...headers, Cookie: session.headers.get('Set-Cookie')!.split(';')[0], 'X-CSRF-Token': csrf };
}

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup) await fn();
});

describe('agent-chat-service (the program)', () => {
  it('serves with its flags, stops on SIGTERM, and restarts on the same data with everything there', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    let program = await start(dataDir);
    cleanup.push(async () => program.child.exitCode === null && program.child.kill('SIGKILL'));
    expect(program.output()).toContain('answers with the offline demo agent, which quotes the docs');
    expect(program.output()).not.toContain('every interface');
    const agent = () => `${program.url}/agent/v1/projects/proj_prog/agent`;
    const mint = async () =>
      (
        await (
          await fetch(`${agent()}/sessions/`, {
            method: 'POST',
            headers: { 'X-API-Key': 'key-prog-test', 'Content-Type': 'application/json' },
            body: '{"external_owner_id":"carol"}',
          })
        ).json()
      ).session_token as string;

    expect((await fetch(`${program.url}/healthz`)).status).toBe(200);
    const token = await mint();
    const chat = await fetch(`${agent()}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify({ integration_id: 'int_prog', message: 'How do I theme the widget?' }),
    });
    const body = await chat.text();
    expect(chat.status).toBe(200);
    const threadId = /"thread_id":"(th_[0-9a-f]{32})"/.exec(body)![1];
    expect(
      (
        await fetch(`${agent()}/threads/${threadId}/`, {
          method: 'PATCH',
          headers: { Authorization: `Bearer ${token}` },
          body: '{"title":"Theming notes"}',
        })
      ).status,
    ).toBe(200);
    expect(await stop(program)).toBe(0);
    expect(program.output()).not.toContain('key-prog-test');
    expect(program.output()).not.toContain(token);

    program = await start(dataDir);
    const later = await mint();
    const list = await (
      await fetch(`${agent()}/threads/`, { headers: { Authorization: `Bearer ${later}` } })
    ).json();
    expect(list.threads).toEqual([expect.objectContaining({ id: threadId, title: 'Theming notes' })]);
    const detail = await (
      await fetch(`${agent()}/threads/${threadId}/`, { headers: { Authorization: `Bearer ${later}` } })
    ).json();
    expect(detail.messages.map((m: { role: string; status: string }) => `${m.role}:${m.status}`)).toEqual([
      'user:complete',
      'assistant:complete',
    ]);
    expect(detail.messages[1].content).toContain('--agent-chat-color-accent');
    expect(await stop(program)).toBe(0);
  }, 120_000);

  it('--public with --allowed-origin: pages there get a proof of work and a session without a server; --public alone is refused', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const alone = await finished([...FLAGS, '--data', dataDir, '--public'], '');
    expect(alone.status).toBe(1);
    expect(alone.output).toContain('--public needs --allowed-origin');

    const site = 'https://docs.example.com';
    const program = await start(dataDir, {
      flags: ['--allowed-origin', site, '--public'],
      env: { AGENT_CHAT_CHALLENGE_WORK: '1000' },
    });
    cleanup.push(async () => program.child.exitCode === null && program.child.kill('SIGKILL'));
    const routes = `${program.url}/agent/v1/projects/proj_prog/integrations/int_prog`;
    const challenge = await fetch(`${routes}/challenge/`, { headers: { Origin: site } });
    expect(challenge.status).toBe(200);
    const c = await challenge.json();
    expect(c).toMatchObject({ algorithm: 'SHA-256', maxnumber: 1000 });
    const { number } = (await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise)!;
    const altcha = btoa(JSON.stringify({ ...c, number, maxnumber: undefined }));
    const minted = await fetch(`${routes}/sessions/`, {
      method: 'POST',
      headers: { Origin: site, 'Content-Type': 'application/json' },
      body: JSON.stringify({ altcha }),
    });
    expect(minted.status).toBe(200);
    expect((await minted.json()).session_token).toMatch(/^ses_/);
    const elsewhere = await fetch(`${routes}/challenge/`, { headers: { Origin: 'https://other.example' } });
    expect(elsewhere.status).toBe(403);
    // The program serves the widget release it was built with.
    expect((await fetch(`${program.url}/widget/latest/sri.json`, { redirect: 'follow' })).status).toBe(200);
    expect(await stop(program)).toBe(0);
  }, 60_000);

  it('says at start-up when the console cookie cannot be Secure behind a TLS proxy, and not with an https public URL', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const warning = 'Behind a TLS proxy that sends neither, set --public-url https://';
    const plain = await start(dataDir);
    await plain.printed(warning);
    expect(await stop(plain)).toBe(0);
    const behindTls = await start(dataDir, { flags: ['--public-url', 'https://chat.example.com'] });
    expect((await fetch(`${behindTls.url}/healthz`)).status).toBe(200);
    // The caveat is written with the console's line, in one write.
    await behindTls.printed(
      `console: https://chat.example.com/console/ (on this machine: ${behindTls.url}/console/) (no admin yet: stop this service`,
    );
    expect(behindTls.output()).not.toContain(warning);
    expect(await stop(behindTls)).toBe(0);
  }, 120_000);

  it("prints the console at the public URL, with this machine's address too; refuses a public URL that is no address (decision 574)", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const behind = await start(dataDir, { flags: ['--public-url', 'https://chat.example.com/support/'] });
    await behind.printed(
      `console: https://chat.example.com/support/console/ (on this machine: ${behind.url}/console/)`,
    );
    expect(await stop(behind)).toBe(0);
    const bare = await finished(['--public-url', 'chat.example.com', '--port', '0', '--data', dataDir], '');
    expect(bare.status).toBe(1);
    expect(bare.output).toContain('--public-url must be the address visitors open');
    expect(bare.output).not.toContain('listening on');
  }, 120_000);

  it('offers `admin add` at start-up only while the console has no admin', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await start(dataDir);
    // The embedded store takes one process: the line says to stop this one first, with its --data.
    await first.printed(
      `/console/ (no admin yet: stop this service, then run agent-chat-service admin add NAME --data ${dataDir}, the password on stdin, and start it again)\n`,
    );
    expect(await stop(first)).toBe(0);
    // Its end, however long a loaded machine takes to hash the password (a 30 s ceiling did not hold).
    const added = await finished(['admin', 'add', 'grace', '--data', dataDir], 'correct horse battery\n');
    expect(added.status, added.output).toBe(0);
    const later = await start(dataDir);
    await later.printed(/console: \S+\/console\/\n/);
    expect(later.output()).not.toContain('admin add');
    expect(await stop(later)).toBe(0);
  }, 120_000);

  it('says how to make a viewer an admin at start-up when only viewers can sign in (decision 749)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const viewer = await finished(
      ['admin', 'add', 'vera', '--role', 'viewer', '--data', dataDir],
      'correct horse battery\n',
    );
    expect(viewer.status, viewer.output).toBe(0);
    const first = await start(dataDir);
    // A viewer changes nothing: without this line nobody could, and nothing would say so.
    await first.printed(
      `/console/ (no admin, only viewers: stop this service, then run agent-chat-service admin role NAME admin --data ${dataDir}, and start it again)\n`,
    );
    expect(first.output()).not.toContain('admin add');
    expect(await stop(first)).toBe(0);
    const promoted = await finished(['admin', 'role', 'vera', 'admin', '--data', dataDir], '');
    expect(promoted.status, promoted.output).toBe(0);
    const later = await start(dataDir);
    await later.printed(/console: \S+\/console\/\n/);
    expect(later.output()).not.toContain('admin role');
    expect(await stop(later)).toBe(0);
  }, 120_000);

  it('keeps webhooks off this machine unless --allow-private-webhooks or AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS=1 says so (decision 627)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const added = await finished(['admin', 'add', 'grace', '--data', dataDir], 'correct horse battery\n');
    expect(added.status, added.output).toBe(0);
    /** Signs in to the program's console and adds a webhook to this machine: the answer. */
    const addLocal = async (url: string) => {
      const created = await fetch(`${url}/console/api/projects/proj_prog/webhooks`, {
        method: 'POST',
        headers: await signIn(url),
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['handoff'] }),
      });
      return { status: created.status, detail: ((await created.json()) as { detail?: string }).detail };
    };
    const starts: [{ flags?: string[]; env?: Record<string, string> }, boolean][] = [
      [{}, false],
      [{ flags: ['--allow-private-webhooks'] }, true],
      [{ env: { AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS: '1' } }, true],
    ];
    for (const [extra, allowed] of starts) {
      const program = await start(dataDir, extra);
      cleanup.push(async () => program.child.exitCode === null && program.child.kill('SIGKILL'));
      const answer = await addLocal(program.url);
      expect(answer.status, JSON.stringify(extra)).toBe(allowed ? 201 : 400);
      if (!allowed) expect(answer.detail).toContain('--allow-private-webhooks');
      expect(await stop(program)).toBe(0);
    }
  }, 120_000);

  it('adds and crawls a console source on this machine only with --allow-private-docs or AGENT_CHAT_ALLOW_PRIVATE_DOCS=1 (decisions 650, 658)', async () => {
    const site = await serveFolder(join(import.meta.dirname, '../fixtures/docs-site'));
    cleanup.push(() => site.close());
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const added = await finished(['admin', 'add', 'grace', '--data', dataDir], 'correct horse battery\n');
    expect(added.status, added.output).toBe(0);
    /**
     * Signs in to the program's console, adds the local site as a source, and waits for its
     * crawl: its run, or the refusal's words when the add is refused (decision 658).
     */
    const crawlLocal = async (url: string) => {
      const signedIn = await signIn(url);
      const sources = `${url}/console/api/projects/proj_prog/docs/sources`;
      const location = `${site.url}/docs/`;
      const created = await fetch(sources, {
        method: 'POST',
        headers: signedIn,
        body: JSON.stringify({ location }),
      });
      if (created.status === 400) return ((await created.json()) as { detail: string }).detail;
      expect([200, 201]).toContain(created.status);
      let run: { failures: { reason: string }[]; complete: boolean } | null = null;
      await expect
        .poll(
          async () => {
            const list = (await (await fetch(sources, { headers: signedIn })).json()) as {
              sources: { location: string; pages: number; last_run: typeof run }[];
            };
            const source = list.sources.find((s) => s.location === location);
            run = source?.last_run ?? null;
            return run === null ? null : source!.pages;
          },
          { timeout: 20_000, interval: 200 },
        )
        .not.toBeNull();
      return run!;
    };
    const starts: [{ flags?: string[]; env?: Record<string, string> }, boolean][] = [
      [{}, false],
      [{ flags: ['--allow-private-docs'] }, true],
      [{ env: { AGENT_CHAT_ALLOW_PRIVATE_DOCS: '1' } }, true],
    ];
    for (const [extra, allowed] of starts) {
      const program = await start(dataDir, extra);
      cleanup.push(async () => program.child.exitCode === null && program.child.kill('SIGKILL'));
      const run = await crawlLocal(program.url);
      if (allowed) expect(typeof run === 'object' && run.complete, JSON.stringify(extra)).toBe(true);
      else
        expect(run).toBe(
          '127.0.0.1 is not a public address (loopback): docs are crawled on the service’s own network only when its operator gives the site with --docs, or starts the service with --allow-private-docs (AGENT_CHAT_ALLOW_PRIVATE_DOCS=1).',
        );
      expect(await stop(program)).toBe(0);
      await rm(dataDir, { recursive: true, force: true });
      expect(
        (await finished(['admin', 'add', 'grace', '--data', dataDir], 'correct horse battery\n')).status,
      ).toBe(0);
    }
  }, 120_000);

  it("with --host 0.0.0.0, prints the loopback URL and the machine's own, each one a person can open", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const program = await start(dataDir, { flags: ['--host', '0.0.0.0'] });
    cleanup.push(async () => program.child.exitCode === null && program.child.kill('SIGKILL'));
    await program.printed('console: ');
    const port = new URL(program.url).port;
    expect(program.output()).not.toContain('0.0.0.0:');
    expect(program.output()).toContain(`console: ${program.url}/console/`);
    const machine = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === 'IPv4')
      .map((a) => `http://${a!.address}:${port}`);
    const line = /agent-chat-service listens on every interface \(0\.0\.0\.0\)(?:: also (.+))?\n/.exec(
      program.output(),
    );
    expect(line, program.output()).not.toBeNull();
    expect(line![1]?.split(', ') ?? []).toEqual(machine);
    for (const url of [program.url, ...machine]) expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await stop(program)).toBe(0);
  }, 120_000);

  it('refuses a second process on the same data directory at once, with a clear message, writing nothing', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await start(dataDir);
    cleanup.push(async () => first.child.exitCode === null && first.child.kill('SIGKILL'));
    const files = async () =>
      Promise.all(
        (await readdir(dataDir, { recursive: true }))
          .sort()
          .map(async (f) => `${f} ${(await stat(join(dataDir, f))).mtimeMs}`),
      );
    // Frozen, the first writes nothing of its own meanwhile (timers, the rollup), and still holds the lock.
    first.child.kill('SIGSTOP');
    const before = await files();
    const second = await finished([...FLAGS, '--data', dataDir], '');
    expect(second.status).toBe(1);
    expect(second.output).toContain(`the data directory ${dataDir} is in use by process ${first.child.pid}`);
    expect(second.output).toContain('DATABASE_URL');
    // A search with no --docs cannot read the sources the console added: it says so, not "No section matches".
    const search = await finished(['search', 'How do I rotate a key?', '--data', dataDir], '');
    expect(search.status).toBe(1);
    expect(search.output).toContain(
      `agent-chat-service: the running service holds the data directory ${dataDir}, so its sources cannot be read from here: give them with --docs`,
    );
    expect(await files()).toEqual(before);
    first.child.kill('SIGCONT');
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    expect(await stop(first)).toBe(0);
    // Stopped, it holds the directory no more (the lock file stays; the lock is the OS's).
    await (
      await lockDataDir(dataDir)
    )();
  }, 120_000);
});

describe('agent-chat-service (the program) with a model', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      child.once('exit', (code) => resolve({ code, output }));
    });

  it('lists every command, model and proxy setting in --help', async () => {
    const { code, output } = await run(['--help']);
    expect(code).toBe(0);
    expect(output).toContain('agent-chat-service move-to-postgres');
    for (const flag of [
      '--trust-proxy',
      '--model-tries',
      '--model-first-token-timeout',
      '--model-stall-timeout',
      '--model-history-tokens',
      '--model-usage',
      '--allow-private-webhooks',
    ])
      expect(output).toContain(flag);
    for (const env of [
      'AGENT_CHAT_TRUST_PROXY',
      'AGENT_CHAT_MODEL_TRIES',
      'AGENT_CHAT_MODEL_FIRST_TOKEN_TIMEOUT',
      'AGENT_CHAT_MODEL_HISTORY_TOKENS',
      'AGENT_CHAT_MODEL_USAGE',
      'AGENT_CHAT_ALLOW_PRIVATE_WEBHOOKS=1',
      'OPENAI_DOCS_SEARCH=0',
    ])
      expect(output).toContain(env);
  });

  it('runs move-to-postgres, which asks for DATABASE_URL before it opens anything', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const unnamed = await run(['move-to-postgres', '--data', dataDir], { DATABASE_URL: '' });
    expect(unnamed.code).toBe(2);
    expect(unnamed.output).toContain('DATABASE_URL must name the PostgreSQL database to copy into');
    expect(await readdir(dataDir)).toEqual([]);
  });

  it.each<[string[], string, Record<string, string>?]>([
    [['--trust-proxy', 'yes'], '--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not yes.'],
    [['--model-tries', '0'], '--model-tries must be a whole number from 1 to 10, not 0.'],
    [
      ['--model-first-token-timeout', 'soon'],
      '--model-first-token-timeout must be a number of seconds above 0, not soon.',
    ],
    [['--model-usage', 'maybe'], '--model-usage must be on or off, not maybe.'],
    [[], 'OPENAI_DOCS_SEARCH must be 1 or 0, not off.', { OPENAI_DOCS_SEARCH: 'off' }],
    [
      [],
      'OPENAI_BASE_URL must be an http(s) URL, like https://api.openai.com/v1, not localhost:11434/v1.',
      { OPENAI_BASE_URL: 'localhost:11434/v1' },
    ],
  ])('refuses %j and says what it takes', async (flags, message, env = {}) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const { code, output } = await run([...FLAGS, '--data', dataDir, ...flags], {
      DATABASE_URL: '',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      AGENT_CHAT_DOCS: join(import.meta.dirname, '../fixtures/docs'),
      ...env,
    });
    expect(code).not.toBe(0);
    expect(output).toContain(message);
  });

  it('answers through an OpenAI-compatible server, and logs what to fix when the model fails', async () => {
    const mock = await startMockLlm();
    cleanup.push(() => mock.close());
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-program-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const program = await start(dataDir, {
      flags: ['--model-tries', '2', '--model-history-tokens', '2000'],
      env: {
        OPENAI_BASE_URL: mock.baseUrl,
        OPENAI_MODEL: 'mock-model',
        OPENAI_API_KEY: 'sk-mock-secret',
        AGENT_CHAT_DOCS: join(import.meta.dirname, '../fixtures/docs'),
      },
    });
    cleanup.push(async () => program.child.exitCode === null && program.child.kill('SIGKILL'));
    // The start-up lines name the model and its server, never the key.
    expect(program.output()).toContain(
      `agent-chat-service answers with the model mock-model at ${mock.baseUrl}\n`,
    );
    const agent = `${program.url}/agent/v1/projects/proj_prog/agent`;
    const token = (
      await (
        await fetch(`${agent}/sessions/`, { method: 'POST', headers: { 'X-API-Key': 'key-prog-test' } })
      ).json()
    ).session_token as string;
    const ask = async () => {
      const raw = await (
        await fetch(`${agent}/chat/`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}` },
          body: JSON.stringify({
            integration_id: 'int_prog',
            message: 'How do I change the theme colors?',
            locale: 'de',
          }),
        })
      ).text();
      const records = raw
        .split('\u241E')
        .filter(Boolean)
        .map((part) => JSON.parse(part).chunk as { type: string; content: Record<string, string> });
      return {
        records,
        text: records
          .filter((r) => r.type === 'partial_answer')
          .map((r) => r.content.text)
          .join(''),
      };
    };

    await mock.rules([
      { response: { status: 200, content: completion('Model {{jmes request body.model}} says hello') } },
    ]);
    const answered = await ask();
    expect(answered.text).toBe('Model mock-model says hello');
    expect(answered.records.at(-1)!.type).toBe('identifiers');
    expect(answered.records.find((r) => r.type === 'agent_activity_update')!.content.summary).toMatch(
      /^Durchsuche die Dokumentation/,
    );

    await mock.rules([
      {
        response: {
          status: 401,
          content: JSON.stringify({
            error: {
              message: 'Incorrect API key provided',
              type: 'invalid_request_error',
              code: 'invalid_api_key',
            },
          }),
        },
      },
    ]);
    const failed = await ask();
    expect(failed.records.at(-1)!.type).toBe('error');
    await program.printed('"msg":"agent_failed"');
    expect(program.output()).toContain('"code":"model_stream_error"');
    expect(program.output()).not.toContain('sk-mock-secret');
    expect(program.output()).not.toContain('Incorrect API key');
    expect(await stop(program)).toBe(0);
  }, 120_000);
});

describe('agent-chat-service (the program) with a docs website', () => {
  /** The program run to its end: its exit code, stdout and stderr. */
  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], {
        env: { ...process.env, DATABASE_URL: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk) => (stdout += chunk));
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });

  /** The fixture docs site served, with an empty data folder: both gone after the file. */
  const docsSite = async () => {
    const site = await serveFolder(join(import.meta.dirname, '../fixtures/docs-site'));
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-docs-'));
    cleanup.push(
      () => site.close(),
      () => rm(dataDir, { recursive: true, force: true }),
    );
    return { site, dataDir, docs: ['--docs', `${site.url}/docs/`, '--data', dataDir] };
  };

  it('crawls a URL given with --docs, prints what a question retrieves, and runs answer tests from the stored index', async () => {
    const { site, dataDir, docs } = await docsSite();

    const search = await run(['search', 'what is max_locks_per_transaction', ...docs]);
    expect(search.code).toBe(0);
    expect(search.stdout.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(
        /^ 1\. score 0\.0\d{3}  match +\d+\.\d\d  Configuration › Locks › max_locks_per_transaction \(integer\)$/,
      ),
      `    ${site.url}/docs/reference/config.html#max_locks_per_transaction`,
    ]);
    expect(search.stderr).toContain('"msg":"docs_crawled"');

    const file = join(dataDir, 'answers.yaml');
    await writeFile(
      file,
      '- question: How do I stop a query that runs too long?\n  urls: [guide/linked-only.html]\n- question: How do I roll back?\n  urls: [notes.md]\n',
    );
    const pages = site.requests.length;
    const test = await run(['test', file, ...docs]);
    expect(test.code).toBe(1);
    expect(test.stdout).toMatch(/^1 +pass +1 +How do I stop a query that runs too long\?/m);
    expect(test.stdout).toMatch(/^2 +MISS +- +How do I roll back\?/m);
    // The table's summary, then a synonym group for the page missed for want of words.
    expect(test.stdout.trimEnd().split('\n').slice(-4)).toEqual([
      '1 passed, 1 failed',
      '',
      "Synonyms that may bring a missed page: the question's words the page never uses, and the page's name (the console's Synonyms box, or --docs-synonyms):",
      '  roll back, release notes  (question 2)',
    ]);
    // The second run read the index the first one stored: nothing was fetched again.
    expect(site.requests.length).toBe(pages);
    // A file to fix exits 2, not 1 as a miss does, before anything is crawled, with its line.
    await writeFile(file, '- question: How do I roll back?\n  urls: [notes.md\n');
    const broken = await run(['test', file, ...docs]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(
      new RegExp(`^agent-chat-service: ${file.replace(/[.\\]/g, '\\$&')}:\\d+: `, 'm'),
    );
    expect(broken.stdout).toBe('');
    // The stored sources answer without --docs: the file's relative URLs are read against the
    // project's site, as they are for sources added on the console's Sources page.
    await writeFile(
      file,
      '- question: How do I stop a query that runs too long?\n  urls: [guide/linked-only.html]\n',
    );
    const stored = await run(['test', file, '--data', dataDir]);
    expect(stored.stderr).not.toContain('is not a URL');
    expect(stored.stdout).toMatch(/^1 +pass +1 +How do I stop a query that runs too long\?/m);
    expect(stored.code).toBe(0);
    // The docs are the flag project's (proj_local): another project's search says whose they are.
    const other = await run([
      'search',
      'what is max_locks_per_transaction',
      '--data',
      dataDir,
      '--project',
      'proj_other',
    ]);
    expect(other.code).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr).toContain(
      "agent-chat-service: project proj_other has no docs sources; proj_local has. Give the service's --project (--project proj_local), or --docs.",
    );
  }, 60_000);

  it('keeps the --docs-exclude paths out, and AGENT_CHAT_DOCS_EXCLUDE replaces them at the next start', async () => {
    const { site, docs } = await docsSite();
    const question = 'what is max_locks_per_transaction';
    const config = `${site.url}/docs/reference/config.html#max_locks_per_transaction`;

    const excluded = await run([
      'search',
      question,
      ...docs,
      '--docs-exclude',
      '/docs/reference/,*.md',
      '--docs-exclude',
      '/docs/private/',
    ]);
    expect(excluded.stdout).not.toContain(config);
    const crawled = JSON.parse(excluded.stderr.split('\n').find((line) => line.includes('"docs_crawled"'))!);
    expect(crawled).toMatchObject({ pages_excluded: 3 });
    const paths = site.requests.map((r) => r.path);
    for (const never of ['/docs/reference/config.html', '/docs/notes.md', '/docs/private/open.html'])
      expect(paths).not.toContain(never);

    // Without the flag the stored patterns stay; an empty AGENT_CHAT_DOCS_EXCLUDE clears them.
    expect((await run(['search', question, ...docs])).stdout).not.toContain(config);
    const cleared = await run(['search', question, ...docs], { AGENT_CHAT_DOCS_EXCLUDE: '' });
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toContain(config);
  }, 60_000);

  it('ranks with the --docs-synonyms file, keeps them without it, and an empty AGENT_CHAT_DOCS_SYNONYMS clears them', async () => {
    const { site, docs } = await docsSite();
    const question = 'everything is stuck forever';
    const setting = `${site.url}/docs/reference/config.html#lock_timeout`;
    const file = join(tmpdir(), `synonyms-ok-${process.pid}.txt`);
    cleanup.push(() => rm(file, { force: true }));
    await writeFile(file, '# Words our visitors use\nstuck, waits for a lock\n\nupgrade, migration\n');

    const found = await run(['search', question, ...docs, '--docs-synonyms', file]);
    expect(found.code).toBe(0);
    expect(found.stdout.split('\n')[1].trim()).toBe(setting);
    expect(found.stdout.trimEnd().split('\n').at(-1)).toBe('Also searched for: waits for a lock');
    expect((await run(['search', question, ...docs])).stdout.split('\n')[1].trim()).toBe(setting);
    const cleared = await run(['search', question, ...docs], { AGENT_CHAT_DOCS_SYNONYMS: '' });
    expect(cleared.code).toBe(1);
    expect(cleared.stdout).toContain('No section matches');
  }, 60_000);

  it('refuses a bad --docs-synonyms file, naming what is wrong, before it opens the database', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-docs-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const file = join(tmpdir(), `synonyms-${process.pid}.txt`);
    cleanup.push(() => rm(file, { force: true }));
    await writeFile(file, 'stuck, waits for a lock\nserial\n');
    const docs = ['--data', dataDir, '--docs', 'https://docs.example.com/guide/'];
    const bad = await run([...FLAGS, ...docs, '--docs-synonyms', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe(
      'agent-chat-service: --docs-synonyms: The synonym group "serial" needs at least two words or phrases.',
    );
    const missing = await run([...FLAGS, ...docs, '--docs-synonyms', join(dataDir, 'none.txt')]);
    expect(missing.stderr.trim()).toBe(
      `agent-chat-service: --docs-synonyms: ${join(dataDir, 'none.txt')} cannot be read (ENOENT).`,
    );
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('refuses a bad --docs-exclude pattern, naming it, before it opens the database', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-docs-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const docs = ['--data', dataDir, '--docs', 'https://docs.example.com/guide/'];
    const bad = await run([...FLAGS, ...docs, '--docs-exclude', 'blog/']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe(
      'agent-chat-service: --docs-exclude: The exclude pattern "blog/" must start with / or * (a path on the site, like /blog/).',
    );
    const itself = await run([...FLAGS, ...docs], { AGENT_CHAT_DOCS_EXCLUDE: '/guide/' });
    expect(itself.stderr.trim()).toBe(
      'agent-chat-service: --docs-exclude: https://docs.example.com/guide/ is itself excluded by /guide/: nothing would be crawled.',
    );
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('says in a CI log why the docs are missing when the --docs site cannot be reached', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-docs-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const file = join(dataDir, 'answers.yaml');
    await writeFile(file, '- question: How do I rotate a key?\n  urls: [guide/keys.html]\n');
    // Port 9 (discard) refuses the connection: the crawl stops at robots.txt.
    const site = 'http://127.0.0.1:9/docs/';
    const stop = `the crawl of ${site} stopped at http://127.0.0.1:9/robots.txt: the server could not be reached: nothing is crawled until robots.txt answers`;
    const test = await run(['test', file, '--docs', site, '--data', dataDir]);
    expect(test.code).toBe(1);
    // Not "never crawled; is it linked from the site?": the site was never read at all.
    expect(test.stdout).toMatch(
      /^1 +MISS +- +How do I rotate a key\? +not in the index \(its crawl stopped\)$/m,
    );
    expect(test.stdout).toContain(`  http://127.0.0.1:9/docs/guide/keys.html: ${stop}  (question 1)`);
    expect(test.stderr).toContain(`agent-chat-service: ${stop}; what it had indexed is kept.`);
    const search = await run(['search', 'How do I rotate a key?', '--docs', site, '--data', dataDir]);
    expect(search.code).toBe(1);
    expect(search.stderr).toContain(`agent-chat-service: ${stop}; what it had indexed is kept.`);
  });

  it('refuses a --docs location it cannot crawl before it opens the database', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-docs-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const { code, stderr } = await run([...FLAGS, '--data', dataDir, '--docs', 'ftp://docs.example.com/']);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'agent-chat-service: --docs: ftp://docs.example.com/: only http and https sites can be crawled.',
    );
    expect(await readdir(dataDir)).toEqual([]);
  });
});
