/**
 * Finished forms for the growing end of a streamed answer: the last block's text with its open
 * inline syntax closed, so `**bold` shows as bold and `` `code `` as code while the answer is
 * still arriving, instead of as raw syntax that snaps into shape later. Only ever applied to
 * what is displayed mid-stream; settled text and the final rendering use the text as sent.
 *
 * Deliberately small and linear: one pass over the last paragraph, no backtracking.
 */
export function completeTail(block: string): string {
  if (inOpenFence(block)) return block;
  // A paragraph this long is not prose being written: lexing thousands of closers would cost
  // more than the raw syntax it hides.
  if (block.length - lastParagraphStart(block) > MAX_PARAGRAPH) return block;
  const trimmed = block.replace(/\s+$/, '');
  const start = lastParagraphStart(trimmed);
  const table = completeTable(trimmed, start);
  if (table !== undefined) return table;
  const paragraph = trimmed.slice(start);
  const closed = closeInline(paragraph);
  return closed === paragraph ? block : trimmed.slice(0, start) + closed;
}

const MAX_PARAGRAPH = 4000;
/** More open emphasis than this at once is not prose either. */
const MAX_OPEN = 6;

const FENCE = /^[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})/;

/** Whether the text ends inside a fenced code block: its content is code, never syntax. */
function inOpenFence(text: string): boolean {
  let open = '';
  for (const line of text.split('\n')) {
    const fence = FENCE.exec(line)?.[1];
    if (!fence) continue;
    if (!open) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length) open = '';
  }
  return open !== '';
}

/** Where the paragraph being written starts: after the last blank line or list item marker. */
function lastParagraphStart(text: string): number {
  const blank = text.lastIndexOf('\n\n');
  let start = blank === -1 ? 0 : blank + 2;
  const item = /\n[ \t>]*(?:[-+*]|\d{1,9}[.)])[ \t]/g;
  item.lastIndex = start;
  for (let match = item.exec(text); match; match = item.exec(text)) start = match.index + 1;
  return start;
}

const DELIMITER_ROW = /^ {0,3}\|?[ \t]*:?-*:?[ \t]*(?:\|[ \t]*:?-*:?[ \t]*)*$/;

/** A table whose header is written but whose delimiter row is not yet: shown as a table. */
function completeTable(text: string, start: number): string | undefined {
  const lines = text.slice(start).split('\n');
  const header = lines[0];
  if (lines.length > 2 || !/^ {0,3}\|.*\|/.test(header)) return undefined;
  if (lines.length === 2 && !DELIMITER_ROW.test(lines[1])) return undefined;
  const cells = header
    .replace(/^ {0,3}\|/, '')
    .replace(/\|[ \t]*$/, '')
    .split(/(?<!\\)\|/).length;
  return `${text.slice(0, start)}${header}\n${'|---'.repeat(cells)}|`;
}

interface Opener {
  char: string;
  length: number;
  at: number;
}

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);
const isWord = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/** Closes the code span, emphasis, strike and link left open at the end of a paragraph. */
function closeInline(text: string): string {
  const stack: Opener[] = [];
  let code = 0;
  let codeAt = 0;
  let bracket = -1;
  let destination = -1;
  let label = -1;
  for (let i = 0; i < text.length;) {
    const c = text[i];
    let run = 1;
    while (text[i + run] === c && (c === '`' || c === '*' || c === '_' || c === '~')) run += 1;
    if (c === '\\' && !code) {
      i += 2;
      continue;
    }
    if (c === '`') {
      if (!code) [code, codeAt] = [run, i];
      else if (run === code) code = 0;
    } else if (code || destination !== -1) {
      if (c === ')' && !code) destination = -1;
    } else if (c === '*' || c === '_' || c === '~') {
      const before = text[i - 1];
      const after = text[i + run];
      const canOpen = !isSpace(after) && !(c === '_' && isWord(before));
      const canClose = !isSpace(before) && !(c === '_' && isWord(after));
      const top = stack.at(-1);
      if (canClose && top?.char === c) {
        if (run >= top.length) stack.pop();
        else top.length -= run;
      } else if (canOpen && (c !== '~' || run <= 2)) stack.push({ char: c, length: run, at: i });
    } else if (c === '[') bracket = i;
    else if (c === ']' && bracket !== -1) {
      if (text[i + 1] === '(') [destination, label] = [bracket, i];
      bracket = -1;
    }
    i += run;
  }
  // A half-written link shows its label as text until its destination is complete.
  if (destination !== -1) return closeInline(text.slice(0, destination) + text.slice(destination + 1, label));
  if (code)
    return text.slice(codeAt + code).trim() ? text + '`'.repeat(code) : text.slice(0, codeAt).trimEnd();
  if (stack.length > MAX_OPEN) return text;
  // A run at the very end that cannot close anything is an opener whose text has not come yet.
  let out = text.replace(/(^|\s)[*_~]+$/, '$1').trimEnd();
  for (let opener = stack.pop(); opener; opener = stack.pop()) {
    if (!out.slice(opener.at + opener.length).trim()) out = out.slice(0, opener.at).trimEnd();
    else out = out.trimEnd() + opener.char.repeat(opener.length);
  }
  // An unclosed `[` is most likely a link being written: its bracket would show as syntax.
  if (
    bracket !== -1 &&
    bracket < out.length &&
    out === text.slice(0, out.length) &&
    /(^|\s)$/.test(text.slice(0, bracket))
  )
    out = text.slice(0, bracket) + text.slice(bracket + 1);
  return out;
}
