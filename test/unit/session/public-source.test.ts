import { createChallenge } from 'altcha-lib/v1';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PublicSessionError, SessionError } from '../../../src/api/errors.js';
import { describeError } from '../../../src/chat/describe-error.js';
import { publicTokenSource } from '../../../src/session/public-source.js';
import { solveChallenge } from '../../../src/session/public-session.js';
import { BASE, PROJECT, makeService } from '../../fixtures/service.js';
import { urlOf } from '../../helpers/requests.js';

const SITE = 'https://docs.example.com';
const PUBLIC_PROJECT = { id: 'proj_pub', integrationIds: ['int_pub'], allowedOrigins: [SITE], public: true };

/** The response headers a cross-origin page reads whatever the answer exposes (Fetch's CORS-safelisted ones). */
const SAFELISTED = [
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
];

/**
 * What a page on another origin reads of an answer: the safelisted headers and those the answer
 * names in `Access-Control-Expose-Headers`, nothing else (the browser hides the rest).
 */
function asCrossOrigin(response: Response): Response {
  const exposed = (response.headers.get('Access-Control-Expose-Headers') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  const headers = new Headers();
  for (const [name, value] of response.headers)
    if (SAFELISTED.includes(name) || exposed.includes(name)) headers.set(name, value);
  return new Response(response.body, { status: response.status, headers });
}

/**
 * The widget's fetch on a page of `origin`: the browser adds the Origin header to every call, and
 * the service is on another origin (it reads only the headers the service exposes).
 */
function pageFetch(service: ReturnType<typeof makeService>['service'], origin = SITE) {
  const calls: { url: string; method: string; body?: string }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const request = new Request(input, init);
    request.headers.set('Origin', origin);
    calls.push({ url: request.url, method: request.method, body: init.body as string | undefined });
    return asCrossOrigin(await service.handle(request));
  });
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

function source(fetch: typeof globalThis.fetch, integrationId = 'int_pub', projectId = 'proj_pub') {
  return publicTokenSource({ baseUrl: `${BASE}/`, projectId, integrationId, fetch });
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );

afterEach(() => vi.restoreAllMocks());

