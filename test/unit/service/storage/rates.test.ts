/** The rate windows on every engine; and their batched counts on SQL. */
import { expect, it } from 'vitest';
import type { Stores } from '../../../../service/storage/types.js';
import { T0 } from '../../../fixtures/records.js';
import { sqlBatchSuite, storageSuite } from '../../../fixtures/storages.js';

storageSuite('rate windows', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  it('counts requests in fixed windows, restarts an expired one, and keeps the table bounded by evicting the oldest', async () => {
    await open();
    const counts = await Promise.all(
      Array.from({ length: 5 }, () => store.rates.countRequest('k', 1000, T0)),
    );
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(counts[0].resetAt).toBe(T0 + 1000);
    expect(await store.rates.countRequest('k', 1000, T0 + 1000)).toEqual({ count: 1, resetAt: T0 + 2000 });
    for (let i = 0; i < 6; i++) await store.rates.countRequest(`other${i}`, 1000, T0 + 1100 + i);
    // Nothing expired at T0 + 1500: the 7 windows are cut to the 3 youngest.
    expect(await store.rates.purgeRateWindows(T0 + 1500, 3)).toBe(3);
    expect((await store.rates.countRequest('other5', 1000, T0 + 1500)).count).toBe(2);
    expect((await store.rates.countRequest('k', 1000, T0 + 1500)).count).toBe(1);
    expect(await store.rates.purgeRateWindows(T0 + 10_000, 100)).toBe(0);
  });
});

/**
 * The SQL engines write the calls that come together as one statement: a call that comes while
 * a batch is in flight joins the next one; alone, a call goes at once. What a batch writes must
 * be what one statement per call wrote.
 */
sqlBatchSuite('rate windows, batched', ({ open }) => {
  it('counts concurrent requests in fewer statements than requests, each its own count in the order asked', async () => {
    const { store, counts } = await open();
    const keys = ['a', 'a', 'b', 'a', 'b', 'a', 'c', 'a'];
    const results = await Promise.all(keys.map((key) => store.rates.countRequest(key, 60_000, T0)));
    expect(results.map((r) => r.count)).toEqual([1, 2, 1, 3, 2, 4, 1, 5]);
    expect(results.map((r) => r.resetAt)).toEqual(keys.map(() => T0 + 60_000));
    // The first went alone, the other seven together.
    expect(counts()).toBe(2);
    // Within the window the counts go on; past it, a batch starts a new window at 1.
    expect(
      (await Promise.all(['a', 'b'].map((key) => store.rates.countRequest(key, 60_000, T0 + 1)))).map(
        (r) => r.count,
      ),
    ).toEqual([6, 3]);
    const later = await Promise.all(
      ['a', 'b', 'a'].map((key) => store.rates.countRequest(key, 60_000, T0 + 60_000)),
    );
    expect(later).toEqual([
      { count: 1, resetAt: T0 + 120_000 },
      { count: 1, resetAt: T0 + 120_000 },
      { count: 2, resetAt: T0 + 120_000 },
    ]);
  });
});
