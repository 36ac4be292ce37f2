import { chunkStarts, parseBlocks, type MarkdownNode } from './parse.js';

/** Frozen nodes are handed out in groups of this size, each a stable array once full. */
export const GROUP_SIZE = 64;

export interface MarkdownView {
  /** Settled blocks. A full group never changes identity, so renderers can skip it. */
  groups: readonly (readonly MarkdownNode[])[];
  /** The last chunk, still growing. */
  tail: readonly MarkdownNode[];
}

/**
 * Parses a growing markdown answer without re-reading what is settled.
 *
 * The text is cut into chunks at blank lines that cannot belong to the block before them
 * (see chunkStarts); a chunk followed by another one can no longer change, so it is parsed
 * once and its nodes are kept as they are. Each update parses only the last chunk, so the cost
 * per chunk of stream stays flat however long the answer gets. A finished answer is parsed
 * with the same cuts, so the final render never jumps from the streamed one.
 */
export class IncrementalMarkdown {
  private groups: MarkdownNode[][] = [];
  private frozenLength = 0;
  private text = '';
  private view: MarkdownView = { groups: [], tail: [] };

  update(text: string): MarkdownView {
    if (text === this.text) return this.view;
    if (!this.extends(text)) this.reset();
    this.text = text;
    for (const start of chunkStarts(text, this.frozenLength)) {
      this.freeze(parseBlocks(text.slice(this.frozenLength, start)));
      this.frozenLength = start;
    }
    this.view = { groups: [...this.groups], tail: parseBlocks(text.slice(this.frozenLength)) };
    return this.view;
  }

  /** The answer will not grow any more: its last chunk is settled too. */
  finish(text: string): MarkdownView {
    const { tail } = this.update(text);
    this.freeze(tail);
    this.frozenLength = text.length;
    this.view = { groups: [...this.groups], tail: [] };
    return this.view;
  }

  /**
   * Whether `text` continues the text seen so far. Comparing the whole prefix would cost O(n)
   * per update; answers only ever grow, so the last characters are enough to tell an append
   * from a different text.
   */
  private extends(text: string): boolean {
    const seen = this.text.length;
    if (text.length < seen) return false;
    const from = Math.max(0, seen - 64);
    return text.slice(from, seen) === this.text.slice(from) && text.slice(0, 64) === this.text.slice(0, 64);
  }

  private freeze(nodes: readonly MarkdownNode[]): void {
    for (const node of nodes) {
      const last = this.groups.at(-1);
      // A group being filled is copied on write, so a renderer holding the old array sees a change.
      if (last && last.length < GROUP_SIZE) this.groups[this.groups.length - 1] = [...last, node];
      else this.groups.push([node]);
    }
  }

  private reset(): void {
    this.groups = [];
    this.frozenLength = 0;
    this.text = '';
    this.view = { groups: [], tail: [] };
  }
}
