/**
 * The markdown engine as one part loaded on demand (see load.ts): marked's lexer, incremental
 * parsing, finished forms mid-stream and the renderer, about a quarter of the widget. A page
 * whose visitor never sees an answer never loads it.
 */
export { IncrementalMarkdown, type MarkdownView } from './incremental.js';
export { renderView } from './render.js';
export { announcementText, plainText } from './plain-text.js';
export { warmUpMarkdown } from './parse.js';
