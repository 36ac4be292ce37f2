import { newestFirst } from '../rollup.js';
import { textMatches } from '../summaries.js';
import { PREVIEW_SOURCE_CHARS, citedPage, pageSince } from '../types.js';
import type {
  ConversationFilter,
  ConversationStore,
  ConversationSummary,
  FeedbackRecord,
  MessagePatch,
  MessageRecord,
  Reaction,
  ThreadCursor,
  ThreadMeta,
} from '../types.js';
import type { MemoryState } from './state.js';

/** Threads, messages and reactions in memory (the shared state), and the handoffs only this role reads. */
export class MemoryConversationStore implements ConversationStore {
  private readonly handoffs = new Map<string, number>();

  constructor(private readonly state: MemoryState) {}

  async createThread(thread: ThreadMeta) {
    this.state.createThread(thread);
  }

  async getThread(id: string, { newest }: { newest?: number } = {}) {
    const thread = this.state.threads.get(id);
    const messages = this.state.messages.get(id) ?? [];
    return (
      thread && {
        ...thread,
        messages: structuredClone(
          newest === undefined ? messages : messages.slice(Math.max(messages.length - newest, 0)),
        ),
      }
    );
  }

  async renameThread(id: string, title: string) {
    const thread = this.state.threads.get(id);
    if (!thread) return undefined;
    thread.title = title;
    return { ...thread };
  }

  async deleteThread(id: string) {
    return this.state.deleteThread(id);
  }

  async purgeThreads(before: number, limit: number) {
    const generating = (id: string) => this.state.messages.get(id)?.some((m) => m.status === 'streaming');
    const expired = [...this.state.threads.values()]
      .filter((t) => t.updatedAt < before && !generating(t.id))
      .sort((a, b) => a.updatedAt - b.updatedAt)
      .slice(0, limit);
    for (const t of expired) this.state.deleteThread(t.id);
    return expired.length;
  }

  async countOwnerThreads(projectId: string, owner: string) {
    let count = 0;
    for (const t of this.state.threads.values())
      if (t.projectId === projectId && t.owner === owner) count += 1;
    return count;
  }

  async listThreads(
    projectId: string,
    owner: string,
    { limit, after }: { limit: number; after?: ThreadCursor },
  ) {
    return [...this.state.threads.values()]
      .filter((t) => t.projectId === projectId && t.owner === owner)
      .sort(newestFirst)
      .filter((t) => !after || newestFirst(after, t) < 0)
      .slice(0, limit)
      .map((t) => {
        // The first answer with text: the answer to the question the title names.
        const answer = (this.state.messages.get(t.id) ?? []).find((m) => m.role === 'assistant' && m.content);
        return { ...t, preview: answer?.content.slice(0, PREVIEW_SOURCE_CHARS) ?? '' };
      });
  }

  async appendMessage(threadId: string, message: MessageRecord) {
    return this.state.appendMessage(threadId, message);
  }

  async updateMessage(id: string, patch: MessagePatch) {
    const message = this.state.message(id);
    if (!message) return false;
    Object.assign(message, structuredClone(patch));
    return true;
  }

  async getMessage(id: string) {
    const threadId = this.state.messageThread.get(id);
    const thread = threadId ? this.state.threads.get(threadId) : undefined;
    const message = this.state.message(id);
    return thread && message ? { message: structuredClone(message), thread: { ...thread } } : undefined;
  }

  async putFeedback(feedback: FeedbackRecord) {
    if (this.state.messageThread.has(feedback.messageId))
      this.state.feedback.set(`${feedback.messageId}\n${feedback.voter}`, { ...feedback });
  }

  async reactions(threadId: string, voter: string) {
    const result = new Map<string, Reaction>();
    for (const m of this.state.messages.get(threadId) ?? []) {
      const found = this.state.feedback.get(`${m.id}\n${voter}`);
      if (found) result.set(m.id, found.reaction);
    }
    return result;
  }

  async markHandoff(threadId: string, at: number) {
    if (!this.state.threads.has(threadId)) return false;
    if (!this.handoffs.has(threadId)) this.handoffs.set(threadId, at);
    return true;
  }

  async searchThreads(
    projectId: string,
    f: ConversationFilter,
    { limit, after }: { limit: number; after?: ThreadCursor },
  ) {
    const found: ConversationSummary[] = [];
    for (const t of [...this.state.threads.values()].sort(newestFirst)) {
      if (found.length >= limit) break;
      if (t.projectId !== projectId || (after && newestFirst(after, t) >= 0) || !threadMatches(t, f))
        continue;
      const summary = this.summary(t);
      if (
        summaryMatches(summary, f, [t.title, ...(this.state.messages.get(t.id) ?? []).map((m) => m.content)])
      )
        found.push(summary);
    }
    return found;
  }

  async countStaleThreads(projectId: string, cap: number) {
    let found = 0;
    for (const t of this.state.threads.values())
      if (
        found < cap &&
        t.projectId === projectId &&
        this.staleSources(projectId, this.state.messages.get(t.id) ?? [])
      )
        found++;
    return found;
  }

  async threadFeedback(threadId: string) {
    const ids = new Set((this.state.messages.get(threadId) ?? []).map((m) => m.id));
    return [...this.state.feedback.values()]
      .filter((f) => ids.has(f.messageId))
      .sort((a, b) => a.at - b.at)
      .map((f) => structuredClone(f));
  }

  private summary(t: ThreadMeta): ConversationSummary {
    const messages = this.state.messages.get(t.id) ?? [];
    const reactions = messages.flatMap((m) =>
      [...this.state.feedback.values()].filter((r) => r.messageId === m.id),
    );
    return {
      ...t,
      handoffAt: this.handoffs.get(t.id) ?? null,
      messages: messages.length,
      upvotes: reactions.filter((r) => r.reaction === 'upvote').length,
      downvotes: reactions.filter((r) => r.reaction === 'downvote').length,
      uncertain: messages.some((m) => m.uncertain),
      error: messages.some((m) => m.status === 'error'),
      toolUsed: messages.some((m) => m.toolCalls.length > 0),
      staleSources: this.staleSources(t.projectId, messages),
    };
  }

  /** Whether an answer cites a page of the project's docs changed or gone since it was written. */
  private staleSources(projectId: string, messages: MessageRecord[]): boolean {
    const cited = (m: MessageRecord) => m.sources.map((s) => citedPage(s.source_url));
    const changes = this.state.pageChanges(projectId, new Set(messages.flatMap(cited)));
    return messages.some((m) => cited(m).some((url) => pageSince(changes.get(url), m.createdAt) !== null));
  }
}

/** The filter's conditions on the thread row itself. */
function threadMatches(t: ThreadMeta, f: ConversationFilter): boolean {
  return !(
    (f.threadId && t.id !== f.threadId) ||
    (f.integrationId && t.integrationId !== f.integrationId) ||
    (f.from !== undefined && t.updatedAt < f.from) ||
    (f.to !== undefined && t.updatedAt >= f.to)
  );
}

/** The filter's conditions on what the thread holds: flags, reactions, the handoff, its text. */
function summaryMatches(s: ConversationSummary, f: ConversationFilter, texts: string[]): boolean {
  return !(
    (f.downvoted && !s.downvotes) ||
    (f.uncertain && !s.uncertain) ||
    (f.error && !s.error) ||
    (f.toolUsed && !s.toolUsed) ||
    (f.staleSources && !s.staleSources) ||
    (f.handoff && s.handoffAt === null) ||
    (f.q?.trim() && !textMatches(texts, f.q))
  );
}
