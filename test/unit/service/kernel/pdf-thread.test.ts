/**
 * pdf.js's thread is kept for the next PDF (decision 764): a crawl of a site with many PDFs
 * starts one, not one a PDF, while every guarantee of 725 holds: a step past its time ends the
 * thread (the next PDF gets a fresh one), a PDF pdf.js fails on fails only itself, and a thread
 * left idle ends, at once when asked.
 */
import { describe, expect, it } from 'vitest';
import { createAgentService, memoryStores } from '../../../../service/index.js';
import { readPdf } from '../../../../service/kernel/pdf.js';
import {
  PDF_THREAD_IDLE_MS,
  closeIdlePdfThreads,
  pdfThreads,
} from '../../../../service/kernel/pdf-thread.js';
import { doublingForms, pdfFile, pdfWithPages } from '../../../fixtures/files.js';

const text = (read: Awaited<ReturnType<typeof readPdf>>) =>
  typeof read === 'string' ? read : read.pages.map((p) => p.lines.map((l) => l.text).join(' ')).join('\n');

describe("pdf.js's thread, kept for the next PDF", () => {
  it('reads PDFs one after another on one thread, each its own text', async () => {
    await closeIdlePdfThreads();
    const started = pdfThreads().started;
    for (const word of ['alpha', 'beta', 'gamma', 'delta'])
      expect(text(await readPdf(pdfWithPages([`${word} page`]), {}))).toBe(`${word} page`);
    expect(pdfThreads().started - started).toBe(1);
    expect(pdfThreads().idle).toBe(1);
    await closeIdlePdfThreads();
    expect(pdfThreads().idle).toBe(0);
  });

  it('ends the thread of a step past its time, and reads the next PDF on a fresh one', async () => {
    await closeIdlePdfThreads();
    expect(text(await readPdf(pdfWithPages(['before']), {}))).toBe('before');
    const started = pdfThreads().started;
    expect(await readPdf(doublingForms(30), { maxPages: 1, stepMs: 1_000 })).toBe('slow');
    expect(pdfThreads().idle).toBe(0);
    expect(text(await readPdf(pdfWithPages(['after']), {}))).toBe('after');
    expect(pdfThreads().started - started).toBe(1);
    await closeIdlePdfThreads();
  });

  it('a PDF pdf.js cannot read fails alone: the next one on the same thread is read whole', async () => {
    await closeIdlePdfThreads();
    const started = pdfThreads().started;
    // No catalogue: pdf.js fails to open it, on the thread.
    expect(await readPdf(pdfFile(['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']), {})).toBe(
      'unreadable',
    );
    expect(text(await readPdf(pdfWithPages(['one', 'two']), {}))).toBe('one\ntwo');
    expect(pdfThreads().started - started).toBe(1);
    await closeIdlePdfThreads();
  });

  it("ends the idle thread as the service stops: a question's PDF leaves none behind", async () => {
    const service = createAgentService({ storage: memoryStores() });
    await readPdf(pdfWithPages(['a question file']), {});
    expect(pdfThreads().idle).toBe(1);
    await service.close();
    expect(pdfThreads().alive).toBe(0);
  });

  it('ends a thread left idle after a short while', { timeout: PDF_THREAD_IDLE_MS + 10_000 }, async () => {
    expect(PDF_THREAD_IDLE_MS).toBeLessThanOrEqual(5_000);
    await readPdf(pdfWithPages(['idle']), {});
    expect(pdfThreads().idle).toBeGreaterThan(0);
    await expect
      .poll(() => pdfThreads().alive, { timeout: PDF_THREAD_IDLE_MS + 5_000, interval: 200 })
      .toBe(0);
  });
});
