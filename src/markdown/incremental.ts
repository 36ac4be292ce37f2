import { completeTail } from './complete.js';
import { ELEMENT_LIMIT, MarkdownEnd, elementCount, lex, type LinkMap, type MarkdownNode } from './parse.js';

/** Settled blocks are handed out in groups of this size, each a stable array once full. */
export const GROUP_SIZE = 64;
/** Text past the markdown limit is handed out in pieces of about this size. */
const PLAIN_PIECE = 4096;
/** Full re-lexes allowed while streaming when a late link definition resolves earlier text. */
const RELEX_BUDGET = 4;

export interface MarkdownView {
  /** Settled blocks. A full group never changes identity, so renderers can skip it. */
  groups: readonly (readonly MarkdownNode[])[];
  /** The last block, still growing (mid-stream: with its open syntax closed, see completeTail). */
  tail: readonly MarkdownNode[];
  /** What lies past MARKDOWN_LIMIT, as plain-text pieces; settled pieces keep their value. */
  overflow: readonly string[];
}

const EMPTY: MarkdownView = { groups: [], tail: [], overflow: [] };

/**
 * Lexes a growing markdown answer without re-reading what is settled.
 *
 * In CommonMark, appending text can change only the last block (a paragraph that becomes a
 * setext heading or a table, a list that grows, a fence that closes), so each update lexes from
 * the start of the last block and settles every block before it: their tokens are kept as they
 * are and never lexed again. The one exception is a link reference definition, which can turn
 * `[text]` earlier in the answer into a link: a new definition after settled text that holds a
 * `[` makes the whole answer be lexed again (a few times while streaming, always at the end), so
 * the final rendering is exactly that of the whole text.
 */
export class IncrementalMarkdown {
  #groups: MarkdownNode[][] = [];
  #frozenLength = 0;
  #links: LinkMap = Object.create(null);
  #frozenHasBracket = false;
  #stale = false;
  #relexes = 0;
  #elements = 0;
  /** Where the markdown ended because of ELEMENT_LIMIT; the rest of the answer is plain text. */
  #cut = Infinity;
  #text = '';
  #finished = false;
  #overflow: string[] = [];
  #overflowFrom = 0;
  #view: MarkdownView = EMPTY;
  #end = new MarkdownEnd();

  update(text: string): MarkdownView {
    return this.#advance(text, false);
  }

  /** The answer will not grow any more: its last block is settled too. */
  finish(text: string): MarkdownView {
    return this.#advance(text, true);
  }

  #advance(text: string, final: boolean): MarkdownView {
    if (text === this.#text && (this.#finished || !final)) return this.#view;
    // A finished answer that grows again (a reattach after a drop, §9) settled its last block
    // too early: that block may continue, so everything is lexed again from the start.
    if (this.#text && (this.#finished || !this.#extends(text))) this.#reset();
    this.#text = text;
    this.#finished = final;
    const markdown = text.slice(0, Math.min(this.#end.of(text), this.#cut));
    const whole = this.#frozenLength === 0;
    if (!whole && this.#stale && this.#relexes < RELEX_BUDGET) return this.#relex(text, final);
    const tokens = lex(markdown.slice(this.#frozenLength), this.#links);
    const lateDefinition =
      this.#frozenHasBracket && Object.keys(tokens.links).some((label) => !(label in this.#links));
    let last = tokens.length - 1;
    while (last > 0 && tokens[last].type === 'space') last -= 1;
    // Past the limit the markdown part cannot grow any more: all of it is settled.
    const settled = final || markdown.length < text.length ? tokens.length : Math.max(last, 0);
    for (let i = 0; i < settled && this.#cut === Infinity; i += 1) this.#freeze(tokens[i], whole);
    if (final && !whole && (this.#stale || lateDefinition)) return this.#relex(text, final);
    if (this.#cut !== Infinity) return this.#publish(text, [], this.#cut);
    let tail = tokens.slice(settled);
    // A growing block past the element budget shows as plain text until it settles.
    if (tail.reduce((n, token) => n + elementCount(token), this.#elements) > ELEMENT_LIMIT)
      return this.#publish(text, [], this.#frozenLength);
    if (tail.length) {
      const raw = tail.map((token) => token.raw).join('');
      const completed = completeTail(raw);
      if (completed !== raw) tail = lex(completed, this.#links);
    }
    return this.#publish(text, tail, markdown.length);
  }

  #publish(text: string, tail: readonly MarkdownNode[], plainFrom: number): MarkdownView {
    this.#view = { groups: [...this.#groups], tail, overflow: this.#plainPieces(text, plainFrom) };
    return this.#view;
  }

  /** Lexes the whole markdown again, so a late definition resolves the text before it. */
  #relex(text: string, final: boolean): MarkdownView {
    this.#resetTokens();
    this.#text = '';
    return this.#advance(text, final);
  }

  /**
   * Whether `text` continues the text seen so far. Comparing the whole prefix would cost O(n)
   * per update; answers only ever grow, so the last characters are enough to tell an append
   * from a different text.
   */
  #extends(text: string): boolean {
    const seen = this.#text.length;
    if (text.length < seen) return false;
    const from = Math.max(0, seen - 64);
    return text.slice(from, seen) === this.#text.slice(from) && text.slice(0, 64) === this.#text.slice(0, 64);
  }

  #freeze(token: MarkdownNode, fromWhole: boolean): void {
    const elements = elementCount(token);
    if (this.#elements + elements > ELEMENT_LIMIT) {
      this.#cut = this.#frozenLength;
      return;
    }
    this.#elements += elements;
    if (token.type === 'def' && !(token.tag in this.#links)) {
      this.#links[token.tag] = { href: token.href, title: token.title };
      if (this.#frozenHasBracket && !fromWhole) this.#stale = true;
    }
    this.#frozenHasBracket ||= token.raw.includes('[');
    const last = this.#groups.at(-1);
    // A group being filled is copied on write, so a renderer holding the old array sees a change.
    if (last && last.length < GROUP_SIZE) this.#groups[this.#groups.length - 1] = [...last, token];
    else this.#groups.push([token]);
    this.#frozenLength += token.raw.length;
  }

  /** Past the limit: pieces cut at line ends, all but the last one settled while `from` holds. */
  #plainPieces(text: string, from: number): string[] {
    if (from !== this.#overflowFrom) [this.#overflow, this.#overflowFrom] = [[], from];
    this.#overflow.pop();
    let offset = from + this.#overflow.reduce((sum, piece) => sum + piece.length, 0);
    while (offset < text.length) {
      let end = Math.min(text.length, offset + PLAIN_PIECE);
      const lineEnd = text.lastIndexOf('\n', end);
      if (end < text.length && lineEnd > offset) end = lineEnd + 1;
      this.#overflow.push(text.slice(offset, end));
      offset = end;
    }
    return [...this.#overflow];
  }

  #resetTokens(): void {
    this.#relexes += 1;
    this.#groups = [];
    this.#frozenLength = 0;
    this.#links = Object.create(null);
    this.#frozenHasBracket = false;
    this.#stale = false;
    this.#elements = 0;
    this.#cut = Infinity;
  }

  #reset(): void {
    this.#resetTokens();
    this.#relexes = 0;
    this.#text = '';
    this.#finished = false;
    this.#overflow = [];
    this.#overflowFrom = 0;
    this.#view = EMPTY;
    this.#end = new MarkdownEnd();
  }
}
