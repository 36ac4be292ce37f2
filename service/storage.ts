import type { MessageStatus, Source } from '../src/api/types.js';

export interface SessionRecord {
  token: string;
  projectId: string;
  /** null: a session without owner, which can chat but has no history. */
  owner: string | null;
  createdAt: number;
  expiresAt: number;
}

export interface MessageRecord {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: Source[];
  createdAt: number;
  status: MessageStatus;
}

export interface ThreadRecord {
  id: string;
  projectId: string;
  integrationId: string;
  owner: string | null;
  title: string;
  createdAt: number;
  updatedAt: number;
  messages: MessageRecord[];
}

export interface ActivityEvent {
  kind: 'session' | 'thread' | 'message';
  projectId: string;
  at: number;
  sessionToken: string;
  owner: string | null;
  integrationId: string | null;
}

/** Keyset position for newest-first thread pages. */
export interface ThreadCursor {
  updatedAt: number;
  id: string;
}

/**
 * What the reference service needs from a database. Async so a real store can replace
 * MemoryStorage; pagination is keyset-based so it maps onto an index on (owner, updated_at).
 */
export interface Storage {
  putSession(session: SessionRecord): Promise<void>;
  getSession(token: string): Promise<SessionRecord | undefined>;
  putThread(thread: ThreadRecord): Promise<void>;
  getThread(id: string): Promise<ThreadRecord | undefined>;
  deleteThread(id: string): Promise<void>;
  /** Threads of one owner, newest `updatedAt` first, strictly after `after`. */
  listThreads(projectId: string, owner: string, options: { limit: number; after?: ThreadCursor }): Promise<ThreadRecord[]>;
  recordActivity(event: ActivityEvent): Promise<void>;
  activity(projectId: string, from: number, to: number): Promise<ActivityEvent[]>;
}

const newestFirst = (a: ThreadCursor, b: ThreadCursor) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export class MemoryStorage implements Storage {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly threads = new Map<string, ThreadRecord>();
  private readonly events: ActivityEvent[] = [];

  async putSession(session: SessionRecord) {
    this.sessions.set(session.token, session);
  }

  async getSession(token: string) {
    return this.sessions.get(token);
  }

  async putThread(thread: ThreadRecord) {
    this.threads.set(thread.id, structuredClone(thread));
  }

  async getThread(id: string) {
    const thread = this.threads.get(id);
    return thread && structuredClone(thread);
  }

  async deleteThread(id: string) {
    this.threads.delete(id);
  }

  async listThreads(projectId: string, owner: string, { limit, after }: { limit: number; after?: ThreadCursor }) {
    return [...this.threads.values()]
      .filter((t) => t.projectId === projectId && t.owner === owner)
      .sort(newestFirst)
      .filter((t) => !after || newestFirst(after, t) < 0)
      .slice(0, limit)
      .map((t) => structuredClone(t));
  }

  async recordActivity(event: ActivityEvent) {
    this.events.push(event);
  }

  async activity(projectId: string, from: number, to: number) {
    return this.events.filter((e) => e.projectId === projectId && e.at >= from && e.at < to);
  }
}
