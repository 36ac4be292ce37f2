/** What public sessions spend, on every engine: solved challenges (no replay) and daily budgets. */
import { expect, it } from 'vitest';
import type { Stores } from '../../../../service/storage/types.js';
import { T0 } from '../../../fixtures/records.js';
import { storageSuite } from '../../../fixtures/storages.js';

storageSuite('gate', (suite) => {
  let store: Stores;
  const open = async () => (store = await suite.open());

  it('records a challenge once: the second spend of it, even at once, is refused until it expires and is purged', async () => {
    await open();
    const spends = await Promise.all([1, 2, 3].map(() => store.gate.spendChallenge('c1', T0 + 600_000)));
    expect(spends.filter(Boolean)).toHaveLength(1);
    expect(await store.gate.spendChallenge('c2', T0 + 1_000)).toBe(true);
    expect(await store.gate.purgeGate(T0 + 1_000, 0)).toBe(1);
    expect(await store.gate.spendChallenge('c1', T0 + 600_000)).toBe(false);
    expect(await store.gate.spendChallenge('c2', T0 + 700_000)).toBe(true);
  });

  it('keeps the origins each integration refused, for the fleet: counts added, the newest 10, purged after 30 days', async () => {
    await open();
    const DAY = 86_400_000;
    const note = (origin: string, count: number, at: number, integrationId = 'int_a') =>
      store.gate.noteRefusals({ projectId: 'proj', integrationId, origin, count, at });
    await note('https://a.example', 2, T0);
    // Another instance's note of the same origin adds its count; an earlier time keeps the later.
    await note('https://a.example', 3, T0 - 5);
    await note('null', 1, T0 + 10);
    await note('https://b.example', 1, T0, 'int_b');
    await note('https://other.example', 1, T0, 'int_c').then(() =>
      store.gate.noteRefusals({
        projectId: 'proj_other',
        integrationId: 'int_a',
        origin: 'https://c.example',
        count: 1,
        at: T0,
      }),
    );
    const listed = await store.gate.refusals('proj');
    expect(listed.get('int_a')).toEqual([
      { origin: 'null', count: 1, last: T0 + 10 },
      { origin: 'https://a.example', count: 5, last: T0 },
    ]);
    expect(listed.get('int_b')).toEqual([{ origin: 'https://b.example', count: 1, last: T0 }]);
    expect([...listed.keys()].sort()).toEqual(['int_a', 'int_b', 'int_c']);
    // A script faking origins fills 10 rows an integration, the newest, and nothing else.
    for (let i = 0; i < 12; i++) await note(`https://fake-${i}.example`, 1, T0 + 100 + i);
    const kept = (await store.gate.refusals('proj')).get('int_a')!;
    expect(kept.map((r) => r.origin)).toEqual(
      Array.from({ length: 10 }, (_, i) => `https://fake-${11 - i}.example`),
    );
    expect(await store.gate.purgeGate(T0 + 30 * DAY + 105, 0)).toBe(3 + 1 + 1 + 1);
    expect((await store.gate.refusals('proj')).get('int_a')!.map((r) => r.origin)).toEqual([
      'https://fake-11.example',
      'https://fake-10.example',
      'https://fake-9.example',
      'https://fake-8.example',
      'https://fake-7.example',
      'https://fake-6.example',
      'https://fake-5.example',
    ]);
  });

  it('spends a budget up to its limit per integration and day, concurrent spends included, and reports the use', async () => {
    await open();
    const day = 20_000;
    const spend = (kind: 'sessions' | 'answers', limit: number, integration = 'int_a', on = day) =>
      store.gate.spendBudget('proj', integration, on, kind, limit);
    const sessions = await Promise.all(Array.from({ length: 8 }, () => spend('sessions', 5)));
    expect(sessions.filter(Boolean)).toHaveLength(5);
    expect(await spend('answers', 2)).toBe(true);
    expect(await spend('answers', 0, 'int_b')).toBe(false);
    expect(await spend('sessions', 5, 'int_b')).toBe(true);
    expect(await spend('sessions', 5, 'int_a', day + 1)).toBe(true);
    // A limit lowered below what was spent refuses at once; raised, it goes on from the count.
    expect(await spend('sessions', 3)).toBe(false);
    expect(await spend('sessions', 6)).toBe(true);
    expect(await store.gate.budgetUse('proj', day)).toEqual(
      new Map([
        ['int_a', { sessions: 6, answers: 1 }],
        ['int_b', { sessions: 1, answers: 0 }],
      ]),
    );
    expect(await store.gate.budgetUse('other', day)).toEqual(new Map());
    // Days before the one named go; that day and later stay.
    expect(await store.gate.purgeGate(T0, day + 1)).toBe(2);
    expect(await store.gate.budgetUse('proj', day)).toEqual(new Map());
    expect((await store.gate.budgetUse('proj', day + 1)).get('int_a')).toEqual({ sessions: 1, answers: 0 });
  });

  it('takes back a charge on its day and kind only, never below nothing', async () => {
    await open();
    const day = 20_000;
    expect(await store.gate.spendBudget('proj', 'int_a', day, 'answers', 1)).toBe(true);
    expect(await store.gate.spendBudget('proj', 'int_a', day, 'answers', 1)).toBe(false);
    await store.gate.refundBudget('proj', 'int_a', day, 'answers');
    // Nothing spent that day, nor of that kind, nor for that integration: nothing to take back.
    await Promise.all([
      store.gate.refundBudget('proj', 'int_a', day, 'answers'),
      store.gate.refundBudget('proj', 'int_a', day + 1, 'answers'),
      store.gate.refundBudget('proj', 'int_a', day, 'sessions'),
      store.gate.refundBudget('proj', 'int_b', day, 'answers'),
    ]);
    expect(await store.gate.budgetUse('proj', day)).toEqual(
      new Map([['int_a', { sessions: 0, answers: 0 }]]),
    );
    expect(await store.gate.spendBudget('proj', 'int_a', day, 'answers', 1)).toBe(true);
    expect(await store.gate.spendBudget('proj', 'int_a', day, 'answers', 1)).toBe(false);
  });
});
