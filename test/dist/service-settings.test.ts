import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The built program's flags and environment variables, each one read and checked before the
 * database opens: a wrong value is refused with the same words and exit code whichever file reads
 * it. A setting given both ways shows which wins by letting a later check speak: the flag's good
 * value passes, the environment's bad one is never read, and the next setting's refusal is printed.
 */
const CLI = join(import.meta.dirname, '../../service/dist/cli.js');

/**
 * The machine's own settings left out, so that each case says all it sets; any free port, should a
 * case start the service where it should have refused (a setting no longer read).
 */
const baseEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(AGENT_CHAT_|OPENAI_|PORT$|HOST$|DATABASE_URL$)/.test(name),
    ),
  ),
  PORT: '0',
};

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup) await fn();
});

async function run(args: string[], env: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-chat-settings-'));
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, [CLI, '--data', dataDir, ...args], {
    env: { ...baseEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    // Serving, it would never end: stopped at once, its output fails the case.
    if (stdout.includes('listening on')) child.kill('SIGKILL');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr, written: await readdir(dataDir) };
}

const MODEL = { OPENAI_MODEL: 'local-model' };

describe('agent-chat-service (the program): its settings, checked before the database opens', () => {
  it.each<[string, string[], Record<string, string>, number, string]>([
    ['--port', ['--port', '70000'], {}, 2, '--port must be 0 to 65535, not 70000.'],
    ['PORT', [], { PORT: 'http' }, 2, '--port must be 0 to 65535, not http.'],
    [
      '--trust-proxy',
      ['--trust-proxy', '17'],
      {},
      1,
      '--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not 17.',
    ],
    [
      'AGENT_CHAT_TRUST_PROXY',
      [],
      { AGENT_CHAT_TRUST_PROXY: 'cf' },
      1,
      '--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not cf.',
    ],
    [
      '--drain-seconds',
      ['--drain-seconds', '3601'],
      {},
      1,
      '--drain-seconds must be a number of seconds from 0 to 3600, not 3601.',
    ],
    [
      'AGENT_CHAT_DRAIN_SECONDS',
      [],
      { AGENT_CHAT_DRAIN_SECONDS: '-1' },
      1,
      '--drain-seconds must be a number of seconds from 0 to 3600, not -1.',
    ],
    [
      '--public-url',
      ['--public-url', 'chat.example.com'],
      {},
      1,
      '--public-url must be the address visitors open, as https://chat.example.com or https://example.com/chat/, not chat.example.com.',
    ],
    [
      'AGENT_CHAT_PUBLIC_URL',
      [],
      { AGENT_CHAT_PUBLIC_URL: 'ftp://chat.example.com' },
      1,
      '--public-url must be the address visitors open, as https://chat.example.com or https://example.com/chat/, not ftp://chat.example.com.',
    ],
    [
      '--allowed-origin',
      ['--allowed-origin', 'https://a.example/chat'],
      {},
      1,
      '--allowed-origin https://a.example/chat is not an origin (scheme://host[:port], no path).',
    ],
    [
      'AGENT_CHAT_ALLOWED_ORIGINS',
      [],
      { AGENT_CHAT_ALLOWED_ORIGINS: 'https://a.example,b.example' },
      1,
      '--allowed-origin b.example is not an origin (scheme://host[:port], no path).',
    ],
    [
      '--public',
      ['--public'],
      {},
      1,
      '--public needs --allowed-origin: only pages on those origins may start chats without a site server.',
    ],
    [
      'AGENT_CHAT_PUBLIC=1',
      [],
      { AGENT_CHAT_PUBLIC: '1' },
      1,
      '--public needs --allowed-origin: only pages on those origins may start chats without a site server.',
    ],
    [
      'AGENT_CHAT_PUBLIC=true',
      [],
      { AGENT_CHAT_PUBLIC: 'true' },
      1,
      '--public needs --allowed-origin: only pages on those origins may start chats without a site server.',
    ],
    [
      'AGENT_CHAT_RATE_LIMIT',
      [],
      { AGENT_CHAT_RATE_LIMIT: '-1' },
      1,
      'a rate limit must be a whole number, not -1',
    ],
    [
      'AGENT_CHAT_SESSION_MINT_LIMIT',
      [],
      { AGENT_CHAT_SESSION_MINT_LIMIT: '1.5' },
      1,
      'a rate limit must be a whole number, not 1.5',
    ],
    [
      'AGENT_CHAT_PUBLIC_SESSION_LIMIT',
      [],
      { AGENT_CHAT_PUBLIC_SESSION_LIMIT: 'many' },
      1,
      'a rate limit must be a whole number, not many',
    ],
    [
      'AGENT_CHAT_CHALLENGE_WORK',
      [],
      { AGENT_CHAT_CHALLENGE_WORK: '999' },
      1,
      'AGENT_CHAT_CHALLENGE_WORK must be a whole number from 1000 to 100000000, not 999.',
    ],
    [
      'AGENT_CHAT_MAX_CONCURRENT_ANSWERS',
      [],
      { AGENT_CHAT_MAX_CONCURRENT_ANSWERS: '-2' },
      1,
      'AGENT_CHAT_MAX_CONCURRENT_ANSWERS must be a whole number, not -2',
    ],
    [
      'AGENT_CHAT_CONVERSATION_RETENTION_DAYS',
      [],
      { AGENT_CHAT_CONVERSATION_RETENTION_DAYS: 'year' },
      1,
      'AGENT_CHAT_CONVERSATION_RETENTION_DAYS must be a whole number, not year',
    ],
    [
      'AGENT_CHAT_DOCS',
      [],
      { AGENT_CHAT_DOCS: ' https://docs.example.com/ , ftp://docs.example.com/' },
      1,
      '--docs: ftp://docs.example.com/: only http and https sites can be crawled.',
    ],
    [
      'AGENT_CHAT_DOCS_SYNONYMS',
      [],
      { AGENT_CHAT_DOCS_SYNONYMS: '/nonexistent/synonyms.txt' },
      1,
      '--docs-synonyms: /nonexistent/synonyms.txt cannot be read (ENOENT).',
    ],
    [
      '--model-tries',
      ['--model-tries', '11'],
      MODEL,
      1,
      '--model-tries must be a whole number from 1 to 10, not 11.',
    ],
    [
      'AGENT_CHAT_MODEL_TRIES',
      [],
      { ...MODEL, AGENT_CHAT_MODEL_TRIES: '1.5' },
      1,
      '--model-tries must be a whole number from 1 to 10, not 1.5.',
    ],
    [
      'AGENT_CHAT_MODEL_FIRST_TOKEN_TIMEOUT',
      [],
      { ...MODEL, AGENT_CHAT_MODEL_FIRST_TOKEN_TIMEOUT: '0' },
      1,
      '--model-first-token-timeout must be a number of seconds above 0, not 0.',
    ],
    [
      '--model-stall-timeout',
      ['--model-stall-timeout=-3'],
      MODEL,
      1,
      '--model-stall-timeout must be a number of seconds above 0, not -3.',
    ],
    [
      'AGENT_CHAT_MODEL_STALL_TIMEOUT',
      [],
      { ...MODEL, AGENT_CHAT_MODEL_STALL_TIMEOUT: 'later' },
      1,
      '--model-stall-timeout must be a number of seconds above 0, not later.',
    ],
    [
      '--model-history-tokens',
      ['--model-history-tokens', '10000001'],
      MODEL,
      1,
      '--model-history-tokens must be a whole number from 0 to 10000000, not 10000001.',
    ],
    [
      'AGENT_CHAT_MODEL_HISTORY_TOKENS',
      [],
      { ...MODEL, AGENT_CHAT_MODEL_HISTORY_TOKENS: '-1' },
      1,
      '--model-history-tokens must be a whole number from 0 to 10000000, not -1.',
    ],
    [
      'AGENT_CHAT_MODEL_USAGE',
      [],
      { ...MODEL, AGENT_CHAT_MODEL_USAGE: 'yes' },
      1,
      '--model-usage must be on or off, not yes.',
    ],
    [
      '--docs-tokens',
      ['--docs-tokens', '1000001'],
      MODEL,
      1,
      '--docs-tokens must be a whole number from 0 to 1000000, not 1000001.',
    ],
    [
      'AGENT_CHAT_DOCS_TOKENS',
      [],
      { ...MODEL, AGENT_CHAT_DOCS_TOKENS: 'all' },
      1,
      '--docs-tokens must be a whole number from 0 to 1000000, not all.',
    ],
    [
      '--model-request-bytes',
      ['--model-request-bytes', '4095'],
      MODEL,
      1,
      '--model-request-bytes must be a whole number from 4096 to 104857600, not 4095.',
    ],
    [
      'AGENT_CHAT_MODEL_REQUEST_BYTES',
      [],
      { ...MODEL, AGENT_CHAT_MODEL_REQUEST_BYTES: '104857601' },
      1,
      '--model-request-bytes must be a whole number from 4096 to 104857600, not 104857601.',
    ],
    [
      '--model-max-tokens',
      ['--model-max-tokens', 'x'],
      MODEL,
      1,
      '--model-max-tokens must be a whole number from 0 to 10000000, not x.',
    ],
    [
      'AGENT_CHAT_MODEL_MAX_TOKENS',
      [],
      { ...MODEL, AGENT_CHAT_MODEL_MAX_TOKENS: '-1' },
      1,
      '--model-max-tokens must be a whole number from 0 to 10000000, not -1.',
    ],
    [
      'OPENAI_DOCS_SEARCH',
      [],
      { ...MODEL, OPENAI_DOCS_SEARCH: 'true' },
      1,
      'OPENAI_DOCS_SEARCH must be 1 or 0, not true.',
    ],
    // OPENAI_MODEL alone is the model at OpenAI's own address: checked as one.
    [
      'OPENAI_MODEL alone',
      ['--model-usage', 'maybe'],
      MODEL,
      1,
      '--model-usage must be on or off, not maybe.',
    ],
    [
      'OPENAI_BASE_URL alone',
      ['--model-tries', '0'],
      { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      1,
      '--model-tries must be a whole number from 1 to 10, not 0.',
    ],
  ])(
    'refuses a bad %s, with its exit code and words, writing nothing',
    async (_, args, env, code, message) => {
      const result = await run(args, env);
      expect(result.code).toBe(code);
      expect(result.stderr.trim()).toBe(`agent-chat-service: ${message}`);
      expect(result.stdout).toBe('');
      expect(result.written).toEqual([]);
    },
  );

  it.each<[string, string[], Record<string, string>, string]>([
    [
      '--port over PORT',
      ['--port', '8000', '--trust-proxy', 'x'],
      { PORT: 'http' },
      '--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not x.',
    ],
    [
      '--trust-proxy over AGENT_CHAT_TRUST_PROXY',
      ['--trust-proxy', 'cloudflare', '--drain-seconds', 'x'],
      { AGENT_CHAT_TRUST_PROXY: 'x' },
      '--drain-seconds must be a number of seconds from 0 to 3600, not x.',
    ],
    [
      '--public-url over AGENT_CHAT_PUBLIC_URL',
      ['--public-url', 'https://chat.example.com'],
      { AGENT_CHAT_PUBLIC_URL: 'x', AGENT_CHAT_RATE_LIMIT: 'x' },
      'a rate limit must be a whole number, not x',
    ],
    [
      '--allowed-origin over AGENT_CHAT_ALLOWED_ORIGINS',
      ['--allowed-origin', 'https://a.example', '--public-url', 'x'],
      { AGENT_CHAT_ALLOWED_ORIGINS: 'x' },
      '--public-url must be the address visitors open, as https://chat.example.com or https://example.com/chat/, not x.',
    ],
    [
      '--public with --allowed-origin',
      ['--public', '--allowed-origin', 'https://a.example', '--public-url', 'x'],
      {},
      '--public-url must be the address visitors open, as https://chat.example.com or https://example.com/chat/, not x.',
    ],
    [
      'AGENT_CHAT_PUBLIC=yes (not a yes)',
      ['--public-url', 'x'],
      { AGENT_CHAT_PUBLIC: 'yes' },
      '--public-url must be the address visitors open, as https://chat.example.com or https://example.com/chat/, not x.',
    ],
    [
      '--model-tries over AGENT_CHAT_MODEL_TRIES',
      ['--model-tries', '2', '--model-usage', 'x'],
      { ...MODEL, AGENT_CHAT_MODEL_TRIES: '11' },
      '--model-usage must be on or off, not x.',
    ],
    [
      '--model-usage over AGENT_CHAT_MODEL_USAGE',
      ['--model-usage', 'off', '--trust-proxy', 'x'],
      { ...MODEL, AGENT_CHAT_MODEL_USAGE: 'x' },
      '--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not x.',
    ],
    [
      'no model settings without a model',
      ['--model-tries', '0', '--model-usage', 'x', '--trust-proxy', 'x'],
      {},
      '--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not x.',
    ],
    [
      '--docs over AGENT_CHAT_DOCS',
      ['--docs', 'https://docs.example.com/', '--trust-proxy', 'x'],
      { AGENT_CHAT_DOCS: 'ftp://docs.example.com/' },
      '--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not x.',
    ],
    [
      'OPENAI_DOCS_SEARCH=0 and AGENT_CHAT_RATE_LIMIT=0',
      ['--trust-proxy', 'x'],
      { ...MODEL, OPENAI_DOCS_SEARCH: '0', AGENT_CHAT_RATE_LIMIT: '0' },
      '--trust-proxy must be a hop count from 0 to 16 or "cloudflare", not x.',
    ],
  ])('takes %s, and the next setting speaks', async (_, args, env, message) => {
    const result = await run(args, env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(`agent-chat-service: ${message}`);
    expect(result.written).toEqual([]);
  });

  it('reads --docs-synonyms over AGENT_CHAT_DOCS_SYNONYMS', async () => {
    const file = join(tmpdir(), `settings-synonyms-${process.pid}.txt`);
    cleanup.push(() => rm(file, { force: true }));
    await writeFile(file, 'stuck, waits for a lock\n');
    const result = await run(['--docs-synonyms', file, '--trust-proxy', 'x'], {
      AGENT_CHAT_DOCS_SYNONYMS: '/nonexistent/synonyms.txt',
    });
    expect(result.stderr.trim()).toBe(
      'agent-chat-service: --trust-proxy must be a hop count from 0 to 16 or "cloudflare", not x.',
    );
  });

  it('answers an unknown command, and search or test without their argument, with usage and exit code 2', async () => {
    const unknown = await run(['serve', 'now']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^agent-chat-service: unknown command serve now\.\n\nagent-chat-service: the agent-chat service/,
    );
    expect(unknown.stderr).toContain('  --model-max-tokens N ');
    const search = await run(['search']);
    expect(search.code).toBe(2);
    expect(search.stderr).toBe(
      'usage: agent-chat-service search "QUESTION" [--earlier "QUESTION"] [--docs LOCATION]\n',
    );
    const test = await run(['test', 'a.yaml', 'b.yaml']);
    expect(test.code).toBe(2);
    expect(test.stderr).toBe('usage: agent-chat-service test FILE.yaml [--docs LOCATION]\n');
    const missing = await run(['test', '/nonexistent/answers.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^agent-chat-service: .*\/nonexistent\/answers\.yaml/);
    expect(missing.written).toEqual([]);
  });
});
