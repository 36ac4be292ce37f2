import {
  type ActivityEvent,
  type AskRecord,
  type DocPageChange,
  type EndedOrphan,
  type FeedbackRecord,
  type FileSettings,
  LOST_ANSWER,
  type MessageRecord,
  type StoredFile,
  type ThreadMeta,
} from '../types.js';

/**
 * What the memory roles share, as the SQL roles share tables: threads and their messages (the
 * conversations write them, the ledger begins and ends answers in them, a project's delete takes
 * them), reactions and events (the activity rolls them up), which instance generates each answer
 * and the slots answers hold (the ledger takes them, the fleet's reaper frees them), the files
 * visitors upload and what each integration allows (a question's begin links files to its
 * thread, whose delete takes them; a project's or an integration's delete takes theirs). The writes
 * more than one role makes are here, each whole and synchronous, so the same atomicity rules
 * hold as in SQL.
 */
export class MemoryState {
  readonly threads = new Map<string, ThreadMeta>();
  readonly messages = new Map<string, MessageRecord[]>();
  readonly messageThread = new Map<string, string>();
  /** Reactions by `<message id>\n<voter>`. */
  readonly feedback = new Map<string, FeedbackRecord>();
  events: ActivityEvent[] = [];
  /** Which instance generates each answer (absent: none). */
  readonly hosts = new Map<string, string>();
  /** Answers a cancel was sent for that their host has not confirmed: ended as orphans, they are `stopped`. */
  readonly stopRequested = new Set<string>();
  /** What each generating answer counts under should another end it as lost: its question's session and integration (decision 512). */
  readonly counted = new Map<string, Pick<ActivityEvent, 'sessionToken' | 'integrationId'>>();
  /** Instances and when each last renewed its lease (this process's clock). */
  readonly instances = new Map<string, number>();
  readonly slots = new Map<string, { key: string; at: number }>();
  readonly slotsPerKey = new Map<string, number>();
  readonly files = new Map<string, StoredFile>();
  /** By `<project id>\n<integration id>`. */
  readonly fileSettings = new Map<string, FileSettings>();
  /** The question each Idempotency-Key asked, by `<project id>\n<scope>\n<key>` (a thread's delete takes its own). */
  readonly asks = new Map<string, AskRecord>();
  /** What else a project's delete takes, from roles that keep it apart (the docs' sources). */
  readonly projectParts: ((projectId: string) => void)[] = [];
  /** What other roles keep of a thread, forgotten with it (the deliveries that quote it). */
  readonly threadParts: ((threadId: string) => void)[] = [];
  /** What became of a project's docs pages, as the docs role keeps them (the search's stale sources, as SQL joins them). */
  pageChanges: (projectId: string, urls: Iterable<string>) => Map<string, DocPageChange> = () => new Map();

  message(id: string): MessageRecord | undefined {
    const threadId = this.messageThread.get(id);
    return threadId ? this.messages.get(threadId)?.find((m) => m.id === id) : undefined;
  }

  /**
   * An answer no instance ended, ended at `now`: stopped, or failed as lost (decision 496) and
   * counted so (decision 512), a message either way (decision 525). It leaves its host;
   * `updatedAt` is when it changed last.
   */
  endLost(message: MessageRecord, status: 'stopped' | 'error', now: number, updatedAt = now): EndedOrphan {
    Object.assign(message, { status, updatedAt, ...(status === 'error' && { failure: { ...LOST_ANSWER } }) });
    this.hosts.delete(message.id);
    const threadId = this.messageThread.get(message.id)!;
    const { projectId, owner } = this.threads.get(threadId)!;
    const counted = this.counted.get(message.id);
    this.counted.delete(message.id);
    if (counted) this.events.push({ kind: 'message', projectId, at: now, owner, ...counted });
    if (status === 'error' && counted)
      this.events.push({ kind: 'failed', projectId, at: now, owner, ...counted });
    return { id: message.id, threadId, projectId, status };
  }

  createThread(thread: ThreadMeta): void {
    this.threads.set(thread.id, { ...thread });
    this.messages.set(thread.id, []);
  }

  appendMessage(threadId: string, message: MessageRecord): boolean {
    const thread = this.threads.get(threadId);
    if (!thread) return false;
    this.messages.get(threadId)!.push(structuredClone(message));
    this.messageThread.set(message.id, threadId);
    thread.updatedAt = Math.max(thread.updatedAt, message.createdAt);
    return true;
  }

  deleteThread(id: string): boolean {
    if (!this.threads.delete(id)) return false;
    // Events stay: deleting a thread does not rewrite past activity (decision 12); the reactions
    // on its answers, the visitor's words among them, go with it (decision 599).
    const gone = new Set<string>();
    for (const m of this.messages.get(id) ?? []) {
      gone.add(m.id);
      this.messageThread.delete(m.id);
      this.hosts.delete(m.id);
      this.counted.delete(m.id);
    }
    for (const [key, f] of this.feedback) if (gone.has(f.messageId)) this.feedback.delete(key);
    this.messages.delete(id);
    for (const [fileId, file] of this.files) if (file.threadId === id) this.files.delete(fileId);
    for (const [key, ask] of this.asks) if (ask.threadId === id) this.asks.delete(key);
    for (const forget of this.threadParts) forget(id);
    return true;
  }

  /** Links the question's files to its thread (those no question took yet). */
  claimFiles(message: MessageRecord, threadId: string): void {
    for (const { id } of message.attachments ?? []) {
      const file = this.files.get(id);
      if (file && file.threadId === null) file.threadId = threadId;
    }
  }

  takeSlot(key: string, cap: number, answerId: string, now: number): 'taken' | 'cap_reached' | 'held' {
    if (this.slots.has(answerId)) return 'held';
    if ((this.slotsPerKey.get(key) ?? 0) >= cap) return 'cap_reached';
    this.slots.set(answerId, { key, at: now });
    this.slotsPerKey.set(key, (this.slotsPerKey.get(key) ?? 0) + 1);
    return 'taken';
  }

  freeSlot(answerId: string): void {
    const slot = this.slots.get(answerId);
    if (!slot) return;
    this.slots.delete(answerId);
    const left = (this.slotsPerKey.get(slot.key) ?? 1) - 1;
    if (left > 0) this.slotsPerKey.set(slot.key, left);
    else this.slotsPerKey.delete(slot.key);
  }
}
