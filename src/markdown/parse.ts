import { Lexer, Tokenizer, type Token, type TokensList } from 'marked';
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

/**
 * Quotes and lists opened on one line nest at most this deep (`> > >`, `- - - a`, `1. - > a`;
 * real answers rarely pass 3); deeper markers stay as text.
 */
const MAX_LINE_DEPTH = 8;
/** List items indented past this many columns (8 levels of 4) are held at that depth. */
const MAX_ITEM_INDENT = 32;

/**
 * Delimiter runs an emphasis opener looks through for its closer, about. marked's emphasis rule
 * walks every later `*`/`_` run of the paragraph for each opener, so a paragraph made of
 * thousands of unmatched runs (`__a__a…`, `_a_…`, `*a*a…`) costs quadratic time: 1 s for 32 KB.
 * A paragraph with more runs than this is searched within a window that holds about this many
 * runs (at least this many characters): each opener then does bounded work. Prose never comes
 * near: a paragraph with 64 runs or fewer is searched whole, and the window of a denser one is
 * still far longer than any emphasis a writer closes.
 */
const EMPHASIS_REACH = 64;

/**
 * Trailing punctuation a bare URL looks through, about. GFM gives an autolink's trailing
 * `?!.,:;*_'"~` and unmatched `)` back to the text, and marked does so one character per pass
 * over the whole link: `https://a.test` and 32,000 `)` (or `.,`) took 0.5 s in Node and 1 s in
 * the widget. A URL with a longer trailing run is taken as ending this far into it, so the run
 * is given back in bounded passes; a link never ends in 64 punctuation marks.
 */
const TRAILING_REACH = 64;
const TRAILING = new Set('?!.,:;*_\'"~)'.split('').map((c) => c.charCodeAt(0)));

/** Emphasis nests at most this deep; a deeper `*` or `_` is text. */
const MAX_EMPHASIS_DEPTH = 16;

/** marked's tokenizer with the emphasis search (EMPHASIS_REACH) and a URL's trailing run (TRAILING_REACH) bounded. */
class BoundedTokenizer extends Tokenizer {
  /** Window length per masked paragraph; a lex() call starts afresh. */
  readonly reach = new Map<string, number>();

  /** Emphasis being lexed inside emphasis: marked recurses once per level (1,000 nested `**` overflowed). */
  #depth = 0;

  override emStrong(src: string, maskedSrc: string, prevChar = ''): ReturnType<Tokenizer['emStrong']> {
    if (this.#depth >= MAX_EMPHASIS_DEPTH) return undefined;
    this.#depth += 1;
    try {
      return this.#boundedEmStrong(src, maskedSrc, prevChar);
    } finally {
      this.#depth -= 1;
    }
  }

  #boundedEmStrong(src: string, maskedSrc: string, prevChar: string): ReturnType<Tokenizer['emStrong']> {
    let reach = this.reach.get(maskedSrc);
    if (reach === undefined) {
      let runs = 0;
      for (const _ of maskedSrc.matchAll(/[*_]+/g)) runs += 1;
      reach = runs <= EMPHASIS_REACH ? Infinity : Math.floor((EMPHASIS_REACH * maskedSrc.length) / runs);
      this.reach.set(maskedSrc, reach);
    }
    if (src.length <= reach) return super.emStrong(src, maskedSrc, prevChar);
    // The same position in a shorter paragraph: marked finds where it is by the lengths'
    // difference and looks back only over the run before it and two characters more.
    const at = maskedSrc.length - src.length;
    let from = at;
    while (from > 0 && maskedSrc[from - 1] === src[0]) from -= 1;
    return super.emStrong(src.slice(0, reach), maskedSrc.slice(Math.max(0, from - 2), at + reach), prevChar);
  }

  override url(src: string): ReturnType<Tokenizer['url']> {
    const found = this.rules.inline.url.exec(src)?.[0];
    if (!found) return undefined;
    let run = found.length;
    while (run > 0 && TRAILING.has(found.charCodeAt(run - 1))) run -= 1;
    return super.url(found.length - run > TRAILING_REACH ? src.slice(0, run + TRAILING_REACH) : src);
  }
}

const tokenizer = new BoundedTokenizer();
const OPTIONS = { gfm: true, breaks: false, silent: true, tokenizer } as const;

