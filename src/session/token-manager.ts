import { isAbortError } from '../api/errors.js';
import { parseSession } from './parse-session.js';
import type { SessionStatus, SessionToken, TokenSource } from './types.js';

/** Refresh this long before expiry (service interface: 30 s). */
export const REFRESH_MARGIN_MS = 30_000;

export interface TokenManagerOptions {
  /** Injected for tests; defaults to `Date.now`. */
  now?: () => number;
  refreshMarginMs?: number;
}

type Listener = (status: SessionStatus) => void;

/**
 * Holds the session token in memory only and applies the client's token rules:
 * lazy (nothing is fetched before a request needs it), cached, refreshed when a request
 * needs it within the margin of expiry (checked at use, never by a background timer),
 * discarded on a 401, and fetched by one in-flight call however many requests wait.
 */
export class TokenManager {
  #current?: SessionToken;
  #inflight?: { promise: Promise<SessionToken>; controller: AbortController };
  /** Bumped by clear() so a fetch that was under way cannot repopulate the cache. */
  #generation = 0;
  #currentStatus: SessionStatus = 'idle';
  readonly #listeners = new Set<Listener>();
  readonly #now: () => number;
  readonly #refreshMarginMs: number;

  readonly #source: TokenSource;

  constructor(source: TokenSource, options: TokenManagerOptions = {}) {
    this.#source = source;
    this.#now = options.now ?? Date.now;
    this.#refreshMarginMs = options.refreshMarginMs ?? REFRESH_MARGIN_MS;
  }

  get status(): SessionStatus {
    return this.#currentStatus;
  }

  /** The owner key of the latest session (undefined before one, or when it carried none). */
  get ownerKey(): string | undefined {
    return this.#lastOwnerKey;
  }

  /** A session was minted since the last clear(): `ownerKey` then says what it named. */
  get hasSession(): boolean {
    return this.#minted;
  }

  #lastOwnerKey?: string;
  #minted = false;

  /** Resolves to a usable token, fetching one only when none is cached or it is about to expire. */
  async getToken(signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    if (this.#current && this.#current.expiresAt - this.#now() > this.#refreshMarginMs)
      return this.#current.token;
    const fetched = await abortable(this.#fetchOnce(), signal);
    return fetched.token;
  }

  /**
   * Drops `staleToken` after the service rejected it. A token that has already been
   * replaced is left alone, so several requests failing with the same token cause one refetch.
   */
  invalidate(staleToken: string): void {
    if (this.#current?.token !== staleToken) return;
    this.#current = undefined;
    this.#setStatus('idle');
  }

  /** Forgets the token (and any fetch under way); the next request starts a new session. */
  clear(): void {
    this.#generation += 1;
    this.#current = undefined;
    this.#lastOwnerKey = undefined;
    this.#minted = false;
    this.#inflight?.controller.abort();
    this.#inflight = undefined;
    this.#setStatus('idle');
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #fetchOnce(): Promise<SessionToken> {
    if (this.#inflight) return this.#inflight.promise;
    const generation = this.#generation;
    const controller = new AbortController();
    // A source that throws synchronously becomes a rejection, so the failure below runs after
    // `inflight` is recorded; run in line, its finally would leave a dead promise cached forever.
    let fetched: Promise<unknown>;
    try {
      fetched = Promise.resolve(this.#source(controller.signal));
    } catch (error) {
      fetched = Promise.reject(error);
    }
    const promise = (async () => {
      try {
        const payload = await fetched;
        const token = parseSession(payload, this.#now());
        if (generation === this.#generation) {
          this.#current = token;
          this.#lastOwnerKey = token.ownerKey;
          this.#minted = true;
          this.#setStatus('ready');
        }
        return token;
      } catch (error) {
        // A failure is never cached: the next request tries again.
        if (generation === this.#generation && !isAbortError(error)) this.#setStatus('error');
        throw error;
      } finally {
        if (this.#inflight?.controller === controller) this.#inflight = undefined;
      }
    })();
    this.#inflight = { promise, controller };
    this.#setStatus('fetching');
    return promise;
  }

  #setStatus(status: SessionStatus): void {
    if (status === this.#currentStatus) return;
    this.#currentStatus = status;
    for (const listener of this.#listeners) listener(status);
  }
}

/** Lets one caller stop waiting without cancelling the shared fetch the others wait on. */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
