import { createContext } from '@lit/context';
import type { HistorySnapshot } from '../chat/thread-directory.js';
import type { ConversationSnapshot } from '../chat/types.js';

/**
 * Every context key of the widget. Symbol keys, so a second copy of the widget on the page
 * (another version, say) never answers our requests.
 */

/** The conversation: thread id, messages, streaming flag. Replaced (never mutated) on change. */
export const conversationContext = createContext<ConversationSnapshot>(Symbol('agent-chat.conversation'));

/** The owner's thread list and its loading state. Replaced on change. */
export const historyContext = createContext<HistorySnapshot>(Symbol('agent-chat.history'));