/**
 * GFM's e-mail autolinks look ahead from every position through the whole run of characters an
 * address may hold (`[a-zA-Z0-9._+-…]+@`), and `_`, `*` and letters are all such characters:
 * `__a__a…` or `_a_ _a_…` made each position read to the end of the paragraph (1-4 s for 32 KB).
 * An address's local part has at most 64 characters (RFC 5321), so the look-ahead stops there.
 */
const LOCAL_PART = "[a-zA-Z0-9.!#$%&'*+\\/=?_`{\\|}~-]+@";
const URL_LOCAL_PART = '^[A-Za-z0-9._+-]+(@)';

function bounded(pattern: RegExp, unbounded: string): RegExp {
  const bound = unbounded.replace(/\]\+(@|\(@\))$/, ']{1,64}$1');
  // A later marked that writes these rules differently is left as it is (and the hostile-input tests say so).
  return new RegExp(pattern.source.replaceAll(unbounded, bound), pattern.flags);
}

type Rules = Tokenizer['rules'];
let boundedRules: { from: Rules['inline']; rules: Rules } | undefined;

/** The rules the lexer just gave the tokenizer, with the e-mail look-aheads bounded. */
function withBoundedAutolinks(rules: Rules): Rules {
  if (boundedRules?.from !== rules.inline) {
    const inline = {
      ...rules.inline,
      text: bounded(rules.inline.text, LOCAL_PART),
      url: bounded(rules.inline.url, URL_LOCAL_PART),
    };
    boundedRules = { from: rules.inline, rules: { ...rules, inline } };
  }
  return boundedRules.rules;
}

/** A quote marker, or a list marker with the one space or tab that makes it one. */
const CONTAINER = String.raw`[ \t]*(?:>|(?:[-+*]|\d{1,9}[.)])[ \t])`;
const DEEP_LINE = new RegExp(`^((?:${CONTAINER}){${MAX_LINE_DEPTH}})((?:${CONTAINER})+)`, 'gm');
const INERT_MARKER = /(>)|([-+*]|\d{1,9}[.)])[ \t]/g;
const DEEP_ITEM = new RegExp(
  `^([ \\t>]{${MAX_ITEM_INDENT}})([ \\t]+)((?:[-+*]|\\d{1,9}[.)])(?:[ \\t].*)?)$`,
  'gm',
);

/**
 * marked re-lexes a container's content once per level, so 200 nested quotes or list items cost
 * 200 passes over the same text, and it recurses once per level: 2,000 list markers on one line
 * (`- - - … a`, 4 KB) overflowed its stack. Markers past those limits are made inert without
 * changing the text's length (token spans must keep matching the answer): deep `>` become `›`,
 * a deep list marker's space becomes a no-break space (no longer a marker), and a deep list
 * item's extra indentation moves to the end of its line as no-break spaces, so it becomes a
 * sibling at the deepest level kept.
 */
export function defuseNesting(text: string): string {
  return text
    .replace(
      DEEP_LINE,
      (_, kept: string, rest: string) =>
        kept +
        rest.replace(INERT_MARKER, (_m, quote?: string, list?: string) => (quote ? '›' : `${list}\u00a0`)),
    )
    .replace(
      DEEP_ITEM,
      (_, kept: string, extra: string, item: string) => kept + item + '\u00a0'.repeat(extra.length),
    );
}

/**
 * Lexes markdown blocks with their inline tokens. `links` are definitions already known from
 * earlier (settled) text; the definitions found here are added to the returned list's `links`.
 * marked's lexer is pure: it produces tokens, and nothing here ever turns them into HTML.
 */
export function lex(text: string, links?: LinkMap): TokensList {
  const lexer = new Lexer(OPTIONS);
  tokenizer.rules = withBoundedAutolinks(tokenizer.rules);
  if (links) Object.assign(lexer.tokens.links, links);
  tokenizer.reach.clear();
  try {
    return lexer.lex(defuseNesting(text));
  } catch {
    // No input may break an answer: whatever marked cannot lex shows as the text it is.
    return plainTokens(text);
  } finally {
    tokenizer.reach.clear();
  }
}

