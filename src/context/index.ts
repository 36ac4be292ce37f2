import { createContext } from '@lit/context';
import type { ThreadListSnapshot } from '../chat/thread-list.js';
import type { ConversationSnapshot } from '../chat/types.js';
import type { FileInfo } from '../api/types.js';
import { en, translator, type Translate } from '../i18n/index.js';

/**
 * Every context key of the widget. Symbol keys, so a second copy of the widget on the page
 * (another version, say) never answers our requests.
 */

/** The conversation: thread id, messages, streaming flag. Replaced (never mutated) on change. */
export const conversationContext = createContext<ConversationSnapshot>(Symbol('agent-chat.conversation'));

/** The owner's thread list and its loading state. Replaced on change. */
export const threadListContext = createContext<ThreadListSnapshot>(Symbol('agent-chat.thread-list'));

/** The widget's words: `t` of the active language with the site's overrides, and the Intl locale. */
export interface Localized {
  t: Translate;
  locale: string;
}
export const localeContext = createContext<Localized>(Symbol('agent-chat.locale'));

/** English until the root provides: a child rendered on its own still reads whole. */
export const englishLocale: Localized = { t: translator(en), locale: 'en' };

/** What a question's files need from the session: thumbnails and downloads with its token (§11). */
export interface FileAccess {
  /** A `blob:` URL of an image, once it is here (asking for it if need be); undefined meanwhile. */
  thumbnail(file: FileInfo): string | undefined;
  /** Saves the file for the visitor. */
  download(file: FileInfo): void;
}
export const fileAccessContext = createContext<FileAccess | undefined>(Symbol('agent-chat.files'));
