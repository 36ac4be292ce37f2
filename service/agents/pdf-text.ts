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

/** The text of the first `maxPages` pages, page by page, or null when the file is no PDF pdf.js can read. */
export async function pdfText(bytes: Uint8Array, maxPages: number): Promise<PdfText | null> {
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
