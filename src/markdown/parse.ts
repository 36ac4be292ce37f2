import { Lexer, type Token, type TokensList } from 'marked';

/** A block token of the markdown (marked's lexer shape). */
export type MarkdownNode = Token;
/** Link reference definitions, by normalised label. */
export type LinkMap = TokensList['links'];

/**
 * Past this many characters an answer is no longer parsed as markdown: the rest is shown as
 * plain text. marked is linear on ordinary text, but a few shapes (long runs of code spans,
 * deeply nested lists) cost tens of ms per 64 KB; the cap keeps every parse of one answer
 * inside a frame budget whatever the agent sends.
 */
export const MARKDOWN_LIMIT = 64 * 1024;

const OPTIONS = { gfm: true, breaks: false, silent: true } as const;

/**
 * Lexes markdown blocks with their inline tokens. `links` are definitions already known from
 * earlier (settled) text; the definitions found here are added to the returned list's `links`.
 * marked's lexer is pure: it produces tokens, and nothing here ever turns them into HTML.
 */
export function lex(text: string, links?: LinkMap): TokensList {
  const lexer = new Lexer(OPTIONS);
  if (links) Object.assign(lexer.tokens.links, links);
  return lexer.lex(text);
}

/** Where the markdown part of an answer ends: at the limit, moved back to a line start. */
export function markdownEnd(text: string): number {
  if (text.length <= MARKDOWN_LIMIT) return text.length;
  const lineStart = text.lastIndexOf('\n', MARKDOWN_LIMIT) + 1;
  return lineStart > MARKDOWN_LIMIT / 2 ? lineStart : MARKDOWN_LIMIT;
}
