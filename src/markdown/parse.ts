import SimpleMarkdown, { type SingleASTNode } from '@khanacademy/simple-markdown';

/** A node of the markdown AST (simple-markdown's shape: `type` plus per-type fields). */
export type MarkdownNode = SingleASTNode;

/**
 * Parses markdown blocks. simple-markdown has no HTML rule at all, so raw HTML in an answer can
 * only ever come out as text nodes.
 */
export function parseBlocks(text: string): MarkdownNode[] {
  return SimpleMarkdown.defaultBlockParse(text);
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
/** Lines that belong to the block before them even after a blank line: indented, list items, quotes. */
const CONTINUATION = /^(?:\s|[-*+]\s|\d{1,9}[.)]\s|>)/;

/**
 * Offsets (after `from`) where a new, independently parseable chunk of blocks starts: a line
 * after a blank line, outside a code fence, that does not continue a list, quote or indented
 * block. Only complete lines are judged, since the last one may still grow. `from` must itself
 * be a chunk start (or 0).
 */
export function chunkStarts(text: string, from = 0): number[] {
  const starts: number[] = [];
  let fence: string | null = null;
  let previousBlank = false;
  let offset = from;
  for (let end = text.indexOf('\n', offset); end !== -1; offset = end + 1, end = text.indexOf('\n', offset)) {
    const line = text.slice(offset, end);
    if (fence) {
      const close = FENCE_OPEN.exec(line);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length && !line.slice(close[0].length).trim()) fence = null;
      previousBlank = false;
      continue;
    }
    const blank = line.trim() === '';
    if (!blank && previousBlank && offset > from && !CONTINUATION.test(line)) starts.push(offset);
    fence = FENCE_OPEN.exec(line)?.[1] ?? null;
    previousBlank = blank;
  }
  return starts;
}
