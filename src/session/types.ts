/** The service's own session response, forwarded unchanged by the site owner's server. */
export interface RawSession {
  session_token: string;
  /** ISO 8601 UTC, 0 to 6 fraction digits. */
  expires_at: string;
}

/** The normalized form a custom token source may return instead. */
export interface NormalizedSession {
  token: string;
  /** Epoch milliseconds, or an ISO 8601 string. */
  expiresAt: number | string;
}

/**
 * `ownerKey`: the `Agent-Chat-Owner-Key` of this session (wire contract §2), `-` without owner.
 * The endpoint source reads it from the response header; a custom source may add it to either form.
 */
export type SessionPayload = (RawSession | NormalizedSession) & { ownerKey?: string };

/**
 * Anything that mints a session token: by default the site owner's session endpoint.
 * The signal aborts the fetch when nobody waits for it any more (clearSession).
 */
export type TokenSource = (signal: AbortSignal) => Promise<SessionPayload>;

/** A token with its expiry on the *local* clock, so skew never matters after receipt. */
export interface SessionToken {
  token: string;
  expiresAt: number;
  ownerKey?: string;
}

// Declared beside the event that carries it: events/ sit below session/ and may not import it from here.
export type { SessionStatus } from '../events/session-change.js';