describe('the proof of work', () => {
  it('finds the number a challenge hides, at either end of its range, and says when it has none', async () => {
    for (const number of [0, 1, 777, 1000]) {
      const challenge = await createChallenge({ hmacKey: 'k', maxnumber: 1000, number });
      expect(await solveChallenge(challenge)).toBe(number);
    }
    const unsolvable = await createChallenge({ hmacKey: 'k', maxnumber: 1000, number: 5000 });
    expect(await solveChallenge(unsolvable)).toBeNull();
  });

  it('finds it on a page without crypto.subtle (plain http, an insecure context), hashing by itself', async () => {
    // Made before crypto.subtle goes: altcha-lib hashes with it.
    const challenges = await Promise.all(
      [0, 613, 1000, 5000].map((number) => createChallenge({ hmacKey: 'k', maxnumber: 1000, number })),
    );
    vi.stubGlobal('crypto', { getRandomValues: crypto.getRandomValues.bind(crypto) });
    try {
      const solved = [];
      for (const challenge of challenges) solved.push(await solveChallenge(challenge));
      expect(solved).toEqual([0, 613, 1000, null]);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('stops when its signal aborts', async () => {
    const challenge = await createChallenge({ hmacKey: 'k', maxnumber: 100_000, number: 99_999 });
    const controller = new AbortController();
    const solving = solveChallenge(challenge, controller.signal);
    controller.abort();
    await expect(solving).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('publicTokenSource (§2b)', () => {
  it('fetches a challenge, solves it, mints: an anonymous session (owner key `-`, read from another origin); each session solves a new challenge', async () => {
    // The service's clock is the visitor's here: the session's lifetime is read against it.
    const clock = { now: () => Date.now() };
    const { service } = makeService({ projects: [PROJECT, PUBLIC_PROJECT], challengeWork: 2_000, clock });
    const page = pageFetch(service);
    const mint = source(page.fetch);
    const first = await mint(new AbortController().signal);
    const second = await mint(new AbortController().signal);
    expect(first).toMatchObject({ token: expect.stringMatching(/^ses_/), ownerKey: '-' });
    expect(second).not.toMatchObject({ token: (first as { token: string }).token });
    expect(page.calls.map((c) => `${c.method} ${c.url.replace(BASE, '')}`)).toEqual([
      'GET /agent/v1/projects/proj_pub/integrations/int_pub/challenge/',
      'POST /agent/v1/projects/proj_pub/integrations/int_pub/sessions/',
      'GET /agent/v1/projects/proj_pub/integrations/int_pub/challenge/',
      'POST /agent/v1/projects/proj_pub/integrations/int_pub/sessions/',
    ]);
    const solutions = page.calls.filter((c) => c.method === 'POST').map((c) => c.body);
    expect(new Set(solutions).size).toBe(2);
    // The body is the solution alone: never an owner.
    expect(Object.keys(JSON.parse(solutions[0]!))).toEqual(['altcha']);
  });

  it("a service that does not expose the owner key to the page: the session is still `-`, a public session's", async () => {
    const clock = { now: () => Date.now() };
    const { service } = makeService({ projects: [PROJECT, PUBLIC_PROJECT], challengeWork: 2_000, clock });
    const page = pageFetch(service);
    const hidden = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await page.fetch(input, init);
      const headers = new Headers(response.headers);
      headers.delete('Agent-Chat-Owner-Key');
      return new Response(response.body, { status: response.status, headers });
    }) as typeof globalThis.fetch;
    expect(await source(hidden)(new AbortController().signal)).toMatchObject({ ownerKey: '-' });
  });

  it('an unlisted origin: the visitor reads that the chat is not available here; the site owner is told once what to add', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { service } = makeService({ projects: [PUBLIC_PROJECT], challengeWork: 2_000 });
    const mint = source(pageFetch(service, 'https://elsewhere.example').fetch);
    const error = await failure(mint(new AbortController().signal));
    expect(error).toBeInstanceOf(PublicSessionError);
    expect(describeError(error)).toMatchObject({
      code: 'origin_not_allowed',
      key: 'errorNotAllowedHere',
      message: "This chat isn't available on this website.",
      recoverable: false,
    });
    await failure(mint(new AbortController().signal));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain('add the origin to its "Allowed origins"');
  });

  it('an integration that is not public reads as not set up; the site owner learns which box to tick', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { service } = makeService({ projects: [PROJECT] });
    const error = await failure(
      source(pageFetch(service).fetch, 'int_demo', PROJECT.id)(new AbortController().signal),
    );
    expect(describeError(error)).toMatchObject({
      code: 'not_found',
      key: 'errorNotConfigured',
      recoverable: false,
    });
    expect(warn.mock.calls[0][0]).toContain('tick "Allow visitors without a site server"');
  });

  it('a base-url that is not the service (ending in /agent/v1): the site owner reads which address answered 404, and to check base-url', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { service } = makeService({ projects: [PUBLIC_PROJECT] });
    const mint = publicTokenSource({
      baseUrl: `${BASE}/agent/v1`,
      projectId: 'proj_pub',
      integrationId: 'int_pub',
      fetch: pageFetch(service).fetch,
    });
    const error = await failure(mint(new AbortController().signal));
    expect(describeError(error)).toMatchObject({ key: 'errorNotConfigured', recoverable: false });
    expect(warn).toHaveBeenCalledTimes(1);
    const advice = String(warn.mock.calls[0][0]);
    expect(advice).toContain(`${BASE}/agent/v1/agent/v1/projects/proj_pub/integrations/int_pub/challenge/`);
    expect(advice).toContain('base-url');
    expect(advice).toContain('without /agent/v1');
  });

  it('the budget spent: the visitor reads that the chat has reached its limit for today, with no retry', async () => {
    const { service } = makeService({
      projects: [PUBLIC_PROJECT],
      challengeWork: 2_000,
      directoryCacheMs: 0,
    });
    await service.handle(new Request(`${BASE}/`)); // the start-up project exists
    await service.storage.directory.updateIntegration('proj_pub', 'int_pub', {
      budget: { sessions: 0, answers: 10 },
    });
    const error = await failure(source(pageFetch(service).fetch)(new AbortController().signal));
    expect(describeError(error)).toMatchObject({
      code: 'budget_exhausted',
      key: 'errorBudgetSpent',
      message: 'This chat has reached its limit for today. Please try again tomorrow.',
      recoverable: false,
    });
  });

  describe('a failure no HTTP status says: the site owner is told once what failed and what to check', () => {
    const ROUTES = `${BASE}/agent/v1/projects/proj_pub/integrations/int_pub`;
    const html = () =>
      new Response('<!doctype html><p>Welcome', { headers: { 'Content-Type': 'text/html' } });

    /**
     * The public session as the page's fetch makes it fail, twice (the visitor's Retry): what the
     * console said, the session error each time.
     */
    async function failsTwice(fetch: (url: string) => Promise<Response>) {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const mint = source(((input: RequestInfo | URL) => fetch(urlOf(input))) as typeof globalThis.fetch);
      for (let i = 0; i < 2; i++) {
        const error = await failure(mint(new AbortController().signal));
        expect(error).toBeInstanceOf(SessionError);
        expect(describeError(error)).toMatchObject({ key: 'errorSession', recoverable: true });
      }
      expect(warn).toHaveBeenCalledTimes(1);
      return String(warn.mock.calls[0][0]);
    }

    it('the service unreachable (a network error, CORS, a wrong base-url): which address, and what to check', async () => {
      const said = await failsTwice(() => Promise.reject(new TypeError('Failed to fetch')));
      expect(said).toContain(`${ROUTES}/challenge/`);
      expect(said).toMatch(/base-url/);
      expect(said).toMatch(/Network/);
    });

    it('a challenge that is not one (a page answered for the service): which address answered what', async () => {
      const said = await failsTwice(async () => html());
      expect(said).toContain(`${ROUTES}/challenge/`);
      expect(said).toMatch(/not an ALTCHA challenge/);
      expect(said).toMatch(/base-url/);
    });

    it("a challenge the widget cannot solve: the proof of work failed, check the service's version", async () => {
      const unsolvable = await createChallenge({ hmacKey: 'k', maxnumber: 10, number: 5000 });
      const said = await failsTwice(async () => Response.json(unsolvable));
      expect(said).toMatch(/proof of work/);
      expect(said).toContain(`${ROUTES}/challenge/`);
      expect(said).toMatch(/version/);
    });

    it('a session answer that is not a session: which address answered what', async () => {
      const { service } = makeService({ projects: [PUBLIC_PROJECT], challengeWork: 2_000 });
      const page = pageFetch(service);
      const said = await failsTwice((url) =>
        url.endsWith('/sessions/') ? Promise.resolve(html()) : page.fetch(url),
      );
      expect(said).toContain(`${ROUTES}/sessions/`);
      expect(said).toMatch(/base-url/);
    });
  });

  it('busy, a failed proof, a network failure: words for the visitor, and a retry may help', () => {
    const busy = new PublicSessionError(429, 'rate_limited', 'x', { retryAfter: 30 });
    expect(describeError(busy)).toMatchObject({
      key: 'errorBusy',
      message: 'The chat is busy right now. Please try again in a minute.',
      recoverable: true,
    });
    expect(describeError(new PublicSessionError(403, 'challenge_failed', 'x'))).toMatchObject({
      key: 'errorSession',
      recoverable: true,
    });
    expect(describeError(new SessionError('session_failed', 'x'))).toMatchObject({
      key: 'errorSession',
      recoverable: true,
    });
  });
});
