import { Lexer, type Token, type TokensList } from 'marked';
import { whenIdle } from '../internal/when-idle.js';

/** A block token of the markdown (marked's lexer shape). */
export type MarkdownNode = Token;
/** Link reference definitions, by normalised label. */
export type LinkMap = TokensList['links'];

/**
 * Past this many characters an answer is no longer parsed as markdown: the rest is shown as
 * plain text. marked is about linear, but hostile shapes (runs of code spans, brackets, e-mail
 * lookalikes) cost 10-40 ms per 32 KB on a loaded 2-core machine; the cap keeps any parse of one
 * answer inside 50 ms whatever the agent sends. Real answers are rarely past 8 KB.
 */
export const MARKDOWN_LIMIT = 32 * 1024;

/**
 * Past this many elements an answer's markdown also ends (the rest is plain text): creating a
 * DOM node through a template costs several µs, so 32 KB made of 6,000 code spans or links
 * would be a long task however fast the lexer is. A real 32 KB answer makes about 1,300.
 */
export const ELEMENT_LIMIT = 2500;

/** Quotes nest at most this deep (real answers rarely pass 3); deeper `>` stay as text. */
const MAX_QUOTE_DEPTH = 8;
/** List items indented past this many columns (8 levels of 4) are held at that depth. */
const MAX_ITEM_INDENT = 32;

const OPTIONS = { gfm: true, breaks: false, silent: true } as const;

const DEEP_QUOTE = new RegExp(`^((?:[ \\t]*>){${MAX_QUOTE_DEPTH}})([ \\t>]+)`, 'gm');
const DEEP_ITEM = new RegExp(`^([ \\t>]{${MAX_ITEM_INDENT}})([ \\t]+)((?:[-+*]|\\d{1,9}[.)])(?:[ \\t].*)?)$`, 'gm');

/**
 * marked re-lexes a container's content once per level, so 200 nested quotes or list items cost
 * 200 passes over the same text. Markers past those limits are made inert without changing the
 * text's length (token spans must keep matching the answer): deep `>` become `›`, and a deep
 * list item's extra indentation moves to the end of its line as no-break spaces, so it becomes
 * a sibling at the deepest level kept.
 */
export function defuseNesting(text: string): string {
  return text
    .replace(DEEP_QUOTE, (_, kept: string, rest: string) => kept + rest.replace(/>/g, '›'))
    .replace(DEEP_ITEM, (_, kept: string, extra: string, item: string) => kept + item + '\u00a0'.repeat(extra.length));
}

/**
 * Lexes markdown blocks with their inline tokens. `links` are definitions already known from
 * earlier (settled) text; the definitions found here are added to the returned list's `links`.
 * marked's lexer is pure: it produces tokens, and nothing here ever turns them into HTML.
 */
export function lex(text: string, links?: LinkMap): TokensList {
  const lexer = new Lexer(OPTIONS);
  if (links) Object.assign(lexer.tokens.links, links);
  return lexer.lex(defuseNesting(text));
}

const TEXT_ONLY = new Set(['text', 'escape', 'space', 'def']);

/** How many elements a token renders to, about: every token but plain text is one or more. */
export function elementCount(token: MarkdownNode): number {
  let count = TEXT_ONLY.has(token.type) ? 0 : 1;
  if ('tokens' in token && token.tokens) for (const child of token.tokens) count += elementCount(child);
  if (token.type === 'list') for (const item of token.items) count += elementCount(item);
  if (token.type === 'table') {
    for (const cell of token.header) count += 1 + cell.tokens.reduce((n: number, t: MarkdownNode) => n + elementCount(t), 0);
    for (const row of token.rows) for (const cell of row) count += 1 + cell.tokens.reduce((n: number, t: MarkdownNode) => n + elementCount(t), 0);
    count += token.rows.length;
  }
  return count;
}

/** Where the markdown part of an answer ends: at the limit, moved back to a line start. */
export function markdownEnd(text: string): number {
  if (text.length <= MARKDOWN_LIMIT) return text.length;
  const lineStart = text.lastIndexOf('\n', MARKDOWN_LIMIT) + 1;
  return lineStart > MARKDOWN_LIMIT / 2 ? lineStart : MARKDOWN_LIMIT;
}

/** Small texts that between them run every regular expression an answer is likely to need. */
const WARM_UP = ['Text.', 'Some *em*, **strong**, _em_ and ~~del~~.', '`code` [link](https://x.test) www.x.test a@x.test', '- item\n1. item\n> quote\n# Heading\n\n| a |\n|---|\n| b |\n\n```\ncode\n```'];
let warmed = false;

/**
 * The first lex compiles marked's large regular expressions: 20-90 ms on a 2-core machine,
 * which would otherwise land in the first answer's first frame. Done once per page, a piece
 * per idle callback, before any answer arrives.
 */
export function warmUpMarkdown(): void {
  if (warmed) return;
  warmed = true;
  const next = (i: number) => whenIdle(() => {
    lex(WARM_UP[i]);
    if (i + 1 < WARM_UP.length) next(i + 1);
  }, 2000);
  next(0);
}
