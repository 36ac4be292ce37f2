/**
 * A PDF's text, page by page, with its title and outline: what a question's attached PDF and a
 * docs site's PDF manual are read with. unpdf (pdf.js's serverless build, no dependencies, 2.3 MB
 * installed; pdfjs-dist is 37 MB with a 33 MB optional native canvas) runs in Node and in
 * browsers. It is loaded the first time a PDF is read, so a service that never sees one never
 * loads it. Nothing is rendered: no fonts, no images, no scripts (`isEvalSupported: false`); a
 * PDF is read up to `maxPages` pages however many it has, and not at all when its streams would
 * inflate past a bound, or cannot be counted (`pdf-streams.ts`).
 */
import { streamRefusal } from './pdf-streams.js';

export { MAX_PDF_INFLATED_BYTES, inflatesWithin } from './pdf-streams.js';

export interface PdfText {
  text: string;
  /** Pages read, and pages the file has. */
  pages: number;
  totalPages: number;
}

/** One line of a page as pdf.js puts its text together. */
export interface PdfLine {
  text: string;
  /** More space above it than a line's height: it starts a paragraph. */
  paragraph: boolean;
  /**
   * Every word of it is in a fixed-width font: a line of code (a command, a listing). Its text
   * then keeps the spaces between words as set (`x = 1    # one`), from its first character on.
   */
  code?: boolean;
  /** Where on its page the line's top edge is, from 0 (the top) to 1 (the bottom), as a bookmark's `top`. */
  top?: number;
  /** The height of its tallest word, in the page's units: the size of its type. */
  size?: number;
  /** A code line's left edge and the width of one of its characters, in the page's units: its indentation. */
  x?: number;
  charWidth?: number;
}

export interface PdfPage {
  /** From 1, as viewers and `#page=N` count. */
  number: number;
  lines: PdfLine[];
}

/** A bookmark: its title, the page it opens (null when its destination names none), its children. */
export interface PdfOutlineEntry {
  title: string;
  page: number | null;
  /** Where on its page it points, from 0 (the top) to 1 (the bottom); null when it names no height. */
  top: number | null;
  items: PdfOutlineEntry[];
}

export interface PdfDocument {
  /** The document's own Title (its info dictionary's, else its XMP `dc:title`), as written; null without one. */
  title: string | null;
  totalPages: number;
  /** The pages read, in order. */
  pages: PdfPage[];
  /** Empty unless asked for, or when the file has none. */
  outline: PdfOutlineEntry[];
}

/**
 * Why a PDF was not read: its streams would inflate past the bound (or could not be counted), it
 * is encrypted (the guard cannot count what is inside; one that needs a password is too), a step
 * took too long, reading it grew the memory past its bound (`heavy`), or pdf.js could not read it.
 */
export type PdfRefusal = 'inflates' | 'encrypted' | 'slow' | 'heavy' | 'unreadable';

/**
 * How long one step of reading a PDF may take (opening it, a page, its text, the metadata, the
 * outline): a page takes milliseconds. Past it, where pdf.js runs on a thread of its own (Node),
 * the thread is stopped and the PDF is not read (decision 725).
 */
export const PDF_STEP_MS = 10_000;

/**
 * What the process's resident memory may grow by while a PDF is read on a thread, past which the
 * thread is terminated (decision 783; where there are no threads, nothing bounds it): pdf.js
 * decodes an image used as a form or a font file into ArrayBuffers, outside the thread's heap
 * cap, and a few kilobytes of JPEG declare gigabytes. Room for the heap's cap (512 MB) and the
 * guard's bound (64 MB of streams), two reads at once.
 */
export const PDF_MEMORY_BYTES = 1_024_000_000;
/** What readPdf asks of pdf.js's document: in this thread, or on one of its own (`pdf-thread.ts`). */
export interface PdfDoc {
  numPages: number;
  getPage(number: number): Promise<{
    view: number[];
    getTextContent(): Promise<{ items: unknown[]; styles: unknown }>;
    cleanup(): void;
  }>;
  getMetadata(): Promise<{ info: unknown; metadata: { get(name: string): unknown } | null }>;
  getOutline(): Promise<unknown[] | null>;
  getDestination(name: string): Promise<unknown>;
  getPageIndex(ref: { num: number; gen: number }): Promise<number>;
  destroy(): Promise<void>;
}

const PDFJS_OPTIONS = { isEvalSupported: false, verbosity: 0, disableFontFace: true };

/** pdf.js's threads (`pdf-thread.ts`), once a PDF was read where Node's threads are. */
let threads: Promise<typeof import('./pdf-thread.js') | null> | null = null;

/**
 * Ends pdf.js's threads kept idle for the next PDF (decision 764): a crawl over, the service
 * stopping. Nothing to do where no PDF was read on a thread.
 */
