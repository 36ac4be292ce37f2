import type { Composer } from './composer.js';
import type { Conversation } from './conversation.js';
import type { LiveState, Remembered } from './device-memory.js';
import type { Outbox } from './outbox.js';
import type { TabHandoff } from './tab-handoff.js';
import type { ThreadList } from './thread-list.js';

/** The parts of a session the device remembers (ChatSession is one). */
export interface RememberedParts {
  conversation: Conversation;
  threadList: ThreadList;
  composer: Composer;
  outbox: Outbox;
}

/** What the device keeps of the parts, read at save time. */
export function liveStateOf(parts: RememberedParts): LiveState {
  return {
    drafts: parts.composer.drafts,
    threadListOpen: parts.threadList.open,
    activeThreadId: parts.conversation.snapshot.threadId,
    messages: parts.conversation.snapshot.messages,
    threads: parts.threadList.snapshot.threads,
    owned: parts.threadList.owned,
    outbox: parts.outbox.entries,
  };
}

const untouched = (parts: RememberedParts) =>
  parts.conversation.snapshot.messages.length === 0 && !parts.conversation.snapshot.streaming;

/** After a load: what the device remembered goes back where the visitor has not started since. */
export function restore(parts: RememberedParts, tabs: TabHandoff, remembered: Remembered): void {
  if (parts.threadList.snapshot.status === 'idle')
    parts.threadList.restore(remembered.threads, remembered.owned);
  // The visitor may have started typing or sending before the device answered: theirs wins.
  if (untouched(parts) && !Object.keys(parts.composer.drafts).length)
    parts.composer.drafts = { ...remembered.drafts };
  if (!parts.outbox.entries.length) parts.outbox.replace(remembered.outbox);
  const restored = untouched(parts) && remembered.messages.length > 0;
  if (restored) parts.conversation.reset(remembered.activeThreadId, remembered.messages);
  // An answer to reattach, or a question to send again, goes first; the outbox follows when it
  // ends. Else it goes now, a first question asked offline too: no `online` will come for it.
  if (!restored || (!tabs.reattachLast() && !tabs.resendLast())) tabs.sendWaiting();
}

/** Another tab of this owner wrote the device: show what it shows (the list, drafts, outbox, conversation). */
export function follow(parts: RememberedParts, tabs: TabHandoff, remembered: Remembered): void {
  parts.threadList.follow(remembered.threads, remembered.owned);
  parts.composer.drafts = { ...remembered.drafts };
  parts.outbox.replace(remembered.outbox);
  parts.conversation.follow(remembered.activeThreadId, remembered.messages);
  tabs.awaitTakeover();
  // The answer those questions waited for may have ended before its tab heard of them.
  if (parts.outbox.entries.length && !parts.conversation.streaming) tabs.sendQueued();
}
