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

/** Fetches a challenge, solves it, posts the solution: the mint's answer, or the challenge's refusal. */
async function exchange({ routes, fetch, signal }: PublicSessionRequest): Promise<Response> {
  const headers = { Accept: 'application/json' };
  const answer = await fetch(`${routes}/challenge/`, { headers, credentials: 'omit', signal });
  if (!answer.ok) return answer;
  const challenge = (await answer.json()) as Challenge;
  const number = await solveChallenge(challenge, signal);
  if (number === null) throw new Error('The challenge has no solution in its range.');
  const { algorithm, salt, signature } = challenge;
  const altcha = btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number, salt, signature }));
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
 * (an origin to list, the public setting) is said once in the console.
 */
export async function publicSession(request: PublicSessionRequest): Promise<SessionPayload> {
  const { kit, routes, warnings } = request;
  let response: Response;
  try {
    response = await exchange(request);
  } catch (error) {
    if (kit.isAbortError(error)) throw error;
    throw new kit.SessionError('session_failed', `Could not start a public session at ${routes}.`, {
      cause: new kit.NetworkError(String(error), { cause: error }),
    });
  }
  if (response.ok) return kit.sessionFromResponse(response, `The public session route ${routes}`);
  const error = await kit.errorFromResponse(response, 'Starting a public session', kit.PublicSessionError);
  const advice =
    error.status === 404
      ? `[agent-chat] Integration ${request.integrationId} of project ${request.projectId} takes no public sessions: tick "Allow visitors without a site server" for it on the Integrations page of the service console, or give the widget a session-endpoint.`
      : error.code === 'origin_not_allowed'
        ? error.message
        : '';
  if (advice && !warnings.has(advice)) {
    warnings.add(advice);
    console.warn(advice);
  }
  throw error;
}
