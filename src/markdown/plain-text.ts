import type { Token } from 'marked';
import { decodeEntities } from './entities.js';
import { lex } from './parse.js';

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
  const walk = (tokens: readonly Token[]) => {
    for (const token of tokens) {
      if (token.type === 'code') parts.push(' (code) ');
      else if (token.type === 'table') parts.push(' (table) ');
      else if (token.type === 'list') token.items.forEach((item: Token) => (walk([item]), parts.push(' ')));
      else if (token.type === 'space' || token.type === 'def' || token.type === 'checkbox') parts.push(' ');
      else if ('tokens' in token && token.tokens) walk(token.tokens);
      else if (token.type === 'codespan' || token.type === 'escape' || token.type === 'html')
        parts.push(token.text);
      else if ('text' in token) parts.push(decodeEntities(String(token.text)));
      if (token.type === 'paragraph' || token.type === 'heading' || token.type === 'blockquote')
        parts.push(' ');
    }
  };
  walk(lex(markdown));
  return parts.join('').replace(/\s+/g, ' ').trim();
}
