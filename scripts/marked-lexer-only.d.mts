import type { Plugin } from 'vite';
export function markedLexerOnly(): Plugin;
