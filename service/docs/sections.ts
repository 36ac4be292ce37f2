import type { Section } from './types.js';

/**
 * Sections longer than this many characters (about 1,000 tokens) are cut into parts at paragraph
 * ends: a prompt's budget then holds several of the best parts instead of one long section, and
 * BM25 compares parts of like length.
 */
const MAX_SECTION_CHARS = 4_000;

/** `section` as parts of at most `max` characters, cut between blocks (inside one only when it alone is longer). */
export function splitLong(section: Section, max = MAX_SECTION_CHARS): Section[] {
  if (section.text.length <= max) return [section];
  const parts: string[] = [];
  let part = '';
  for (const block of section.text.split(/\n\n+/)) {
    const pieces = block.length <= max ? [block] : cut(block, max);
    for (const piece of pieces) {
      if (part && part.length + 2 + piece.length > max) {
        parts.push(part);
        part = '';
      }
      part = part ? `${part}\n\n${piece}` : piece;
    }
  }
  if (part) parts.push(part);
  return parts.map((text) => ({ ...section, text }));
}

/**
 * A block longer than `max`, cut at line ends, else at spaces, else anywhere; a code block's parts
 * stay fenced (in its language), and a table's parts each start with its header.
 */
function cut(block: string, max: number): string[] {
  const fenced = /^(```[^\n]*)\n([\s\S]*)\n```$/.exec(block);
  if (fenced)
    return cut(fenced[2], max - fenced[1].length - 5).map((code) => `${fenced[1]}\n${code}\n\`\`\``);
  const table = /^(\|[^\n]*\n\|(?: --- \|)+)\n([\s\S]+)$/.exec(block);
  if (table) return cut(table[2], max - table[1].length - 1).map((rows) => `${table[1]}\n${rows}`);
  const out: string[] = [];
  let rest = block;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    let at = window.lastIndexOf('\n');
    if (at < max / 2) at = window.lastIndexOf(' ');
    if (at < max / 2) at = max;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * Code as a section's text writes it: fenced, in its language when known, with a fence inside it
 * broken by a zero-width space so it cannot end the block.
 */
export const fence = (code: string, language = '') =>
  `\`\`\`${language}\n${code.replaceAll('```', '`\u200b``')}\n\`\`\``;

/**
 * The place a section is in, as an answer cites it and the first sections of a search are told
 * apart: its page, whose anchors are places within one document; or, for a PDF, the PDF's page
 * (`#page=N`), which a viewer opens: a 300-page manual was cited once however many of its pages
 * answered. (A PDF is still ranked as one page: ranked by its pages, doxygen's manual found
 * page 38 eighth instead of third.)
 */
export const placeOf = (section: Section): string =>
  section.url.startsWith(`${section.pageUrl}#page=`) ? section.url : section.pageUrl;

/** What a section is called on the wire (`section`): its deepest heading, or null for the part under the title. */
export const sectionName = (section: Section): string | null => section.headings.at(-1) ?? null;

/**
 * The start of a section's text as plain words, for a list of results to show (the console's
 * search): code fences, table rules, emphasis and link targets out, since the text is Markdown,
 * cut at a word's end within `max` characters.
 */
export function excerpt(text: string, max = 280): string {
  const plain = text
    .replace(/^```.*$/gm, '')
    .replace(/^\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$/gm, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\n{2,}/g, '\n')
    .trim();
  if (plain.length <= max) return plain;
  const end = plain.lastIndexOf(' ', max);
  return `${plain.slice(0, end > max / 2 ? end : max)}…`;
}
