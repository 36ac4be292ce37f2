/**
 * Deleting what the service holds of a conversation or of a visitor: one path for the visitor's
 * own delete, the console's and the admin CLI's, so an answer still generating always stops.
 */
import type { OwnerTraces, StoresOf, ThreadRecord } from '../storage/types.js';

/** Stops answers by id wherever they generate (`AnswerRunner.stopDeleted`); the CLI has none to stop. */
export type StopAnswers = (answerIds: string[]) => void;

/**
 * Deletes the thread with its messages, files and reactions (decision 599) and stops its answers
 * still generating, rather than letting them talk to nobody; false when it was gone already.
 */
export async function deleteConversation(
  storage: StoresOf<'conversations'>,
  stop: StopAnswers,
  thread: ThreadRecord,
): Promise<boolean> {
  const live = thread.messages.filter((m) => m.status === 'streaming').map((m) => m.id);
  const deleted = await storage.conversations.deleteThread(thread.id);
  stop(live);
  return deleted;
}

/** What erasing an owner removed: their conversations, then the rest `forgetOwner` counts. */
export interface OwnerErasure extends OwnerTraces {
  conversations: number;
}

/** Threads read per round of an erasure: each is deleted on its own, as the visitor's delete does. */
const ERASE_PAGE = 50;

/**
 * Everything held for one owner of a project (decision 601): each of their threads as
 * `deleteConversation` deletes it, then their sessions, reactions, unused files and keys, and
 * their name on activity events. Threads begun while it runs (a session another instance still
 * remembers) are taken too, until a round finds none.
 */
export async function eraseOwner(
  storage: StoresOf<'conversations' | 'directory'>,
  stop: StopAnswers,
  projectId: string,
  owner: string,
): Promise<OwnerErasure> {
  let conversations = 0;
  for (;;) {
    const page = await storage.conversations.listThreads(projectId, owner, { limit: ERASE_PAGE });
    if (!page.length) break;
    for (const listed of page) {
      const thread = await storage.conversations.getThread(listed.id);
      if (thread && (await deleteConversation(storage, stop, thread))) conversations += 1;
    }
  }
  return { conversations, ...(await storage.directory.forgetOwner(projectId, owner)) };
}
