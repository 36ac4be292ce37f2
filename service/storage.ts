import type { Source } from '../src/api/types.js';

export interface SessionRecord {
  token: string;
  projectId: string;
  /** null: a session without owner, which can chat but has no history. */
  owner: string | null;
  createdAt: number;
  expiresAt: number;
}

/** `streaming` covers an answer still generating and one waiting for client tool results. */
export type StoredStatus = 'complete' | 'stopped' | 'error' | 'streaming';

export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** 1 for the first pause of the answer; wire contract §7 allows 8. */
  round: number;
  status: 'pending' | 'completed' | 'error';
  output?: unknown;
  error?: string;
}

export interface ActivityStep {
  id: string;
  name: string;
  status: 'started' | 'completed' | 'error';
  summary: string | null;
  num_results: number | null;
}

export interface MessageRecord {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: Source[];
  createdAt: number;
  /** Last write; for a paused answer, when it began waiting for tool results. */
  updatedAt: number;
  status: StoredStatus;
  toolCalls: ToolCallRecord[];
  activity: ActivityStep[];
  uncertain: boolean;
}

export interface ThreadMeta {
  id: string;
  projectId: string;
  integrationId: string;
  owner: string | null;
  title: string;
  createdAt: number;
  updatedAt: number;
}

export interface ThreadRecord extends ThreadMeta {
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

export type Reaction = 'upvote' | 'downvote';

export interface FeedbackRecord {
  messageId: string;
  projectId: string;
  /** Who reacted: `owner:<id>` or, for a session without owner, `session:<token>`. */
  voter: string;
  sessionToken: string;
  owner: string | null;
  integrationId: string;
  reaction: Reaction;
  comment: Record<string, unknown> | null;
  at: number;
}

/**
 * One row of the activity rollup: what one session did on one UTC day through one
 * integration ('' for none). The SQL stores keep it in a materialized view.
 */
export interface ActivityRow {
  day: number;
  sessionToken: string;
  owner: string | null;
  integrationId: string;
  sessions: number;
  threads: number;
  messages: number;
  upvotes: number;
  downvotes: number;
}

/** Keyset position for newest-first thread pages. */
export interface ThreadCursor {
  updatedAt: number;
  id: string;
}

export type MessagePatch = Partial<Pick<MessageRecord, 'content' | 'sources' | 'status' | 'toolCalls' | 'activity' | 'uncertain' | 'updatedAt'>>;

/**
 * What the service needs from a database. Every write is one conditional statement, never a
 * read-modify-write of a whole thread: appending to a deleted thread fails, two writers on one
 * thread both land, and a deleted thread takes its messages with it.
 */
export interface Storage {
  putSession(session: SessionRecord): Promise<void>;
  getSession(token: string): Promise<SessionRecord | undefined>;
  createThread(thread: ThreadMeta): Promise<void>;
  getThread(id: string): Promise<ThreadRecord | undefined>;
  /** The thread's new state, or undefined when it does not exist. */
  renameThread(id: string, title: string): Promise<ThreadMeta | undefined>;
  /** true when a thread was deleted. */
  deleteThread(id: string): Promise<boolean>;
  /** Threads of one owner, newest `updatedAt` first, strictly after `after`. */
  listThreads(projectId: string, owner: string, options: { limit: number; after?: ThreadCursor }): Promise<ThreadMeta[]>;
  /** Appends and bumps the thread's `updatedAt`; false (and nothing written) when the thread is gone. */
  appendMessage(threadId: string, message: MessageRecord): Promise<boolean>;
  /** false when the message (or its thread) is gone. */
  updateMessage(id: string, patch: MessagePatch): Promise<boolean>;
  getMessage(id: string): Promise<{ message: MessageRecord; thread: ThreadMeta } | undefined>;
  /** Upsert: one reaction per (message, voter). */
  putFeedback(feedback: FeedbackRecord): Promise<void>;
  /** The voter's reaction on each message of a thread that has one. */
  reactions(threadId: string, voter: string): Promise<Map<string, Reaction>>;
  recordActivity(event: ActivityEvent): Promise<void>;
  /** Rollup rows with `from <= day <= to` (UTC day numbers), as of the last refresh. */
  activity(projectId: string, fromDay: number, toDay: number): Promise<ActivityRow[]>;
  /** Rebuilds the rollup; a no-op where it is computed live. */
  refreshActivity(): Promise<void>;
  /** Deletes sessions expired before `sessionsBefore` and events older than `eventsBefore`. */
  purge(options: { sessionsBefore: number; eventsBefore: number }): Promise<{ sessions: number; events: number }>;
  /** Marks answers still `streaming` and untouched since `before` as stopped (a crash left them). */
  stopStale(before: number): Promise<number>;
  close(): Promise<void>;
}

export const DAY_MS = 86_400_000;
export const dayOf = (time: number) => Math.floor(time / DAY_MS);

const newestFirst = (a: ThreadCursor, b: ThreadCursor) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Rolls events and reactions up the way the SQL view does; shared so both stores agree. */
export function rollUp(events: Iterable<ActivityEvent>, feedback: Iterable<FeedbackRecord>, projectId: string, fromDay: number, toDay: number): ActivityRow[] {
  const rows = new Map<string, ActivityRow>();
  const row = (at: number, sessionToken: string, owner: string | null, integrationId: string | null) => {
    const day = dayOf(at);
    const key = `${day}\n${sessionToken}\n${integrationId ?? ''}`;
    let found = rows.get(key);
    if (!found) rows.set(key, (found = { day, sessionToken, owner, integrationId: integrationId ?? '', sessions: 0, threads: 0, messages: 0, upvotes: 0, downvotes: 0 }));
    return found;
  };
  for (const e of events) {
    if (e.projectId !== projectId || dayOf(e.at) < fromDay || dayOf(e.at) > toDay) continue;
    row(e.at, e.sessionToken, e.owner, e.integrationId)[`${e.kind}s`] += 1;
  }
  for (const f of feedback) {
    if (f.projectId !== projectId || dayOf(f.at) < fromDay || dayOf(f.at) > toDay) continue;
    row(f.at, f.sessionToken, f.owner, f.integrationId)[f.reaction === 'upvote' ? 'upvotes' : 'downvotes'] += 1;
  }
  return [...rows.values()];
}

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