/** The whole text as one block of raw text (rendered as written, line breaks kept). */
function plainTokens(text: string): TokensList {
  const block = { type: 'html', block: true, pre: false, raw: text, text } as MarkdownNode;
  return Object.assign([block], { links: Object.create(null) as LinkMap });
}

const TEXT_ONLY = new Set(['text', 'escape', 'space', 'def']);

/**
 * A link renders an element with four attributes (href, target, rel, title), each checked on
 * the way: it costs about what three plain elements cost. 12 KB of `a@b.a@b…` makes 1,500
 * links, which took 25-50 ms to render counted as one each.
 */
const LINK_COST = 3;

/** How many elements a token renders to, about (weighted by cost): every token but plain text is one or more. */
export function elementCount(token: MarkdownNode): number {
  let count = TEXT_ONLY.has(token.type) ? 0 : token.type === 'link' ? LINK_COST : 1;
  if ('tokens' in token && token.tokens) for (const child of token.tokens) count += elementCount(child);
  if (token.type === 'list') for (const item of token.items) count += elementCount(item);
  if (token.type === 'table') {
    for (const cell of token.header)
      count += 1 + cell.tokens.reduce((n: number, t: MarkdownNode) => n + elementCount(t), 0);
    for (const row of token.rows)
      for (const cell of row)
        count += 1 + cell.tokens.reduce((n: number, t: MarkdownNode) => n + elementCount(t), 0);
    count += token.rows.length;
  }
  return count;
}

/**
 * Past this many markup characters an answer's markdown also ends. marked spends about a
 * microsecond per inline token, and text that is nothing but syntax (`__a__a…`, `*a*a…`) makes
 * a token every two or three characters: 32 KB of it costs 30-40 ms on a loaded 2-core machine,
 * too close to a long task. A real 32 KB answer holds about 1,400 of these characters.
 */
export const MARKUP_LIMIT = 3072;

/** Characters that can start or end inline syntax (emphasis, code, links, escapes, entities, autolinks). */
const MARKUP = new Uint8Array(128);
for (const c of '*_~`[]\\<!&@') MARKUP[c.charCodeAt(0)] = 1;

/**
 * Where the markdown part of an answer ends: at MARKDOWN_LIMIT characters or MARKUP_LIMIT markup
 * characters, whichever comes first, moved back to a line start. The end never moves once the
 * text has reached it, so a streaming answer settles there.
 */
export function markdownEnd(text: string): number {
  return new MarkdownEnd().of(text);
}

/**
 * markdownEnd for a text that grows: each call counts markup only in what was added since the
 * last, so a streaming answer costs one pass over its first 32 KB in all, not one per update.
 */
export class MarkdownEnd {
  #scanned = 0;
  #markup = 0;
  /** MARKDOWN_LIMIT, or where the markup limit was passed once it has been. */
  #limit = MARKDOWN_LIMIT;

  /** The end for `text`, which extends every text passed before. */
  of(text: string): number {
    for (; this.#scanned < Math.min(text.length, this.#limit); this.#scanned += 1)
      if (MARKUP[text.charCodeAt(this.#scanned)] && ++this.#markup > MARKUP_LIMIT)
        this.#limit = this.#scanned;
    const limit = Math.min(text.length, this.#limit);
    if (limit === text.length) return limit;
    const lineStart = text.lastIndexOf('\n', limit) + 1;
    return lineStart > limit / 2 ? lineStart : limit;
  }
}

/** Small texts that between them run every regular expression an answer is likely to need. */
const WARM_UP = [
  'Text.',
  'Some *em*, **strong**, _em_ and ~~del~~.',
  '`code` [link](https://x.test) www.x.test a@x.test',
  '- item\n1. item\n> quote\n# Heading\n\n| a |\n|---|\n| b |\n\n```\ncode\n```',
];
let warmed = false;

/**
 * The first lex compiles marked's large regular expressions: 20-90 ms on a 2-core machine,
 * which would otherwise land in the first answer's first frame. Done once per page, a piece
 * per idle callback, before any answer arrives.
 */
export function warmUpMarkdown(): void {
  if (warmed) return;
  warmed = true;
  const next = (i: number) =>
    whenIdle(() => {
      lex(WARM_UP[i]);
      if (i + 1 < WARM_UP.length) next(i + 1);
    }, 2000);
  next(0);
}
