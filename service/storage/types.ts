import type { ActivityStep, Reaction, Source, ToolCall } from '../../contract/types.js';
import type { ConsoleStorage } from './console-types.js';

export type { ActivityStep, Reaction };

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

export interface ToolCallRecord extends ToolCall {
  /** 1 for the first pause of the answer; wire contract §7 allows 8. */
  round: number;
  status: 'pending' | 'completed' | 'error';
  output?: unknown;
  error?: string;
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
  /** Model tokens this answer took, summed over its tool rounds; absent when the agent reports none. */
  usage?: TokenUsage;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
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

/** A thread as a list shows it: with the start of its latest answer ('' before the first). */
export interface ThreadListing extends ThreadMeta {
  preview: string;
}

/** Characters of the latest answer a thread listing carries (its Markdown, before plain-text cleanup). */
export const PREVIEW_SOURCE_CHARS = 400;

export interface ThreadRecord extends ThreadMeta {
  messages: MessageRecord[];
}

export interface ActivityEvent {
  /** `usage`: what one run of an answer cost the model, in `promptTokens` and `completionTokens`. */
  kind: 'session' | 'thread' | 'message' | 'usage';
  projectId: string;
  at: number;
  sessionToken: string;
  owner: string | null;
  integrationId: string | null;
  promptTokens?: number;
  completionTokens?: number;
}

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
  promptTokens: number;
  completionTokens: number;
}

/** Keyset position for newest-first thread pages. */
export interface ThreadCursor {
  updatedAt: number;
  id: string;
}

export type MessagePatch = Partial<Pick<MessageRecord, 'content' | 'sources' | 'status' | 'toolCalls' | 'activity' | 'uncertain' | 'updatedAt' | 'usage'>>;

/**
 * What the service needs from a database. Every write is one conditional statement, never a
 * read-modify-write of a whole thread: appending to a deleted thread fails, two writers on one
 * thread both land, and a deleted thread takes its messages with it.
 */
export interface Storage extends ConsoleStorage {
  putSession(session: SessionRecord): Promise<void>;
  getSession(token: string): Promise<SessionRecord | undefined>;
  createThread(thread: ThreadMeta): Promise<void>;
  getThread(id: string): Promise<ThreadRecord | undefined>;
  /** The thread's new state, or undefined when it does not exist. */
  renameThread(id: string, title: string): Promise<ThreadMeta | undefined>;
  /** true when a thread was deleted. */
  deleteThread(id: string): Promise<boolean>;
  /** Threads of one owner, newest `updatedAt` first, strictly after `after`, each with its preview. */
  listThreads(projectId: string, owner: string, options: { limit: number; after?: ThreadCursor }): Promise<ThreadListing[]>;
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
  /** Deletes sessions (and console sessions) expired before `sessionsBefore`, events older than `eventsBefore`. */
  purge(options: { sessionsBefore: number; eventsBefore: number }): Promise<{ sessions: number; events: number }>;
  /** Marks answers still `streaming` and untouched since `before` as stopped (a crash left them). */
  stopStale(before: number): Promise<number>;
  close(): Promise<void>;
}
