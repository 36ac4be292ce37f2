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
import { pdfFile, pdfWithPages } from '../../../fixtures/files.js';

const text = (read: Awaited<ReturnType<typeof readPdf>>) =>
  typeof read === 'string' ? read : read.pages.map((p) => p.lines.map((l) => l.text).join(' ')).join('\n');

/** One page drawing form 1, form i drawing form i+1 twice: 2^30 drawings, a step past any time. */
function busyPdf(): Uint8Array {
  const depth = 30;
  const stream = (dictionary: string, content: string) =>
    `<< ${dictionary} /Length ${content.length} >>\nstream\n${content}\nendstream`;
  const forms = Array.from({ length: depth + 1 }, (_, i) =>
    stream(
      `/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << ${i < depth ? `/XObject << /X ${6 + i} 0 R >>` : `/Font << /F1 ${6 + depth} 0 R >>`} >>`,
      i < depth ? '/X Do /X Do' : 'BT /F1 12 Tf (leaf) Tj ET',
    ),
  );
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /X 5 0 R >> >> >>',
    stream('', '/X Do'),
    ...forms,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

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
    expect(await readPdf(busyPdf(), { maxPages: 1, stepMs: 1_000 })).toBe('slow');
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
