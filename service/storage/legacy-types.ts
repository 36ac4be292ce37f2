/** The flat interface the callers still use while they move to the roles of types.ts. */
import type {
  ProjectRecord,
  IntegrationRecord,
  ApiKeyRecord,
  ApiKeyPatch,
  AdminRecord,
  ConsoleSessionRecord,
  AuditEntry,
  ConversationFilter,
  ConversationSummary,
  ActivitySummary,
} from './console-types.js';
import type {
  ThreadMeta,
  FeedbackRecord,
  ThreadCursor,
  SessionRecord,
  ToolCallRecord,
  MessageRecord,
  ThreadListing,
  ThreadRecord,
  Reaction,
  ActivityEvent,
  ActivityRow,
  MessagePatch,
  AnswerStart,
  BeginResult,
  AnswerSave,
  AnswerEnd,
  AnswerHost,
} from './records.js';

export interface ConsoleStorage {
  /** false when the id is taken (nothing changes). */
  createProject(project: ProjectRecord): Promise<boolean>;
  getProject(id: string): Promise<ProjectRecord | undefined>;
  listProjects(): Promise<ProjectRecord[]>;
  renameProject(id: string, name: string): Promise<boolean>;
  /** The project with its integrations, keys, threads, sessions, events and feedback. */
  deleteProject(id: string): Promise<boolean>;

  /** false when the project is gone or the id is taken in it. */
  createIntegration(integration: IntegrationRecord): Promise<boolean>;
  listIntegrations(projectId: string): Promise<IntegrationRecord[]>;
  updateIntegration(
    projectId: string,
    id: string,
    patch: Partial<Pick<IntegrationRecord, 'name' | 'allowedOrigins'>>,
  ): Promise<IntegrationRecord | undefined>;
  deleteIntegration(projectId: string, id: string): Promise<boolean>;

  /** false when the project is gone or holds a key with the same hash. */
  createApiKey(key: ApiKeyRecord): Promise<boolean>;
  listApiKeys(projectId: string): Promise<ApiKeyRecord[]>;
  updateApiKey(projectId: string, id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | undefined>;

  createAdmin(admin: AdminRecord): Promise<boolean>;
  getAdmin(username: string): Promise<AdminRecord | undefined>;
  putConsoleSession(session: ConsoleSessionRecord): Promise<void>;
  getConsoleSession(tokenHash: string): Promise<ConsoleSessionRecord | undefined>;
  deleteConsoleSession(tokenHash: string): Promise<void>;
  /** One failure under each key (`user:alice`, `addr:10.0.0.1`). */
  recordSignInFailure(keys: string[], at: number): Promise<void>;
  /** Failures under `key` at or after `since`, and the oldest of them. */
  signInFailures(key: string, since: number): Promise<{ count: number; oldest: number | null }>;
  clearSignInFailures(key: string): Promise<void>;
  appendAudit(entry: Omit<AuditEntry, 'id'>): Promise<void>;
  /** Newest first, strictly older than `before` (an entry id). */
  listAudit(options: { limit: number; before?: number; projectId?: string }): Promise<AuditEntry[]>;

  /** Threads of a project across owners, newest `updatedAt` first, strictly after `after`. */
  searchThreads(
    projectId: string,
    filter: ConversationFilter,
    options: { limit: number; after?: ThreadCursor },
  ): Promise<ConversationSummary[]>;
  /** Every reaction on the thread's answers, from every voter. */
  threadFeedback(threadId: string): Promise<FeedbackRecord[]>;
  /** Marks that the visitor asked for a person; false when the thread is gone. */
  markHandoff(threadId: string, at: number): Promise<boolean>;
  activitySummary(
    projectId: string,
    fromDay: number,
    toDay: number,
    integrationId?: string,
  ): Promise<ActivitySummary>;
}

/**
 * What the service needs from a database. Every write is one conditional statement, never a
 * read-modify-write of a whole thread: appending to a deleted thread fails, two writers on one
 * thread both land, and a deleted thread takes its messages with it.
 */
export interface Storage extends ConsoleStorage {
  putSession(session: SessionRecord): Promise<void>;
  getSession(token: string): Promise<SessionRecord | undefined>;
  createThread(thread: ThreadMeta): Promise<void>;
  /** A thread with its messages, oldest first; with `newest`, only that many of the newest. */
  getThread(id: string, options?: { newest?: number }): Promise<ThreadRecord | undefined>;
  /** The thread's new state, or undefined when it does not exist. */
  renameThread(id: string, title: string): Promise<ThreadMeta | undefined>;
  /** true when a thread was deleted. */
  deleteThread(id: string): Promise<boolean>;
  /** Threads of one owner, newest `updatedAt` first, strictly after `after`, each with its preview. */
  listThreads(
    projectId: string,
    owner: string,
    options: { limit: number; after?: ThreadCursor },
  ): Promise<ThreadListing[]>;
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
  purge(options: {
    sessionsBefore: number;
    eventsBefore: number;
  }): Promise<{ sessions: number; events: number }>;
  /** Marks answers still `streaming` and untouched since `before` as stopped (a crash left them). */
  stopStale(before: number): Promise<number>;
  close(): Promise<void>;

