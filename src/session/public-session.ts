/**
 * A public session (wire contract §2b), loaded only by pages that use one: fetch an ALTCHA
 * challenge, solve it, trade the solution for a session. It imports nothing at run time (the
 * widget hands it what it needs), so the classic script can load it by URL from beside itself
 * and the errors it throws are the script's own classes.
 */
import type { PublicSessionKit } from './public-source.js';
import { sha256 } from './sha256.js';
import type { SessionPayload } from './types.js';

export interface PublicSessionRequest {
  projectId: string;
  integrationId: string;
  /** `{base}/agent/v1/projects/{projectId}/integrations/{integrationId}`: the public routes' prefix. */
  routes: string;
  fetch: typeof globalThis.fetch;
  signal: AbortSignal;
  /** What was said to the site owner already (once per widget). */
  warnings: Set<string>;
  kit: PublicSessionKit;
}

/** An ALTCHA v1 challenge; without `maxnumber`, ALTCHA's default range. */
interface Challenge {
  algorithm: string;
  challenge: string;
  salt: string;
  signature: string;
  maxnumber?: number;
}

/** Hashes issued together (their promises resolve as microtasks: a batch never yields by itself). */
const BATCH = 100;
/** How long the solver keeps the main thread before it lets the page run: far under a 50 ms long task. */
const SLICE_MS = 10;

/**
 * Back to the page's event loop, behind what waits there (timers, network, input), then on: a
 * message to itself is an ordinary task. (A timer would be clamped to 4 ms, and to a second in a
 * background tab; a `scheduler.yield()` continuation runs ahead of the page's waiting tasks.)
 */
function yieldToPage(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The number `n` in [0, maxnumber] whose SHA-256 of `salt + n` is the challenge, or null. The
 * hashing is the browser's (`crypto.subtle.digest`), in batches, in slices of 10 ms: between
 * slices the page runs, so no task comes near 50 ms, and the work needs no Worker (one made from
 * a Blob is refused under a strict CSP). A page served over plain http at a name other than
 * localhost has no `crypto.subtle` (an insecure context): there the hashing is sha256.ts's, in
 * the same batches and slices (decision 667). Measured in bench/proof-of-work.mjs.
 */
export async function solveChallenge(challenge: Challenge, signal?: AbortSignal): Promise<number | null> {
  const target = hexBytes(challenge.challenge);
  const encoder = new TextEncoder();
  const subtle = globalThis.crypto?.subtle;
  // Where sha256.ts hashes, every input is encoded into this one buffer (UTF-8: 3 bytes a UTF-16 unit at most).
  const buffer = new Uint8Array(challenge.salt.length * 3 + 24);
  const max = challenge.maxnumber ?? 1_000_000;
  let slice = performance.now();
  for (let start = 0; start <= max; start += BATCH) {
    if (performance.now() - slice > SLICE_MS) {
      await yieldToPage();
      slice = performance.now();
    }
    signal?.throwIfAborted();
    const end = Math.min(start + BATCH - 1, max);
    const texts: string[] = [];
    for (let n = start; n <= end; n++) texts.push(challenge.salt + n);
    const hashes = subtle
      ? (await Promise.all(texts.map((text) => subtle.digest('SHA-256', encoder.encode(text))))).map(
          (hash) => new Uint8Array(hash),
        )
      : texts.map((text) => sha256(buffer, encoder.encodeInto(text, buffer).written));
    for (let i = 0; i < hashes.length; i++) if (sameBytes(hashes[i], target)) return start + i;
  }
  return null;
}

/**
 * What failed where no HTTP status says it, by step, and what the site owner can check: said once
 * in the console (the visitor reads that the chat could not start). `{}` is the address.
 */
const STEPS = [
  "could not reach {}: check the widget's base-url, that the service is up, and the failed request in the browser's Network tab (a CORS or mixed-content refusal shows there)",
  "got an answer from {} that is not an ALTCHA challenge: check that base-url is the agent service's, not a page or a proxy answering for it",
  'could not solve the challenge from {} (the proof of work): check that the service and the widget are of versions that work together',
  "got an answer from {} that is not a session: check that base-url is the agent service's, not a page or a proxy answering for it",
];
const [REACH, CHALLENGE, SOLVE, SESSION] = [0, 1, 2, 3];

/**
 * Fetches a challenge, solves it, posts the solution: the mint's answer, or the challenge's
 * refusal. `at` hears each step as it starts, and the address it reads.
 */
async function exchange(
  { routes, fetch, signal }: PublicSessionRequest,
  at: (step: number, url: string) => void,
): Promise<Response> {
  const headers = { Accept: 'application/json' };
  const url = `${routes}/challenge/`;
  at(REACH, url);
  const answer = await fetch(url, { headers, credentials: 'omit', signal });
  if (!answer.ok) return answer;
  at(CHALLENGE, url);
  const challenge = (await answer.json()) as Challenge;
  if (typeof challenge?.salt !== 'string' || typeof challenge.challenge !== 'string')
    throw new Error('Not an ALTCHA challenge.');
  at(SOLVE, url);
  const number = await solveChallenge(challenge, signal);
  if (number === null) throw new Error('The challenge has no solution in its range.');
  const { algorithm, salt, signature } = challenge;
  const altcha = btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number, salt, signature }));
  at(REACH, `${routes}/sessions/`);
  return fetch(`${routes}/sessions/`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ altcha }),
    credentials: 'omit',
    signal,
  });
}

/**
 * A new session: each call solves a new challenge (a solution is good for one session only). A
 * refusal is a `PublicSessionError` the visitor reads in words; what the site owner must change
 * (an origin to list, the public setting), or check where no HTTP status says what failed (the
 * network, the challenge, the answer's body), is said once in the console.
 */
export async function publicSession(request: PublicSessionRequest): Promise<SessionPayload> {
  const { kit, routes, warnings } = request;
  const warn = (advice: string, error?: unknown) => {
    if (!advice || warnings.has(advice)) return;
    warnings.add(advice);
    console.warn(advice, ...(error ? [error] : []));
  };
  let step = REACH;
  let url = routes;
  // A request the widget gave up on (its signal aborted) is nothing for the site owner to check.
  const failed = (error: unknown) =>
    request.signal.aborted || warn(`[agent-chat] A public session ${STEPS[step].replace('{}', url)}.`, error);
  let response: Response;
  try {
    response = await exchange(request, (next, at) => {
      step = next;
      url = at;
    });
  } catch (error) {
    if (kit.isAbortError(error)) throw error;
    failed(error);
    throw new kit.SessionError('session_failed', `Could not start a public session at ${routes}.`, {
      cause: new kit.NetworkError(String(error), { cause: error }),
    });
  }
  if (response.ok) {
    step = SESSION;
    return kit.sessionFromResponse(response, `The public session route ${routes}`).catch((error) => {
      failed(error);
      throw error;
    });
  }
  const error = await kit.errorFromResponse(response, 'Starting a public session', kit.PublicSessionError);
  // A 404 is the same `not_found` for an integration that is not public and for a route the
  // service does not have (a base-url that is not its address): the advice names both (decision 694).
  warn(
    error.status === 404
      ? `[agent-chat] Integration ${request.integrationId} of project ${request.projectId} takes no public sessions: tick "Allow visitors without a site server" for it on the Integrations page of the service console, or give the widget a session-endpoint; if ${url} is not the service's address, fix base-url (without /agent/v1).`
      : error.code === 'origin_not_allowed'
        ? error.message
        : '',
  );
  throw error;
}
