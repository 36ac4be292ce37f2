import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerKey } from '../../contract/owner-key.js';
import { ask, launchChromium } from '../dist/chromium.js';
import { ERROR_BODY, startMisbehavingService } from '../cms/misbehaving-service.js';
import {
  ROOT,
  freePort,
  startProgram,
  startService,
  tempDir,
  type Program,
  type RunningService,
} from '../cms/processes.js';

/**
 * examples/php/agent-session.php and examples/python/agent_session.py, each run by its own
 * language's server (`php -S`, Python's wsgiref) in front of the real agent service, and in front
 * of a service that misbehaves on purpose. Both must behave as createSessionHandler does
 * (wire contract §2; test/unit/upstream-safety.test.ts is the same list for Node).
 */

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

let service: RunningService;
let scratch: string;

let misbehaving: Awaited<ReturnType<typeof startMisbehavingService>>;

beforeAll(async () => {
  const dir = await tempDir('agent-chat-examples-');
  cleanup.push(dir.remove);
  scratch = dir.path;
  service = await startService(join(scratch, 'service'));
  cleanup.push(service.stop);
  misbehaving = await startMisbehavingService();
  cleanup.push(misbehaving.close);
}, 120_000);

interface Site {
  /** Where the widget's session-endpoint points. */
  endpoint: string;
  origin: string;
  program: Program;
}
type Settings = { apiKey?: string; baseUrl?: string; timeoutMs?: number; perMinute?: number };
type Language = { name: string; start: (settings: Settings) => Promise<Site> };

const settingsEnv = (settings: Settings) => ({
  AGENT_CHAT_API_KEY: settings.apiKey ?? service.apiKey,
  AGENT_CHAT_PROJECT_ID: service.projectId,
  AGENT_CHAT_INTEGRATION_ID: service.integrationId,
  AGENT_CHAT_BASE_URL: settings.baseUrl ?? service.url,
  AGENT_CHAT_TIMEOUT_MS: String(settings.timeoutMs ?? 10_000),
  AGENT_CHAT_SESSIONS_PER_MINUTE: String(settings.perMinute ?? 1000),
  WIDGET_SCRIPT: join(ROOT, 'dist/agent-chat.iife.js'),
});

let sites = 0;
const php: Language = {
  name: 'PHP',
  async start(settings) {
    const port = await freePort();
    // Its own temporary folder per site: the limit file and PHP's sessions live there.
    const dir = join(scratch, `php-${++sites}`);
    await import('node:fs/promises').then((fs) => fs.mkdir(dir));
    const program = await startProgram(
      'php',
      ['-d', `session.save_path=${dir}`, '-S', `127.0.0.1:${port}`, join(ROOT, 'test/examples/php-site.php')],
      {
        env: { ...settingsEnv(settings), TMPDIR: dir },
        ready: /Development Server \(http:\/\/127\.0\.0\.1:\d+\) started/,
      },
    );
    cleanup.push(program.stop);
    const origin = `http://127.0.0.1:${port}`;
    return { origin, endpoint: `${origin}/agent-session.php`, program };
  },
};
const python: Language = {
  name: 'Python',
  async start(settings) {
    const program = await startProgram('python3', [join(ROOT, 'test/examples/python_site.py')], {
      env: settingsEnv(settings),
      ready: /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    });
    cleanup.push(program.stop);
    const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(program.output())![1];
    return { origin, endpoint: `${origin}/agent-session`, program };
  },
};

async function signIn(site: Site, user: string): Promise<string> {
  const response = await fetch(`${site.origin}/login?user=${encodeURIComponent(user)}`);
  expect(response.status).toBe(200);
  return response.headers.getSetCookie()[0].split(';')[0];
}

const mint = (site: Site, init: RequestInit = {}) => fetch(site.endpoint, { method: 'POST', ...init });
const agent = () => `${service.url}/agent/v1/projects/${service.projectId}/agent`;
const threads = (token: string) =>
  fetch(`${agent()}/threads/`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);

