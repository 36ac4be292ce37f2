/**
 * A PDF built to keep pdf.js busy rather than to make it allocate: a few kilobytes of forms,
 * each drawing the next one twice, are 2^depth drawings of one page's text, in promise callbacks
 * that never let the event loop run. pdf.js reads on a thread of its own, stopped at the step's
 * time limit; the service's thread stays free meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { PDF_STEP_MS, readPdf } from '../../../../service/kernel/pdf.js';
import { MAX_PDF_THREADS } from '../../../../service/kernel/pdf-thread.js';
import { doublingForms } from '../../../fixtures/files.js';

describe('a PDF that keeps the reader busy', () => {
  it('is read when it is small enough (the same file at 4 levels: 16 drawings)', async () => {
    const read = await readPdf(doublingForms(4), { maxPages: 1 });
    expect(typeof read === 'string' ? read : read.pages[0].lines.map((l) => l.text).join('')).toBe(
      'leaf'.repeat(16),
    );
  });

  it("stops at a step's time limit, and the service's thread runs its timers meanwhile", async () => {
    const pdf = doublingForms(30);
    expect(pdf.length).toBeLessThan(8_000);
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 100);
    const started = performance.now();
    const read = await readPdf(pdf, { maxPages: 1, stepMs: 1_500 });
    clearInterval(ticking);
    expect(read).toBe('slow');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(ticks).toBeGreaterThan(5);
  });

  it('reads on at most two threads at once: a third read waits its turn', async () => {
    expect(MAX_PDF_THREADS).toBe(2);
    const pdf = doublingForms(30);
    const started = performance.now();
    const reads = await Promise.all([1, 2, 3].map(() => readPdf(pdf, { maxPages: 1, stepMs: 1_000 })));
    expect(reads).toEqual(['slow', 'slow', 'slow']);
    // Two ran side by side for their second; the third began only then.
    expect(performance.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it('gives each step ten seconds by default', () => {
    expect(PDF_STEP_MS).toBe(10_000);
  });
});
