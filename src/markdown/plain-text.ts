import { Lexer, type Token } from 'marked';

/** What a screen reader should say for an answer: its words, without markdown syntax. */
export function plainText(markdown: string): string {
  const parts: string[] = [];
  const walk = (tokens: readonly Token[]) => {
    for (const token of tokens) {
      if (token.type === 'space') continue;
      if ('tokens' in token && token.tokens?.length) walk(token.tokens);
      else if (token.type === 'list') walk(token.items);
      else if (token.type === 'table') parts.push('(table)');
      else if (token.type === 'code') parts.push('(code)');
      else if ('text' in token && typeof token.text === 'string') parts.push(token.text);
      if (token.type !== 'text' && token.type !== 'codespan' && token.type !== 'strong' && token.type !== 'em' && token.type !== 'link') parts.push(' ');
    }
  };
  walk(new Lexer().lex(markdown));
  return parts.join('').replace(/\s+/g, ' ').trim();
}
