import { createChallenge } from 'altcha-lib/v1';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { solveChallenge } from '../../../src/session/public-session.js';

/**
 * The solver in Chromium: the page keeps running while it works. How long it takes and how long
 * its slices are is measured in bench/proof-of-work.mjs (a timed test would only measure the
 * machine); here, what must hold on any machine.
 */
describe('the proof of work in the page', () => {
  /** Solves a challenge hiding 50,000 with a timer ticking: how often the page ran, and in what order. */
  async function solveBesideTimers(challenge: Awaited<ReturnType<typeof createChallenge>>) {
    const order: string[] = [];
    let ticks = 0;
    const tick = () => {
      ticks += 1;
      if (!order.includes('solved')) setTimeout(tick, 0);
    };
    setTimeout(() => order.push('timer'), 0);
    setTimeout(tick, 0);
    const solved = solveChallenge(challenge).then((number) => {
      order.push('solved');
      return number;
    });
    expect(await solved).toBe(50_000);
    return { order, ticks };
  }

  it("lets the page's own tasks run while it solves: a timer set before the solve fires long before it ends", async () => {
    const challenge = await createChallenge({ hmacKey: 'k', maxnumber: 50_000, number: 50_000 });
    const { order, ticks } = await solveBesideTimers(challenge);
    expect(order).toEqual(['timer', 'solved']);
    // The page ran again and again during the solve, not once at its end.
    expect(ticks).toBeGreaterThan(5);
  });

  it('without crypto.subtle (a page on plain http) it hashes by itself, and the page still runs while it solves', async () => {
    // Made while crypto.subtle is there: altcha-lib hashes with it.
    const challenge = await createChallenge({ hmacKey: 'k', maxnumber: 50_000, number: 50_000 });
    const subtle = vi.spyOn(crypto, 'subtle', 'get').mockReturnValue(undefined as unknown as SubtleCrypto);
    onTestFinished(() => subtle.mockRestore());
    const { order, ticks } = await solveBesideTimers(challenge);
    expect(subtle).toHaveBeenCalled();
    expect(order).toEqual(['timer', 'solved']);
    expect(ticks).toBeGreaterThan(5);
  });

  it('solves with the browser’s own SHA-256, as the service checks it', async () => {
    const challenge = await createChallenge({ hmacKey: 'k', maxnumber: 5_000, number: 4_321 });
    expect(await solveChallenge(challenge)).toBe(4_321);
  });
});
