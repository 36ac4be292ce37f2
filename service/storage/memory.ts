import { newestFirst, rollUp } from './rollup.js';
import type { ActivityEvent, FeedbackRecord, MessagePatch, MessageRecord, Reaction, SessionRecord, Storage, ThreadCursor, ThreadMeta } from './types.js';

/**
 * In-process storage: the browser tests run the service inside Chromium with it. Each method
 * does its whole write synchronously, so the same atomicity rules hold as in SQL.
 */
export class MemoryStorage implements Storage {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly threads = new Map<string, ThreadMeta>();
  private readonly messages = new Map<string, MessageRecord[]>();
  private readonly messageThread = new Map<string, string>();
  private readonly feedback = new Map<string, FeedbackRecord>();
  private events: ActivityEvent[] = [];

  async putSession(session: SessionRecord) {
    this.sessions.set(session.token, { ...session });
  }

  async getSession(token: string) {
    const session = this.sessions.get(token);
    return session && { ...session };
  }

  async createThread(thread: ThreadMeta) {
    this.threads.set(thread.id, { ...thread });
    this.messages.set(thread.id, []);
  }

  async getThread(id: string) {
    const thread = this.threads.get(id);
    return thread && { ...thread, messages: structuredClone(this.messages.get(id) ?? []) };
  }

  async renameThread(id: string, title: string) {
    const thread = this.threads.get(id);
    if (!thread) return undefined;
    thread.title = title;
    return { ...thread };
  }

  async deleteThread(id: string) {
    if (!this.threads.delete(id)) return false;
    // Reactions stay, like events: deleting a thread does not rewrite past activity (#12).
    for (const m of this.messages.get(id) ?? []) this.messageThread.delete(m.id);
    this.messages.delete(id);
    return true;
  }

  async listThreads(projectId: string, owner: string, { limit, after }: { limit: number; after?: ThreadCursor }) {
    return [...this.threads.values()]
      .filter((t) => t.projectId === projectId && t.owner === owner)
      .sort(newestFirst)
      .filter((t) => !after || newestFirst(after, t) < 0)
      .slice(0, limit)
      .map((t) => ({ ...t }));
  }

  async appendMessage(threadId: string, message: MessageRecord) {
    const thread = this.threads.get(threadId);
    if (!thread) return false;
    this.messages.get(threadId)!.push(structuredClone(message));
    this.messageThread.set(message.id, threadId);
    thread.updatedAt = Math.max(thread.updatedAt, message.createdAt);
    return true;
  }

  async updateMessage(id: string, patch: MessagePatch) {
    const threadId = this.messageThread.get(id);
    const message = threadId ? this.messages.get(threadId)?.find((m) => m.id === id) : undefined;
    if (!message) return false;
    Object.assign(message, structuredClone(patch));
    return true;
  }

  async getMessage(id: string) {
    const threadId = this.messageThread.get(id);
    const thread = threadId ? this.threads.get(threadId) : undefined;
    const message = threadId ? this.messages.get(threadId)?.find((m) => m.id === id) : undefined;
    return thread && message ? { message: structuredClone(message), thread: { ...thread } } : undefined;
  }

  async putFeedback(feedback: FeedbackRecord) {
    if (this.messageThread.has(feedback.messageId)) this.feedback.set(`${feedback.messageId}\n${feedback.voter}`, { ...feedback });
  }

  async reactions(threadId: string, voter: string) {
    const result = new Map<string, Reaction>();
    for (const m of this.messages.get(threadId) ?? []) {
      const found = this.feedback.get(`${m.id}\n${voter}`);
      if (found) result.set(m.id, found.reaction);
    }
    return result;
  }

  async recordActivity(event: ActivityEvent) {
    this.events.push({ ...event });
  }

  async activity(projectId: string, fromDay: number, toDay: number) {
    return rollUp(this.events, this.feedback.values(), projectId, fromDay, toDay);
  }

  async refreshActivity() {}

  async purge({ sessionsBefore, eventsBefore }: { sessionsBefore: number; eventsBefore: number }) {
    let sessions = 0;
    for (const [token, session] of this.sessions) {
      if (session.expiresAt < sessionsBefore) {
        this.sessions.delete(token);
        sessions += 1;
      }
    }
    const kept = this.events.filter((e) => e.at >= eventsBefore);
    const events = this.events.length - kept.length;
    this.events = kept;
    return { sessions, events };
  }

  async stopStale(before: number) {
    let count = 0;
    for (const list of this.messages.values()) {
      for (const m of list) {
        if (m.status === 'streaming' && m.updatedAt < before) {
          m.status = 'stopped';
          count += 1;
        }
      }
    }
    return count;
  }

  async close() {}
}
