import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TokenManager } from '../../../src/session/token-manager.js';
import { SessionError } from '../../../src/api/errors.js';
import { countingSource, normalizedSession, rawSession } from '../../fixtures/sessions.js';

const HOUR = 3_600_000;

/**
 * The timers the manager sets itself (its module on the stack when one is set), counted apart
 * from any other: the unit files share a worker (decision 504), and another file's late work may
 * set a timer of its own while this file's fake clock is installed.
 */
function managerTimers() {
  const pending = new Set<unknown>();
  const own = () => /src[\\/]session[\\/]token-manager\.ts/.test(new Error().stack ?? '');
  for (const [setName, clearName] of [
    ['setTimeout', 'clearTimeout'],
    ['setInterval', 'clearInterval'],
  ] as const) {
    const set = globalThis[setName] as (fn: () => void, ms?: number) => unknown;
    const clear = globalThis[clearName] as (id: unknown) => void;
    vi.spyOn(globalThis, setName).mockImplementation(((fn: () => void, ms?: number) => {
      if (!own()) return set(fn, ms);
      const id = set(() => {
        if (setName === 'setTimeout') pending.delete(id);
        fn();
      }, ms);
      pending.add(id);
      return id;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, clearName).mockImplementation(((id?: unknown) => {
      pending.delete(id);
      clear(id);
    }) as typeof clearTimeout);
  }
  return { pending: () => pending.size };
}

describe('TokenManager', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-21T10:00:00.000Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('does not call the token source before a request needs a token', async () => {
    const { source, calls } = countingSource();
    const manager = new TokenManager(source);
    await vi.advanceTimersByTimeAsync(2 * HOUR);
    expect(calls()).toBe(0);
    expect(manager.status).toBe('idle');
  });

  it('reuses the cached token for later requests', async () => {
    const { source, calls } = countingSource();
    const manager = new TokenManager(source);
    for (let i = 0; i < 10; i += 1) expect(await manager.getToken()).toBe('tok-1');
    expect(calls()).toBe(1);
  });

  it('refetches when 29 s are left and reuses when 31 s are left', async () => {
    const { source, calls } = countingSource();
    const manager = new TokenManager(source);
    await manager.getToken();

    vi.setSystemTime(Date.now() + HOUR - 31_000);
    expect(await manager.getToken()).toBe('tok-1');
    expect(calls()).toBe(1);

    vi.setSystemTime(Date.now() + 2_000); // now 29 s left
    expect(await manager.getToken()).toBe('tok-2');
    expect(calls()).toBe(2);
  });

  it('never mints a token in the background while the visitor is idle', async () => {
    const timers = managerTimers();
    try {
      const { source, calls } = countingSource();
      const manager = new TokenManager(source);
      await manager.getToken();
      // Another file's late work in the shared worker: a timer that is not the manager's.
      setTimeout(() => undefined, 10 * HOUR);
      await vi.advanceTimersByTimeAsync(3 * HOUR);
      expect(calls()).toBe(1);
      expect(vi.getTimerCount()).toBeGreaterThanOrEqual(1);
      expect(timers.pending()).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('shares one fetch among 5 concurrent requests', async () => {
    const { source, calls } = countingSource();
    const manager = new TokenManager(source);
    const tokens = await Promise.all(Array.from({ length: 5 }, () => manager.getToken()));
    expect(tokens).toEqual(Array(5).fill('tok-1'));
    expect(calls()).toBe(1);
  });

  it('refetches once when several requests invalidate the same stale token', async () => {
    const { source, calls } = countingSource();
    const manager = new TokenManager(source);
    const stale = await manager.getToken();
    const retries = Array.from({ length: 4 }, async () => {
      manager.invalidate(stale);
      return manager.getToken();
    });
    expect(await Promise.all(retries)).toEqual(Array(4).fill('tok-2'));
    // A late invalidate of the old token must not throw away the new one.
    manager.invalidate(stale);
    expect(await manager.getToken()).toBe('tok-2');
    expect(calls()).toBe(2);
  });

  it('does not cache a failed fetch: the next need tries again', async () => {
    let calls = 0;
    const manager = new TokenManager(async () => {
      calls += 1;
      if (calls === 1) throw new SessionError('session_failed', 'boom', { status: 500 });
      return rawSession('tok-ok', Date.now() + HOUR);
    });
    await expect(manager.getToken()).rejects.toMatchObject({ code: 'session_failed', status: 500 });
    expect(manager.status).toBe('error');
    expect(await manager.getToken()).toBe('tok-ok');
    expect(calls).toBe(2);
  });

  it('forgets the token on clear(), including one still being fetched', async () => {
    let resolveFirst!: (value: ReturnType<typeof rawSession>) => void;
    let calls = 0;
    const manager = new TokenManager((signal) => {
      calls += 1;
      if (calls === 1) {
        return new Promise((resolve, reject) => {
          resolveFirst = resolve;
          signal.addEventListener('abort', () => reject(signal.reason));
        });
      }
      return Promise.resolve(rawSession(`tok-${calls}`, Date.now() + HOUR));
    });
    const pending = manager.getToken();
    manager.clear();
    resolveFirst(rawSession('tok-1', Date.now() + HOUR));
    await expect(pending).rejects.toThrow();
    expect(await manager.getToken()).toBe('tok-2');
    manager.clear();
    expect(await manager.getToken()).toBe('tok-3');
  });

  it('lets one caller abort its wait without cancelling the shared fetch', async () => {
    const { source, calls } = countingSource();
    const manager = new TokenManager(source);
    const controller = new AbortController();
    const aborted = manager.getToken(controller.signal);
    const other = manager.getToken();
    controller.abort();
    await expect(aborted).rejects.toThrow();
    expect(await other).toBe('tok-1');
    expect(calls()).toBe(1);
  });

  it('accepts the raw and the normalized forms', async () => {
    const forms = [
      rawSession('raw', Date.now() + HOUR),
      normalizedSession('norm-ms', Date.now() + HOUR),
      normalizedSession('norm-iso', '2026-11-21T11:00:00Z'),
      normalizedSession('norm-iso6', '2026-11-21T11:00:00.123456Z'),
    ];
    for (const form of forms) {
      const manager = new TokenManager(async () => form);
      expect(await manager.getToken()).toBe('token' in form ? form.token : form.session_token);
    }
  });

  it('retries a source that threw synchronously on the next need, and never stays "fetching"', async () => {
    let calls = 0;
    const statuses: string[] = [];
    const manager = new TokenManager((() => {
      calls += 1;
      if (calls === 1) throw new Error('not ready yet');
      return Promise.resolve(rawSession('tok', Date.now() + HOUR));
    }) as unknown as () => Promise<never>);
    manager.subscribe((status) => statuses.push(status));
    await expect(manager.getToken()).rejects.toThrow('not ready yet');
    expect(manager.status).toBe('error');
    expect(await manager.getToken()).toBe('tok');
    expect(calls).toBe(2);
    expect(statuses).toEqual(['fetching', 'error', 'fetching', 'ready']);
  });

  for (const [label, skew] of [
    ['1 h 30 min fast', 1.5 * HOUR],
    ['3 h slow', -3 * HOUR],
  ] as const) {
    it(`gives a custom source's raw answer its hour when the visitor clock is ${label}`, async () => {
      const serviceNow = Date.now();
      vi.setSystemTime(serviceNow + skew);
      let calls = 0;
      const manager = new TokenManager(async () => {
        calls += 1;
        return rawSession(`tok-${calls}`, serviceNow + HOUR);
      });
      expect(await manager.getToken()).toBe('tok-1');
      await vi.advanceTimersByTimeAsync(HOUR - 31_000);
      expect(await manager.getToken()).toBe('tok-1');
      await vi.advanceTimersByTimeAsync(2_000);
      expect(await manager.getToken()).toBe('tok-2');
    });
  }

  it('keeps the owner key of the latest session and forgets it on clear()', async () => {
    let calls = 0;
    const manager = new TokenManager(async () => ({
      ...rawSession('t', Date.now() + HOUR),
      ownerKey: `k${(calls += 1)}`,
    }));
    expect(manager.ownerKey).toBeUndefined();
    await manager.getToken();
    expect(manager.ownerKey).toBe('k1');
    manager.invalidate('t');
    await manager.getToken();
    expect(manager.ownerKey).toBe('k2');
    manager.clear();
    expect(manager.ownerKey).toBeUndefined();
  });

  it.each([
    ['a string', 'nope', /JSON object/],
    ['null', null, /JSON object/],
    ['an unrelated object', { access: 'x' }, /session_token, expires_at/],
    ['a missing token', { expires_at: '2026-11-21T11:00:00Z' }, /"session_token" must be a non-empty string/],
    ['an empty token', { token: '', expiresAt: Date.now() + HOUR }, /"token" must be a non-empty string/],
    ['a missing expiry', { session_token: 'x' }, /"expires_at" must be an ISO 8601 time/],
    ['an unparseable expiry', { session_token: 'x', expires_at: 'tomorrow' }, /"expires_at" must be/],
    ['a numeric raw expiry', { session_token: 'x', expires_at: 1 }, /"expires_at" must be/],
    [
      'seven fraction digits',
      { token: 'x', expiresAt: '2026-11-21T11:00:00.1234567Z' },
      /"expiresAt" must be/,
    ],
    [
      'a past expiry',
      { token: 'x', expiresAt: '2026-11-21T09:00:00Z' },
      /expired at 2026-11-21T09:00:00.000Z/,
    ],
  ])('rejects %s with a typed error saying what was wrong', async (_label, payload, message) => {
    const manager = new TokenManager(async () => payload as never);
    const error = await manager.getToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionError);
    expect(error).toMatchObject({ code: 'invalid_session' });
    expect((error as Error).message).toMatch(message);
  });
});
