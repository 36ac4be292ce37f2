import { Lexer, type Token } from 'marked';

const OPTIONS = { gfm: true, breaks: false } as const;
/** Frozen blocks are handed out in groups of this size, each a stable array once full. */
export const GROUP_SIZE = 64;

export interface MarkdownView {
  /** Settled blocks. A full group never changes identity, so renderers can skip it. */
  groups: readonly (readonly Token[])[];
  /** The last block, still growing. */
  tail: readonly Token[];
}

function lex(text: string): Token[] {
  return new Lexer(OPTIONS).lex(text);
}

/**
 * Lexes a growing markdown answer without re-reading what is settled.
 *
 * Appending text can only change the *last* block (a paragraph that becomes a heading, a
 * fence that closes, a list that grows), so every block before it is frozen: its token
 * objects are kept as they are. Each update lexes from the start of the last block only, so
 * the cost per chunk stays flat however long the answer gets. `finish()` lexes the whole text
 * once, for exact CommonMark results (link reference definitions included).
 */
export class IncrementalMarkdown {
  private groups: Token[][] = [];
  private frozenLength = 0;
  private text = '';
  private view: MarkdownView = { groups: [], tail: [] };

  update(text: string): MarkdownView {
    if (text === this.text) return this.view;
    if (!text.startsWith(this.text)) this.reset();
    this.text = text;
    const tail = lex(text.slice(this.frozenLength));
    let lastBlock = tail.length - 1;
    while (lastBlock > 0 && tail[lastBlock].type === 'space') lastBlock -= 1;
    for (let i = 0; i < lastBlock; i += 1) this.freeze(tail[i]);
    this.view = { groups: [...this.groups], tail: tail.slice(Math.max(lastBlock, 0)) };
    return this.view;
  }

  finish(text: string): MarkdownView {
    this.reset();
    this.text = text;
    for (const token of lex(text)) this.freeze(token);
    this.view = { groups: [...this.groups], tail: [] };
    return this.view;
  }

  private freeze(token: Token): void {
    const last = this.groups.at(-1);
    // A group being filled is copied on write, so a renderer holding the old array sees a change.
    if (last && last.length < GROUP_SIZE) this.groups[this.groups.length - 1] = [...last, token];
    else this.groups.push([token]);
    this.frozenLength += token.raw.length;
  }

  private reset(): void {
    this.groups = [];
    this.frozenLength = 0;
    this.text = '';
    this.view = { groups: [], tail: [] };
  }
}
