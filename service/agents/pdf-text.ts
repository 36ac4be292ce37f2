/**
 * The text of a PDF's first pages, for a model that reads text. unpdf (pdf.js's serverless
 * build, no dependencies, 2.3 MB installed; pdfjs-dist is 37 MB with a 33 MB optional native
 * canvas) runs in Node and in browsers. It is loaded the first time a PDF is read, so a service
 * that never sees one never loads it. Nothing is rendered: no fonts, no images, no scripts
 * (`isEvalSupported: false`); a PDF is read up to `maxPages` pages however many it has.
 */

export interface PdfText {
  text: string;
  /** Pages read, and pages the file has. */
  pages: number;
  totalPages: number;
}

/**
 * What a PDF's compressed streams may inflate to, images aside (reading text decodes none),
 * all together: more than any text a model is sent, and far below what would hurt the service.
 */
export const MAX_PDF_INFLATED_BYTES = 64_000_000;

/** Bytes that inflate past `limit` (a zip bomb in PDF clothes): counted as they come, stopped at once. */
async function inflatesPast(data: Uint8Array, limit: number): Promise<number> {
  const reader = new Blob([data.slice()])
    .stream()
    .pipeThrough(new DecompressionStream('deflate'))
    .getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return total;
      total += value.length;
      if (total > limit) {
        void reader.cancel().catch(() => {});
        return total;
      }
    }
  } catch {
    // Not deflate, or damaged: pdf.js decides what it makes of it, and nothing grew.
    return total;
  }
}

/**
 * Whether the streams pdf.js may decode to read text (every stream but images') inflate within
 * MAX_PDF_INFLATED_BYTES. pdf.js keeps a decoded stream whole in memory, so a few kilobytes of
 * zeros deflated a thousandfold would otherwise become gigabytes before any page limit applies.
 */
export async function inflatesWithin(bytes: Uint8Array, limit = MAX_PDF_INFLATED_BYTES): Promise<boolean> {
  // One character per byte, so positions in the text are positions in the bytes.
  const text = new TextDecoder('latin1').decode(bytes);
  let left = limit;
  for (let at = text.indexOf('stream'); at !== -1; at = text.indexOf('stream', at + 6)) {
    if (text.startsWith('end', at - 3)) continue;
    const start =
      text[at + 6] === '\r' && text[at + 7] === '\n' ? at + 8 : text[at + 6] === '\n' ? at + 7 : -1;
    if (start === -1) continue;
    const end = text.indexOf('endstream', start);
    if (end === -1) break;
    const dictionary = text.slice(Math.max(text.lastIndexOf('obj', at), at - 4096, 0), at);
    if (/\/Subtype\s*\/Image\b/.test(dictionary) || !/\/(FlateDecode|Fl)\b/.test(dictionary)) continue;
    left -= await inflatesPast(bytes.subarray(start, end), left);
    if (left < 0) return false;
    at = end;
  }
  return true;
}

/**
 * The text of the first `maxPages` pages, page by page, or null when the file is no PDF pdf.js
 * can read, or would inflate past MAX_PDF_INFLATED_BYTES.
 */
export async function pdfText(bytes: Uint8Array, maxPages: number): Promise<PdfText | null> {
  if (!(await inflatesWithin(bytes))) return null;
  const { getDocumentProxy } = await import('unpdf');
  let doc: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    // A copy: pdf.js takes the buffer it is given (it is detached after).
    doc = await getDocumentProxy(bytes.slice(), {
      isEvalSupported: false,
      verbosity: 0,
      disableFontFace: true,
    });
    const pages = Math.min(doc.numPages, maxPages);
    const texts: string[] = [];
    for (let n = 1; n <= pages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      texts.push(
        content.items
          .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
          .join('')
          .trim(),
      );
      page.cleanup();
    }
    return { text: texts.join('\n\n').trim(), pages, totalPages: doc.numPages };
  } catch {
    return null;
  } finally {
    await doc?.destroy().catch(() => {});
  }
}
