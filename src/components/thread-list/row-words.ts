import type { ThreadSummary } from '../../api/types.js';
import { loadMarkdown, markdownEngine } from '../../markdown/load.js';

export interface RowWords {
  title: string;
  preview: string;
}

/** Threads are replaced, never changed: each is turned into words once. */
const words = new WeakMap<ThreadSummary, RowWords>();

/**
 * A conversation's title and preview as a row shows and reads them (decision 583): the words of
 * a message, without its markdown marks (`**`, backticks, `[text](url)`, `#`), through the
 * markdown engine's plain-text path. As given until the engine has loaded; `loaded` is called
 * once it has, to render again.
 */
export function rowWords(thread: ThreadSummary, loaded: () => void): RowWords {
  const engine = markdownEngine();
  if (!engine) {
    void loadMarkdown().then(loaded, () => {});
    return { title: thread.title, preview: thread.preview ?? '' };
  }
  let known = words.get(thread);
  if (!known) {
    known = { title: engine.plainText(thread.title), preview: engine.plainText(thread.preview ?? '') };
    words.set(thread, known);
  }
  return known;
}
