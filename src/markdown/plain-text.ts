import { parseBlocks, type MarkdownNode } from './parse.js';

const BLOCKS = new Set(['paragraph', 'heading', 'list', 'blockQuote', 'hr', 'newline']);

/** The opening of an answer for the live region: long answers are read from the log, not announced whole. */
export function announcementText(markdown: string, maxChars = 300): string {
  // Only the start is parsed: a 200 KB answer would otherwise cost a long task at its end.
  const text = plainText(markdown.slice(0, maxChars * 4));
  if (text.length <= maxChars && markdown.length <= maxChars * 4) return text;
  return `${text.slice(0, maxChars).replace(/\s+\S*$/, '')}… (the answer continues in the conversation)`;
}

/** What a screen reader should say for an answer: its words, without markdown syntax. */
export function plainText(markdown: string): string {
  const parts: string[] = [];
  const walk = (nodes: readonly MarkdownNode[]) => {
    for (const node of nodes) {
      if (node.type === 'codeBlock') parts.push(' (code) ');
      else if (node.type === 'table') parts.push(' (table) ');
      else if (node.type === 'list') (node.items as MarkdownNode[][]).forEach((item) => (walk(item), parts.push(' ')));
      else if (Array.isArray(node.content)) walk(node.content);
      else if (typeof node.content === 'string') parts.push(node.content);
      else if (node.type === 'image' && node.alt) parts.push(String(node.alt));
      if (BLOCKS.has(node.type)) parts.push(' ');
    }
  };
  walk(parseBlocks(markdown));
  return parts.join('').replace(/\s+/g, ' ').trim();
}