describe.each([php, python])('the $name session endpoint', (language) => {
  let site: Site;
  let broken: Site;
  beforeAll(async () => {
    site = await language.start({});
    broken = await language.start({ baseUrl: misbehaving.url, timeoutMs: 700 });
  }, 60_000);

  it("mints a session for the site's signed-in user, with the owner key of §2 and no-store", async () => {
    const cookie = await signIn(site, 'alice@example.com');
    const response = await mint(site, { headers: { Cookie: cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
    const key = response.headers.get('Agent-Chat-Owner-Key');
    expect(key).toBe(await ownerKey('alice@example.com', service.apiKey));
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { session_token, expires_at } = await response.json();
    expect(expires_at).toMatch(/Z$/);
    // The session's owner is alice herself: a thread she starts is in her own history, as the
    // service's own §1 mint for "alice@example.com" sees it.
    const chat = await fetch(`${agent()}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${session_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ integration_id: service.integrationId, message: 'How do I install it?' }),
    });
    const threadId = /"thread_id":"([^"]+)"/.exec(await chat.text())![1];
    const direct = await fetch(`${agent()}/sessions/`, {
      method: 'POST',
      headers: { 'X-API-Key': service.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ external_owner_id: 'alice@example.com' }),
    }).then((r) => r.json());
    const listed = await fetch(`${agent()}/threads/`, {
      headers: { Authorization: `Bearer ${direct.session_token}` },
    }).then((r) => r.json());
    expect(listed.threads.map((t: { id: string }) => t.id)).toContain(threadId);
  });

  it('mints an anonymous session for a visitor who is not signed in, whatever the browser claims', async () => {
    const response = await mint(site, {
      body: JSON.stringify({ external_owner_id: 'alice@example.com' }),
      headers: { 'Content-Type': 'application/json', 'X-Owner-Id': 'alice@example.com' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Agent-Chat-Owner-Key')).toBe('-');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(await threads((await response.json()).session_token)).toBe(403);
  });

  it('answers 405 to anything but POST', async () => {
    const response = await fetch(site.endpoint);
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('POST');
    expect(await response.json()).toEqual({ detail: 'Use POST.', code: 'method_not_allowed' });
  });

  it("passes the service's JSON error through unchanged, with its Retry-After and without an owner key", async () => {
    misbehaving.set('error-json');
    const response = await mint(broken);
    expect(response.status).toBe(429);
    expect(await response.text()).toBe(ERROR_BODY);
    expect(response.headers.get('Retry-After')).toBe('7');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(response.headers.get('Agent-Chat-Owner-Key')).toBeNull();
  });

  it('does not follow a redirect: the API key never reaches the other host, and the answer is a JSON 502', async () => {
    misbehaving.set('redirect');
    const response = await mint(broken);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      detail: 'The agent service answered with a redirect, which is not followed.',
      code: 'service_unavailable',
    });
    expect(misbehaving.keysElsewhere).toEqual([]);
  });

  it('answers the JSON 502 at its time limit when the service sends headers and then stalls', async () => {
    misbehaving.set('stall');
    const started = Date.now();
    const response = await mint(broken);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.status).toBe(502);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(await response.json()).toEqual({
      detail: 'The agent service did not answer within 700 ms.',
      code: 'service_unavailable',
    });
  });

  it.each([
    ['sent', 'huge'],
    ['declared', 'huge-declared'],
  ] as const)('refuses a body over 64 KiB (%s) instead of buffering it', async (_how, body) => {
    misbehaving.set(body);
    const response = await mint(broken);
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      detail: 'The agent service answered with an oversized body.',
      code: 'service_unavailable',
    });
  });

  it("turns an upstream error page into its own JSON 502: no HTML is served as the site's", async () => {
    misbehaving.set('html');
    const response = await mint(broken);
    expect(response.status).toBe(502);
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(response.headers.get('Retry-After')).toBe('30');
    expect(await response.json()).toEqual({
      detail: 'The agent service answered 503 with text/html instead of JSON.',
      code: 'service_unavailable',
    });
  });

  it('answers a JSON 502 when the service is down', async () => {
    const down = await language.start({ baseUrl: `http://127.0.0.1:${await freePort()}` });
    const response = await mint(down);
    expect(response.status).toBe(502);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(await response.json()).toEqual({
      detail: 'The agent service could not be reached.',
      code: 'service_unavailable',
    });
  });

  it('never sends the API key in clear text: a plain-http service other than localhost is refused', async () => {
    const start = language.start({ baseUrl: 'http://agent.example.com' });
    if (language === python) {
      // Checked once, when the endpoint is made: the site fails at deploy, not per visitor.
      await expect(start).rejects.toThrow(/base_url must use https/);
    } else {
      const response = await mint(await start);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({
        detail: 'The session endpoint is not configured.',
        code: 'misconfigured',
      });
    }
  });

  // The visitor reads "couldn't start"; the browser's console, a status. The site's own log is
  // where its owner looks, and it names what was asked of whom and what came back (decision 677).
  it("tells the site's log when the service refuses the key, naming the service's answer and never the key", async () => {
    const wrongKey = await language.start({ apiKey: 'not-the-project-key-0123' });
    const response = await mint(wrongKey);
    expect(response.status).toBe(401);
    await expect
      .poll(() => wrongKey.program.output())
      .toContain(
        `[agent-chat] POST ${agent()}/sessions/ answered 401: Missing or invalid X-API-Key for this project: check the project id and the API key.`,
      );
    expect(wrongKey.program.output()).not.toContain('not-the-project-key-0123');
  });

  it("tells the site's log which URL it called when the service URL ends in /agent/v1", async () => {
    const withPath = await language.start({ baseUrl: `${service.url}/agent/v1` });
    expect((await mint(withPath)).status).toBe(404);
    await expect
      .poll(() => withPath.program.output())
      .toContain(
        `[agent-chat] POST ${service.url}/agent/v1/agent/v1/projects/${service.projectId}/agent/sessions/ answered 404: Not found. Check the service URL: it is the console's address without /console/ (and without /agent/v1).`,
      );
  });

  it("tells the site's log which service could not be reached", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const down = await language.start({ baseUrl: url });
    expect((await mint(down)).status).toBe(502);
    await expect
      .poll(() => down.program.output())
      .toContain(
        `[agent-chat] POST ${url}/agent/v1/projects/${service.projectId}/agent/sessions/ failed: The agent service could not be reached.`,
      );
  });

  it('limits sessions per client address: 429 with Retry-After past the limit', async () => {
    const limited = await language.start({ perMinute: 3 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await mint(limited)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await mint(limited);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('Retry-After'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await refused.json()).toEqual({
      detail: 'Too many sessions requested; try again later.',
      code: 'rate_limited',
    });
  });
});

describe('a visitor on a page of the PHP or Python site', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
    cleanup.push(() => browser.close());
  });

  it.each([php, python])('gets a first answer through the $name endpoint', async (language) => {
    const site = await language.start({});
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(site.origin);
    const answer = await ask(page, 'How do I install the widget?');
    expect(answer).toMatch(/Three steps get the widget on a page/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
