import { describe, expect, it } from 'vitest';
import { parseIsoTime, parseSession } from '../../../src/session/parse-session.js';

describe('parseIsoTime', () => {
  it.each([
    ['2026-11-21T09:54:51Z', Date.UTC(2026, 10, 21, 9, 54, 51)],
    ['2026-11-21T09:54:51.1Z', Date.UTC(2026, 10, 21, 9, 54, 51, 100)],
    ['2026-11-21T09:54:51.165Z', Date.UTC(2026, 10, 21, 9, 54, 51, 165)],
    ['2026-11-21T09:54:51.165812Z', Date.UTC(2026, 10, 21, 9, 54, 51, 165)],
    ['2026-11-21T10:54:51+01:00', Date.UTC(2026, 10, 21, 9, 54, 51)],
  ])('parses %s', (iso, expected) => {
    expect(parseIsoTime(iso)).toBe(expected);
  });

  it.each(['2026-11-21', '2026-11-21 09:54:51Z', '2026-11-21T09:54:51', 'garbage'])('rejects %s', (iso) => {
    expect(parseIsoTime(iso)).toBeUndefined();
  });
});

describe('parseSession', () => {
  const serverNow = Date.UTC(2026, 10, 21, 10, 0, 0);
  const body = { session_token: 't', expires_at: '2026-11-21T11:00:00.000000Z' };

  it('keeps the server-measured lifetime when the visitor clock is 2 h ahead', () => {
    const localNow = serverNow + 2 * 3_600_000;
    expect(parseSession(body, localNow, serverNow).expiresAt).toBe(localNow + 3_600_000);
  });

  it('keeps the server-measured lifetime when the visitor clock is 2 h behind', () => {
    const localNow = serverNow - 2 * 3_600_000;
    expect(parseSession(body, localNow, serverNow).expiresAt).toBe(localNow + 3_600_000);
  });

  it('falls back to the local receive time when the server time is unknown', () => {
    expect(parseSession(body, serverNow).expiresAt).toBe(serverNow + 3_600_000);
  });
});
