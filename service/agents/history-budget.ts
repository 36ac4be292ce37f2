/**
 * What goes upstream with a question, within budgets: the earlier turns of a thread within a
 * token budget, and the whole request within a byte budget. A cheap estimate stands in for a
 * tokenizer: tokenizers differ per model, and a budget only needs an upper-leaning figure, not
 * the model's exact count.
 */

/** Tokens a message costs beyond its text (role and framing), as OpenAI documents it for chat models. */
const PER_MESSAGE = 4;

/**
 * Estimated tokens of `text`: one per 4 ASCII characters (English averages about 4 characters
 * a token) and one per other character (CJK is about one token a character; accented Latin and
 * other scripts are fewer, so the estimate leans high there, which is the safe side).
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii++;
    // A surrogate pair is one character: its second half is not counted again.
    else if (code < 0xdc00 || code > 0xdfff) other++;
  }
  return Math.ceil(ascii / 4) + other + PER_MESSAGE;
}

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) bytes += code < 0x800 ? 1 : code >= 0xd800 && code <= 0xdfff ? 0 : 2;
  }
  return bytes;
}

/** UTF-8 bytes `value` takes as JSON; for a string, without its quotes (what it adds inside another). */
export const jsonBytes = (value: unknown): number =>
  utf8Bytes(JSON.stringify(value)) - (typeof value === 'string' ? 2 : 0);

/**
 * The newest whole turns (a question and what answered it) of `history` whose estimated tokens
 * fit in `budget`, and whose JSON fits in `bytes`, oldest first. Older turns are dropped first,
 * and a turn is kept whole or not at all, so the model never sees an answer without its question.
 */
export function fitHistory<T extends { role: string; content: string }>(
  history: readonly T[],
  budget: number,
  bytes = Number.POSITIVE_INFINITY,
): T[] {
  const turns: T[][] = [];
  for (const message of history) {
    if (message.role === 'user' || !turns.length) turns.push([message]);
    else turns.at(-1)!.push(message);
  }
  let left = budget;
  let room = bytes;
  let from = turns.length;
  while (from > 0) {
    const cost = turns[from - 1].reduce((sum, m) => sum + estimateTokens(m.content), 0);
    // Each message is one more item of the request's list: its JSON and a comma.
    const size = turns[from - 1].reduce((sum, m) => sum + jsonBytes(m) + 1, 0);
    if (cost > left || size > room) break;
    left -= cost;
    room -= size;
    from--;
  }
  return turns.slice(from).flat();
}