export async function closeIdlePdfThreads(): Promise<void> {
  await (await threads)?.closeIdlePdfThreads();
}

/**
 * The document, on a thread of its own where Node's threads are (a page built to keep pdf.js
 * busy never lets this thread's timers run), else here (a browser, a Worker).
 */
async function openPdf(bytes: Uint8Array, stepMs: number, memoryBytes: number): Promise<PdfDoc> {
  const thread = globalThis.process?.versions?.node
    ? await (threads ??= import('./pdf-thread.js').catch(() => null))
    : null;
  if (thread) return thread.openOnThread(bytes, PDFJS_OPTIONS, stepMs, memoryBytes);
  const { getDocumentProxy } = await import('unpdf');
  // A copy: pdf.js takes the buffer it is given (it is detached after).
  return (await getDocumentProxy(bytes.slice(), PDFJS_OPTIONS)) as unknown as PdfDoc;
}

/** Bookmarks resolved at most: an outline is a table of contents, not a second document. */
const MAX_OUTLINE_ENTRIES = 5_000;

type TextItem = {
  str: string;
  hasEOL: boolean;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
};
/** pdf.js's reading of each font: `monospace` for a fixed-width one (its FixedPitch flag or its name). */
type Styles = Record<string, { fontFamily?: string } | undefined>;

/**
 * Whether an item's font says anything about its line: spaces and empty items take any font, and
 * so does a lone symbol (LaTeX sets a listing's `\` in the text's font).
 */
const telling = (item: TextItem) => /[\p{L}\p{N}]/u.test(item.str) || item.str.trim().length > 1;
const monospace = (styles: Styles) => (item: TextItem) => styles[item.fontName]?.fontFamily === 'monospace';

/**
 * A page's text as lines: pdf.js's items joined up to each end of line. A line whose baseline is
 * further below the last one's than half again the last one's height, or whose type is of
 * another size, starts a paragraph; one whose every word is set in a fixed-width font is code.
 */
