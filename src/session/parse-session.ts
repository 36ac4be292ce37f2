import { SessionError } from '../api/errors.js';
import type { SessionToken } from './types.js';

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses an ISO 8601 timestamp with 0 to 6 fraction digits into epoch ms.
 * Written out because `Date.parse` is only specified for exactly 3 digits.
 */
export function parseIsoTime(value: string): number | undefined {
  const match = ISO_UTC.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', zone] = match;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  let time = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, ms);
  if (zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    time -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return Number.isNaN(time) ? undefined : time;
}

function invalid(reason: string): SessionError {
  return new SessionError('invalid_session', `The session response is not usable: ${reason}.`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A session token's lifetime (wire contract §1). */
export const TOKEN_LIFETIME_MS = 3_600_000;

/**
 * Turns either accepted session form into a token whose expiry is on the local clock.
 *
 * The token's lifetime is judged from the server's own clock: `expires_at - serverNow`,
 * where `serverNow` is the response's Date header. A visitor whose clock is hours off
 * therefore neither loops on refresh nor keeps a dead token.
 *
 * Without a server time (a custom source), the raw form's `expires_at` is still the service's
 * clock: a lifetime outside (0, 1 h] on the local clock can only be skew, so the token is taken
 * as just minted with the contract's hour (decision 69). A token that really was stale earns a
 * 401, which fetches a fresh one. The normalized form is read on the visitor's clock.
 */
export function parseSession(payload: unknown, receivedAt: number, serverNow?: number): SessionToken {
  if (!isRecord(payload)) throw invalid('expected a JSON object');

  const raw = 'session_token' in payload || 'expires_at' in payload;
  const token = raw ? payload.session_token : payload.token;
  const expiry = raw ? payload.expires_at : payload.expiresAt;
  const tokenField = raw ? 'session_token' : 'token';
  const expiryField = raw ? 'expires_at' : 'expiresAt';

  if (token === undefined && expiry === undefined) {
    throw invalid('expected {session_token, expires_at} or {token, expiresAt}');
  }
  if (typeof token !== 'string' || token.length === 0)
    throw invalid(`"${tokenField}" must be a non-empty string`);

  let expiresAtServer: number | undefined;
  if (typeof expiry === 'number' && !raw) expiresAtServer = Number.isFinite(expiry) ? expiry : undefined;
  else if (typeof expiry === 'string') expiresAtServer = parseIsoTime(expiry);
  if (expiresAtServer === undefined) {
    throw invalid(
      `"${expiryField}" must be ${raw ? 'an ISO 8601 time' : 'epoch milliseconds or an ISO 8601 time'} (got ${JSON.stringify(expiry)})`,
    );
  }

  let lifetime = expiresAtServer - (serverNow ?? receivedAt);
  if (raw && serverNow === undefined && (lifetime <= 0 || lifetime > TOKEN_LIFETIME_MS))
    lifetime = TOKEN_LIFETIME_MS;
  if (lifetime <= 0) throw invalid(`the token expired at ${new Date(expiresAtServer).toISOString()}`);
  const ownerKey = typeof payload.ownerKey === 'string' ? payload.ownerKey : undefined;
  return { token, expiresAt: receivedAt + lifetime, ownerKey };
}