  // Answers, each step one write. Writes of a generating answer hold only while `instanceId`
  // generates it: an answer another instance ended (its lease ran out) stays ended.
  beginAnswer(start: AnswerStart): Promise<BeginResult>;
  /** Saves many answers at once; returns the ids still generated by `instanceId` (the others are gone). */
  saveAnswers(saves: AnswerSave[], instanceId: string): Promise<Set<string>>;
  /** false when the answer is gone or no longer this instance's. Frees its concurrency slot either way. */
  endAnswer(end: AnswerEnd): Promise<boolean>;
  /**
   * Takes a paused answer's tool results: true for exactly one caller, the one whose `expected`
   * tool calls are still what is stored and that no instance generates. The answer is then
   * `instanceId`'s to generate.
   */
  resumeAnswer(
    id: string,
    expected: ToolCallRecord[],
    toolCalls: ToolCallRecord[],
    updatedAt: number,
    instanceId: string,
  ): Promise<boolean>;

  // The fleet: instances sharing one database, on the database's clock.
  /** Registers the instance, or renews its lease. */
  heartbeat(instanceId: string): Promise<void>;
  /** A clean shutdown: the instance's row goes. */
  retireInstance(instanceId: string): Promise<void>;
  /** Ends as `error` the answers of instances unseen for `leaseMs` (or gone) and frees their slots; returns how many. */
  reapInstances(leaseMs: number, now: number): Promise<number>;
  answerHost(answerId: string, leaseMs: number): Promise<AnswerHost | undefined>;
  /** Ends an answer whose instance is unseen for `leaseMs`; false when it has a live host or is not streaming. */
  endOrphan(answerId: string, status: 'stopped' | 'error', now: number, leaseMs: number): Promise<boolean>;
  /** One of `cap` concurrent-answer slots of `key` for the answer: `held` when the answer has one already. */
  takeAnswerSlot(
    key: string,
    cap: number,
    answerId: string,
    instanceId: string,
    now: number,
  ): Promise<'taken' | 'cap_reached' | 'held'>;
  releaseAnswerSlot(answerId: string): Promise<void>;
  /** Frees slots older than `before` whose answer never said so (a failed end). */
  purgeAnswerSlots(before: number): Promise<number>;
  /** Counts one request in `key`'s fixed window (a new window when the last has expired). */
  countRequest(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  /** Drops expired windows, then the oldest beyond `max`; returns how many are left. */
  purgeRateWindows(now: number, max: number): Promise<number>;
  /** Refreshes the rollup unless it is younger than `intervalMs`, at most once at a time in the fleet; true when this call did. */
  refreshActivityOnce(intervalMs: number, now: number): Promise<boolean>;
  /** When the rollup was last refreshed (`now` where it is computed live); null before its first refresh. */
  activityAsOf(now: number): Promise<number | null>;
  /** Fleet signals: every subscriber of every instance gets every published message, in publishing order per instance. */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>>;
  publish(messages: string[]): Promise<void>;
}
