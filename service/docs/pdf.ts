import { readBounded } from '../kernel/bounded-body.js';
import {
  MAX_PDF_INFLATED_BYTES,
  PDF_MEMORY_BYTES,
  PDF_STEP_MS,
  readPdf,
  type PdfLine,
  type PdfOutlineEntry,
  type PdfPage,
} from '../kernel/pdf.js';
import { fence, splitLong } from './sections.js';
import type { ExtractedPage, Section } from './types.js';

/**
 * A PDF (a manual, a datasheet, an installation guide) as a page of sections, a PDF page's
 * part under each bookmark that starts on it, at `url#page=N`, the address Chrome's and Firefox's
 * viewers open at that page. A section's headings are its bookmark with its parents, so a visitor
 * reads "Installation › Requirements" under the title rather than "Page 7"; a PDF without
 * bookmarks gives a section a page, "Page N". A page without text (a scan) gives no section.
 */

/** Why a PDF with pages but no text on any of them is not indexed. */
export const NO_TEXT = 'no text: a scanned PDF? it has no text layer to index';

/**
 * A Title a writer meant: not empty, not "Untitled", not what a converter leaves there (a file
 * name, "Microsoft Word - guide.docx").
 */
function ownTitle(title: string | null): string | null {
  const text = title?.replace(/\s+/g, ' ').trim();
  if (!text) return null;
  if (/^(untitled|document\d*|title|no title)\b/i.test(text)) return null;
  if (/^microsoft \w+ - /i.test(text)) return null;
  if (/\.(pdf|docx?|odt|rtf|pptx?|odp|xlsx?|tex|dvi|ps|indd|pages|txt|html?|md)$/i.test(text)) return null;
  return text;
}

/**
 * A file name as a title: without its extension, `_` and `-` as spaces ("doxygen_manual.pdf" is
 * "doxygen manual"). A first bookmark is no better: it is "Contents", "Cover" or a part's number
 * ("I User Manual") as often as the document's name.
 */
