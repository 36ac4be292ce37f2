import type * as Engine from './markdown-engine.js';

export type MarkdownEngine = typeof Engine;

let engine: MarkdownEngine | undefined;
let loading: Promise<MarkdownEngine> | undefined;
let failures = 0;
/** Loads tried before answers stay plain text for the rest of the page's life. */
const MAX_LOADS = 3;

/** The markdown engine, once it has loaded; undefined before. */
export const markdownEngine = (): MarkdownEngine | undefined => engine;

/**
 * Loads the markdown engine (markdown-engine.ts), once per page: with the first answer to show, or
 * earlier when the visitor is about to see one (the panel opened, a question sent). A failed
 * load (the network, a part whose integrity a page pins and that does not match) is tried again
 * by the next caller, MAX_LOADS times in all; answers show as plain text meanwhile.
 */
export function loadMarkdown(): Promise<MarkdownEngine> {
  if (!loading && failures >= MAX_LOADS)
    return Promise.reject(new Error('[agent-chat] the markdown part did not load'));
  loading ??= import('./markdown-engine.js').then(
    (module) => (engine = module),
    (error: unknown) => {
      failures += 1;
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Loads the engine when the page is idle and warms its lexer up, so a first answer finds both ready. */
export function prepareMarkdown(whenIdle: (callback: () => void) => void): void {
  if (engine || loading) return;
  whenIdle(() =>
    loadMarkdown().then(
      (loaded) => loaded.warmUpMarkdown(),
      () => {},
    ),
  );
}