function linesOf(items: readonly (TextItem | object)[], styles: Styles, view: readonly number[]): PdfLine[] {
  const [, bottom, , pageTop] = view;
  const height = pageTop - bottom;
  const lines: PdfLine[] = [];
  let line: TextItem[] = [];
  let lastY: number | null = null;
  let lastHeight = 0;
  const end = () => {
    const text = line.map((item) => item.str).join('');
    if (text) {
      const first = line.find((item) => item.str);
      const y = first ? first.transform[5] : null;
      const written = line.filter((item) => item.str.trim());
      const told = written.filter(telling);
      const deciding = told.length ? told : written;
      const code = deciding.length > 0 && deciding.every(monospace(styles));
      const tallest = Math.max(0, ...written.map((item) => item.height));
      lines.push({
        text,
        // A gap above it, or another size of type than the line above (a heading, or the text under one).
        paragraph:
          y !== null &&
          lastY !== null &&
          lastHeight > 0 &&
          (lastY - y > 1.5 * lastHeight ||
            Math.abs(tallest - lastHeight) > 0.15 * Math.max(tallest, lastHeight)),
        ...(y !== null && height > 0
          ? { top: Math.min(1, Math.max(0, (pageTop - y - tallest) / height)) }
          : {}),
        ...(tallest > 0 ? { size: tallest } : {}),
        code,
        ...(code ? setOut(line, styles) : {}),
      });
      if (y !== null) [lastY, lastHeight] = [y, tallest];
    }
    line = [];
  };
  for (const item of items) {
    if (!('str' in item)) continue;
    line.push(item);
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

/**
 * A line of code as it is set: each item at the column its position gives, counted in the width of
 * the font's characters, so the runs of spaces pdf.js gives as one item, or none, come back.
 */
function setOut(
  items: readonly TextItem[],
  styles: Styles,
): Partial<Pick<PdfLine, 'text' | 'x' | 'charWidth'>> {
  // Not the spaces around words: pdf.js gives a run of them as one space as wide as the run.
  const fixed = items.filter((item) => item.str && item.str.trim() === item.str && monospace(styles)(item));
  const charWidth =
    fixed.reduce((w, item) => w + item.width, 0) / fixed.reduce((n, item) => n + item.str.length, 0);
  const written = items.filter((item) => item.str.trim());
  if (!(charWidth > 0) || !written.length) return {};
  const x = written[0].transform[4];
  let text = '';
  for (const item of written) {
    // Past where the text has got to: the gap is the spaces set there; an overlap joins as written.
    const gap = Math.round((item.transform[4] - x) / charWidth) - text.length;
    text += ' '.repeat(Math.max(gap, 0)) + item.str;
  }
  return { text, x, charWidth };
}

/** The outline with each entry's page, at most MAX_OUTLINE_ENTRIES entries. */
async function outlineOf(doc: PdfDoc): Promise<PdfOutlineEntry[]> {
  let budget = MAX_OUTLINE_ENTRIES;
  const NOWHERE = { page: null, top: null };
  const placeOf = async (dest: unknown): Promise<{ page: number | null; top: number | null }> => {
    try {
      const explicit: unknown = typeof dest === 'string' ? await doc.getDestination(dest) : dest;
      if (!Array.isArray(explicit)) return NOWHERE;
      const target: unknown = explicit[0];
      const index =
        typeof target === 'number'
          ? target
          : target && typeof target === 'object' && 'num' in target
            ? await doc.getPageIndex(target as { num: number; gen: number })
            : null;
      if (index === null) return NOWHERE;
      // The height a destination names (PDF 32000 12.3.2.2): XYZ's top, FitH's and FitBH's, FitR's top.
      const kind = (explicit[1] as { name?: string } | null)?.name;
      const y: unknown =
        kind === 'XYZ'
          ? explicit[3]
          : kind === 'FitH' || kind === 'FitBH'
            ? explicit[2]
            : kind === 'FitR'
              ? explicit[5]
              : null;
      if (typeof y !== 'number') return { page: index + 1, top: null };
      const [, bottom, , top] = (await doc.getPage(index + 1)).view;
      const height = top - bottom;
      return { page: index + 1, top: height > 0 ? Math.min(1, Math.max(0, (top - y) / height)) : null };
    } catch {
      // A destination that names no page of this file: the entry keeps its title only.
      return NOWHERE;
    }
  };
  type Raw = { title: string; dest: unknown; items: Raw[] };
  const walk = async (raw: readonly Raw[]): Promise<PdfOutlineEntry[]> => {
    const entries: PdfOutlineEntry[] = [];
    for (const item of raw) {
      if (budget-- <= 0) break;
      entries.push({ title: item.title, ...(await placeOf(item.dest)), items: await walk(item.items ?? []) });
    }
    return entries;
  };
  return walk(((await doc.getOutline()) ?? []) as Raw[]);
}

/**
 * The first `maxPages` pages of a PDF as lines, its title and, when `outline`, its bookmarks;
 * a refusal when it would inflate past MAX_PDF_INFLATED_BYTES, is encrypted, takes pdf.js longer
 * than `stepMs` for one step, grows the process's memory past `memoryBytes`, or is no PDF pdf.js
 * can read.
 */
export async function readPdf(
  bytes: Uint8Array,
  {
    maxPages = Infinity,
    outline = false,
    stepMs = PDF_STEP_MS,
    memoryBytes = PDF_MEMORY_BYTES,
  }: {
    maxPages?: number;
    outline?: boolean;
    stepMs?: number;
    memoryBytes?: number;
  } = {},
): Promise<PdfDocument | PdfRefusal> {
  const refusal = await streamRefusal(bytes);
  if (refusal) return refusal;
  let doc: PdfDoc | undefined;
  try {
    doc = await openPdf(bytes, stepMs, memoryBytes);
    const pages: PdfPage[] = [];
    for (let number = 1; number <= Math.min(doc.numPages, maxPages); number++) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent();
      pages.push({
        number,
        lines: linesOf(content.items as (TextItem | object)[], content.styles as Styles, page.view),
      });
      page.cleanup();
    }
    const { info, metadata } = (await doc.getMetadata().catch(() => ({ info: {}, metadata: null }))) as {
      info: { Title?: unknown };
      metadata: { get(name: string): unknown } | null;
    };
    const title = [info.Title, metadata?.get('dc:title')].find(
      (t): t is string => typeof t === 'string' && !!t.trim(),
    );
    return {
      title: title?.trim() ?? null,
      totalPages: doc.numPages,
      pages,
      outline: outline ? await outlineOf(doc).catch(() => []) : [],
    };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const refusals: Record<string, PdfRefusal> = {
      SlowPdf: 'slow',
      HeavyPdf: 'heavy',
      PasswordException: 'encrypted',
    };
    return refusals[name] ?? 'unreadable';
  } finally {
    await doc?.destroy().catch(() => {});
  }
}

/**
 * The text of the first `maxPages` pages, page by page, or why it was not read: the file is no
 * PDF pdf.js can read, is encrypted, or would inflate past MAX_PDF_INFLATED_BYTES.
 */
export async function pdfText(bytes: Uint8Array, maxPages: number): Promise<PdfText | PdfRefusal> {
  const read = await readPdf(bytes, { maxPages });
  if (typeof read === 'string') return read;
  return {
    text: read.pages
      .map((page) =>
        page.lines
          .map((line) => line.text)
          .join('\n')
          .trim(),
      )
      .join('\n\n')
      .trim(),
    pages: read.pages.length,
    totalPages: read.totalPages,
  };
}
