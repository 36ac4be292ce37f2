/**
 * A question's files as the model receives them, within budgets: text files fenced, PDFs as the
 * text of their first pages, both within a token budget (cut at the end, marked); images as
 * `image_url` parts with data URLs when the model sees images, within a byte budget, and
 * otherwise named so that the model (and the visitor, through the agent's notice) knows they
 * were not seen. Only the question's own files go: earlier questions' files are not sent again.
 */
import type { AttachmentContent } from './types.js';
import { estimateTokens } from './history-budget.js';
import { pdfText } from '../kernel/pdf.js';

export interface FileBudget {
  /** The model accepts `image_url` parts (OPENAI_VISION=1). */
  vision: boolean;
  /** Estimated tokens the text of text files and PDFs may take together. */
  tokens: number;
  /** Bytes of images (before base64) one request may carry. */
  imageBytes: number;
  /** Pages of a PDF that are read. */
  pdfPages: number;
}

export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface QuestionTurn {
  /** A string, or parts when images go along. */
  content: string | ContentPart[];
  /** Images the model was not given: the agent tells the visitor. */
  unseen: string[];
}

const CUT = '\n… (cut here: the rest did not fit)';

/** `text` cut at the end to at most `tokens` estimated tokens (the mark included). */
function within(text: string, tokens: number): { text: string; cut: boolean } {
  if (estimateTokens(text) <= tokens) return { text, cut: false };
  // The longest start that fits, found by halving (estimates grow with the length).
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTokens(text.slice(0, mid) + CUT) <= tokens) low = mid;
    else high = mid - 1;
  }
  return { text: low ? text.slice(0, low) + CUT : '', cut: true };
}

/** A fence longer than any run of backticks in `text`. */
const fence = (text: string) =>
  '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((r) => r.length + 1)));

const base64 = (bytes: Uint8Array) => {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
};

/** One text or PDF file as a fenced block with its heading, within what is left of the budget. */
async function textBlock(file: AttachmentContent, left: number, pdfPages: number) {
  let body: string;
  let heading = `File \`${file.name}\` (${file.kind === 'pdf' ? 'PDF' : 'text'}, ${file.size} bytes)`;
  if (file.kind === 'pdf') {
    const read = await pdfText(file.bytes, pdfPages);
    if (read === 'encrypted')
      return {
        block: `${heading}: it is encrypted (a password or permissions), so its text could not be read.`,
        used: 0,
      };
    if (typeof read === 'string') return { block: `${heading}: it could not be read as a PDF.`, used: 0 };
    if (read.pages < read.totalPages) heading += `, its first ${read.pages} of ${read.totalPages} pages`;
    body = read.text || '(no text: the pages may be scanned images)';
  } else body = new TextDecoder().decode(file.bytes);
  const { text, cut } = within(body, left);
  if (!text.trim() || left <= 0)
    return { block: `${heading}: left out, the files before it took the room.`, used: 0 };
  const marks = fence(text);
  return {
    block: `${heading}${cut ? ', cut to fit' : ''}:\n${marks}\n${text}\n${marks}`,
    used: estimateTokens(text),
  };
}

/** The visitor's question with its files, as the user message of a model call. */
export async function questionTurn(
  message: string,
  files: readonly AttachmentContent[],
  budget: FileBudget,
): Promise<QuestionTurn> {
  if (!files.length) return { content: message, unseen: [] };
  const blocks: string[] = [];
  const images: ContentPart[] = [];
  const unseen: string[] = [];
  let tokens = budget.tokens;
  let imageBytes = budget.imageBytes;
  for (const file of files) {
    if (file.kind === 'image') {
      if (!budget.vision) {
        unseen.push(file.name);
        blocks.push(`Image \`${file.name}\`: attached, but you cannot see images here.`);
      } else if (file.bytes.length > imageBytes) {
        unseen.push(file.name);
        blocks.push(`Image \`${file.name}\`: left out, too large for this request.`);
      } else {
        imageBytes -= file.bytes.length;
        blocks.push(`Image \`${file.name}\`: shown below.`);
        images.push({
          type: 'image_url',
          image_url: { url: `data:${file.contentType};base64,${base64(file.bytes)}` },
        });
      }
      continue;
    }
    const { block, used } = await textBlock(file, tokens, budget.pdfPages);
    tokens -= used;
    blocks.push(block);
  }
  const text = `${message.trim() || '(The visitor sent files without a question.)'}\n\n# Files the visitor attached\n\n${blocks.join('\n\n')}`;
  return { content: images.length ? [{ type: 'text', text }, ...images] : text, unseen };
}