const nameTitle = (name: string) =>
  name
    .replace(/\.pdf$/i, '')
    .replace(/[_-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim() || name;

/**
 * Where a part of the document starts: its page, how far down it (0 the top, 1 the bottom) the
 * first line whose top edge is at or below it, and its heading with its parents.
 */
type Mark = { page: number; top: number; path: string[] };

/** The outline's bookmarks, each with its parents' titles, in the order they start in the document. */
function marksOf(outline: readonly PdfOutlineEntry[]): Mark[] {
  const marks: Mark[] = [];
  const walk = (entries: readonly PdfOutlineEntry[], parents: string[]) => {
    for (const entry of entries) {
      const title = entry.title.replace(/\s+/g, ' ').trim();
      const path = title ? [...parents, title] : parents;
      if (entry.page !== null && title)
        marks.push({ page: entry.page, top: (entry.top ?? 0) - MARK_SLACK, path });
      walk(entry.items, path);
    }
  };
  walk(outline, []);
  // Stable: a chapter and its first section at one place stay in the outline's order.
  return marks.sort((a, b) => a.page - b.page || a.top - b.top);
}

/**
 * How far above a line's top edge a bookmark may point and still start at that line: a
 * heading's anchor is set a little above it, and a page's units are not exact.
 */
const MARK_SLACK = 0.01;

/**
 * A PDF without bookmarks (bzip2's manual, a Word document saved without them) has its headings
 * in its type: a short line that starts a paragraph in type at least 15 % larger than the size
 * most of its text is set in. Each is a mark where it starts, a larger size above a smaller
 * (the title, a chapter, a section), as the outline would give.
 */
function marksFromType(pages: readonly { page: number; lines: readonly PdfLine[] }[]): Mark[] {
  const chars = new Map<number, number>();
  for (const { lines } of pages)
    for (const line of lines)
      if (line.size) chars.set(round(line.size), (chars.get(round(line.size)) ?? 0) + line.text.length);
  const body = [...chars].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!body) return [];
  const heading = (line: PdfLine, first: boolean) =>
    !!line.size &&
    line.size >= 1.15 * body &&
    (line.paragraph || first) &&
    !line.code &&
    line.top !== undefined &&
    /\p{L}/u.test(line.text) &&
    line.text.trim().length <= 100;
  const marks: Mark[] = [];
  const open: { size: number; title: string }[] = [];
  for (const { page, lines } of pages)
    lines.forEach((line, i) => {
      if (!heading(line, i === 0)) return;
      const size = round(line.size!);
      while (open.length && open.at(-1)!.size <= size) open.pop();
      open.push({ size, title: line.text.replace(/\s+/g, ' ').trim() });
      marks.push({ page, top: line.top!, path: open.map((o) => o.title) });
    });
  return marks;
}
const round = (size: number) => Math.round(size * 2) / 2;

/**
 * A page's lines cut where its bookmarks start, each part headed by the bookmark in force there
 * (with its parents): the one started last before the part, on an earlier page for the page's
 * first part. A part that is its heading and little else (a chapter's title, then its first
 * section) joins the next, under the next's heading. Parts before any bookmark have none.
 */
function partsOf(
  lines: readonly PdfLine[],
  inForce: string[] | null,
  starts: readonly Mark[],
): { headings: string[] | null; lines: PdfLine[] }[] {
  const parts = [{ headings: inForce, lines: [] as PdfLine[] }];
  let next = 0;
  for (const line of lines) {
    while (next < starts.length && (line.top ?? 1) >= starts[next].top) {
      parts.push({ headings: starts[next++].path, lines: [] });
    }
    parts.at(-1)!.lines.push(line);
  }
  const kept: typeof parts = [];
  let carried: PdfLine[] = [];
  parts.forEach((part, i) => {
    const lines = [...carried, ...part.lines];
    carried = [];
    const chars = lines.reduce((n, line) => n + line.text.trim().length, 0);
    // The page's first part goes on from the page before: however short, it is that heading's.
    if (i > 0 && i < parts.length - 1 && chars <= (part.headings?.at(-1)?.length ?? 0) + 24) carried = lines;
    else if (lines.some((line) => line.text.trim())) kept.push({ headings: part.headings, lines });
  });
  return kept;
}

/**
 * A page's lines as plain paragraphs: a word hyphenated at a line's end joined again, lines of
 * one paragraph joined with a space, runs of spaces (and a table of contents' dot leaders) as one;
 * lines in a fixed-width font as a code block.
 */
function pageText(lines: readonly PdfLine[]): string {
  const blocks: string[] = [];
  let paragraph = '';
  let code: PdfLine[] = [];
  const endParagraph = () => {
    const text = paragraph
      .replace(/\u00ad/g, '')
      .replace(/(?: ?\.){4,}/g, ' … ')
      .replace(/ {2,}/g, ' ')
      .trim();
    if (text) blocks.push(text);
    paragraph = '';
  };
  // Lines in a fixed-width font, kept as they are: a command's or a listing's line breaks matter.
  const endCode = () => {
    if (code.length) blocks.push(fence(indented(code)));
    code = [];
  };
  for (const read of lines) {
    const { text, paragraph: starts, code: fixed } = read;
    if (fixed && text.trim()) {
      endParagraph();
      code.push(read);
      continue;
    }
    endCode();
    const line = text.replace(/\s+/g, ' ').trim();
    if (!line || starts) {
      endParagraph();
      if (!line) continue;
    }
    if (!paragraph) paragraph = line;
    // "instal-" then "lation": one word; "well-" then "Known" or "-" alone: kept as written.
    else if (/[a-z]-$/i.test(paragraph) && /^[a-z]/.test(line)) paragraph = paragraph.slice(0, -1) + line;
    else if (paragraph.endsWith('\u00ad')) paragraph = paragraph.slice(0, -1) + line;
    else paragraph += ` ${line}`;
  }
  endParagraph();
  endCode();
  return blocks.join('\n\n');
}

/** A line's form with its numbers as `#`: "Chapter 4: Function reference 16" is "Chapter #: Function reference #". */
const form = (line: PdfLine) => line.text.replace(/\s+/g, ' ').trim().replace(/\d+/g, '#');
/**
 * The forms of the lines a PDF repeats as its pages' first or last line, its running heads and
 * feet ("Chapter 4: Function reference 16", a page number alone): on at least 3 pages and 1 in
 * 10, they are the page's furniture, not its content, and were the first words of every section.
 */
function runningLines(pages: readonly PdfPage[]): Set<string> {
  const count = new Map<string, number>();
  for (const page of pages) {
    const text = page.lines.filter((line) => line.text.trim());
    for (const key of new Set([text[0], text.at(-1)].filter((line) => !!line).map(form)))
      count.set(key, (count.get(key) ?? 0) + 1);
  }
  const least = Math.max(3, pages.length / 10);
  return new Set([...count].filter(([, n]) => n >= least).map(([key]) => key));
}

/** A page's lines without the running ones at its top and bottom (up to two each: a head and a subhead). */
function withoutRunningLines(lines: readonly PdfLine[], furniture: ReadonlySet<string>): PdfLine[] {
  const text = lines.filter((line) => line.text.trim());
  const dropped = new Set<PdfLine>();
  for (const end of [text, [...text].reverse()])
    for (const line of end.slice(0, 2)) {
      if (!furniture.has(form(line))) break;
      dropped.add(line);
    }
  return lines.filter((line) => !dropped.has(line));
}

/**
 * `bytes`, a PDF served at `url`, as a page: titled by its own Title when it has a real one,
 * else by `fallbackTitle`, its file name, as words. A string when it is not
 * indexed, saying why.
 */
export async function extractPdf(
  bytes: Uint8Array,
  url: string,
  fallbackTitle: string,
  maxPages = MAX_PDF_PAGES,
): Promise<ExtractedPage | string> {
  const read = await readPdf(bytes, { outline: true, maxPages });
  if (read === 'inflates')
    return `its streams would inflate past ${MAX_PDF_INFLATED_BYTES / 1_000_000} MB: not read`;
  if (read === 'encrypted')
    return 'the PDF is encrypted (a password or permissions): publish it without encryption to index it';
  if (read === 'slow')
    return `a step of reading it took more than ${PDF_STEP_MS / 1000} s (a page built to keep the reader busy): not read`;
  if (read === 'heavy')
    return `reading it took more than ${PDF_MEMORY_BYTES / 1_000_000} MB of memory (an image built to be decoded): not read`;
  if (read === 'unreadable') return 'not a PDF that could be read';
  const title = ownTitle(read.title) ?? nameTitle(fallbackTitle);
  const furniture = runningLines(read.pages);
  const pages = read.pages.map((page) => ({
    page: page.number,
    lines: withoutRunningLines(page.lines, furniture),
  }));
  const marks = read.outline.length ? marksOf(read.outline) : marksFromType(pages);
  const sections: Section[] = [];
  // The marks are in document order: each page takes those that start on it, once.
  let inForce: string[] | null = null;
  let next = 0;
  for (const page of pages) {
    while (next < marks.length && marks[next].page < page.page) inForce = marks[next++].path;
    const first = next;
    while (next < marks.length && marks[next].page === page.page) next++;
    for (const part of partsOf(page.lines, inForce, marks.slice(first, next))) {
      const text = pageText(part.lines);
      if (!text) continue;
      sections.push(
        ...splitLong({
          url: `${url}#page=${page.page}`,
          pageUrl: url,
          title,
          headings: part.headings ?? [`Page ${page.page}`],
          text,
        }),
      );
    }
    if (next > first) inForce = marks[next - 1].path;
  }
  if (!sections.length) return NO_TEXT;
  return { title, sections, links: [], canonical: null, noindex: false, nofollow: false };
}

const size = (bytes: number) =>
  bytes < 1_000_000
    ? `${Math.round(bytes / 1024).toLocaleString('en')} KB`
    : `${(bytes / 1_000_000).toLocaleString('en', { maximumFractionDigits: 1 })} MB`;

/**
 * A block of code lines, each indented by how far right of the block's leftmost line it starts,
 * in its font's characters: Python's blocks, a nested brace, a continued command.
 */
function indented(lines: readonly PdfLine[]): string {
  const placed = lines.filter((line) => line.x !== undefined && line.charWidth);
  const left = Math.min(...placed.map((line) => line.x!));
  return lines
    .map((line) => {
      const column =
        line.x === undefined || !line.charWidth ? 0 : Math.round((line.x - left) / line.charWidth);
      return ' '.repeat(column) + line.text.trimEnd();
    })
    .join('\n');
}

/** The last part of a URL's path, its escapes decoded where they are UTF-8. */
function fileName(url: string): string {
  const name = new URL(url).pathname.split('/').pop()!;
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * Pages of a PDF indexed at most (decision 653): pdf.js finds a page by walking the page tree,
 * so a file of many small pages costs more than its size says (20,000 pages in 6 MB took 160 s;
 * 5,000, 6 s). Manuals run to a few thousand pages.
 */
export const MAX_PDF_PAGES = 5_000;

/** Why a PDF over `maxBytes` is not indexed (it is not read). */
export const overCap = (maxBytes: number) => `the PDF is over ${size(maxBytes)}: not indexed`;

/** A crawled PDF, read up to `maxBytes` (a larger one is refused unread), as a page; a string when it is not indexed. */
export async function readPdfResponse(
  response: Response,
  url: string,
  maxBytes: number,
  maxPages = MAX_PDF_PAGES,
): Promise<ExtractedPage | string> {
  const bytes = await readBounded(response, maxBytes);
  if (!bytes) return overCap(maxBytes);
  return extractPdf(bytes, url, fileName(url), maxPages);
}
