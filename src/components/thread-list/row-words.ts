import type { ThreadSummary } from '../../api/types.js';
import { loadMarkdown, markdownEngine } from '../../markdown/load.js';

/** Threads are replaced, never changed: each preview is turned into words once. */
const words = new WeakMap<ThreadSummary, string>();

/**
 * A conversation's preview as a row shows and reads it (decisions 583, 597): the start of its
 * first answer, which is markdown, in words (`**`, backticks, `[text](url)`, `#` gone) through
 * the markdown engine's plain-text path. The title is not: it is the visitor's own question or
 * name for it, plain text as they typed it (`2*3*4` stays). As given until the engine has
 * loaded; `loaded` is called once it has, to render again.
 */
export function previewWords(thread: ThreadSummary, loaded: () => void): string {
  const engine = markdownEngine();
  if (!engine) {
    void loadMarkdown().then(loaded, () => {});
    return thread.preview ?? '';
  }
  let known = words.get(thread);
  if (known === undefined) {
    known = engine.plainText(thread.preview ?? '');
    words.set(thread, known);
  }
  return known;
}
