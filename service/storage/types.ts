/**
 * What the service needs from a database, one interface per role. Every write is one
 * conditional statement, never a read-modify-write of a whole thread: appending to a deleted
 * thread fails, two writers on one thread both land, and a deleted thread takes its messages
 * with it. A role's methods are all a caller of that role may reach; `Stores` bundles the roles
 * of one database, and only it closes.
 */
import type {
  AdminRecord,
  AdminRole,
  NewAdmin,
  ActivitySummary,
  ApiKeyPatch,
  ApiKeyRecord,
  AuditEntry,
  AuditFilter,
  ConsoleSessionRecord,
  ConsoleSessionWithRole,
  AdminSummary,
  ConversationFilter,
  ConversationSummary,
  DailyCounts,
  IntegrationInput,
  IntegrationPatch,
  IntegrationRecord,
  ProjectRecord,
} from './console-types.js';
import type {
  ActivityEvent,
  ActivityRow,
  AnswerEnd,
  AnswerHost,
  AnswerSave,
  AnswerStart,
  AskKey,
  AskRecord,
  BeginResult,
  CrawlRunRecord,
  DocCrawl,
  DocCrawlProgress,
  DocPageChange,
  DocPageRecord,
  DocSectionRecord,
  DocSourceRecord,
  DocSourceSummary,
  EndedOrphan,
  FeedbackRecord,
  MessagePatch,
  MessageRecord,
  Reaction,
  SessionRecord,
  ThreadCursor,
  ThreadListing,
  ThreadMeta,
  ThreadRecord,
  ToolCallRecord,
} from './records.js';
import type { FileMeta, FileQuota, FileSettings, PutFileResult, StoredFile } from './file-records.js';
import type { KeepWidgetResult, WidgetReleaseFiles, WidgetReleaseMeta } from './widget-records.js';
import type {
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryRecord,
  NotificationInput,
  WebhookRecord,
} from './notification-records.js';

export * from './records.js';
export type * from './file-records.js';
export type * from './widget-records.js';
export type * from './console-types.js';
export * from './notification-records.js';

/** Threads, their messages and the reactions on them: what a visitor's history and the console's conversations read. */
export interface ConversationStore {
  createThread(thread: ThreadMeta): Promise<void>;
  /** A thread with its messages, oldest first; with `newest`, only that many of the newest. */
  getThread(id: string, options?: { newest?: number }): Promise<ThreadRecord | undefined>;
  /** The thread's new state, or undefined when it does not exist. */
  renameThread(id: string, title: string): Promise<ThreadMeta | undefined>;
  /**
   * true when a thread was deleted, and with it its messages, their files and the reactions on
   * them, and its Idempotency-Keys; its activity events stay (decisions 12, 599).
   */
  deleteThread(id: string): Promise<boolean>;
  /**
   * Deletes, as `deleteThread` does, at most `limit` threads whose last message is older than
   * `before` and where no answer is generating; returns how many. Callers that run together
   * (a fleet's instances) each take threads the others do not (decision 603).
   */
  purgeThreads(before: number, limit: number): Promise<number>;
  /** How many threads the owner has in the project (what erasing them would delete). */
  countOwnerThreads(projectId: string, owner: string): Promise<number>;
  /** Threads of one owner, newest `updatedAt` first, strictly after `after`, each with its preview (the first answer with text). */
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
  /** Marks that the visitor asked for a person; false when the thread is gone. */
  markHandoff(threadId: string, at: number): Promise<boolean>;
  /** Threads of a project across owners, newest `updatedAt` first, strictly after `after`. */
  searchThreads(
    projectId: string,
    filter: ConversationFilter,
    options: { limit: number; after?: ThreadCursor },
  ): Promise<ConversationSummary[]>;
  /** Every reaction on the thread's answers, from every voter. */
  threadFeedback(threadId: string): Promise<FeedbackRecord[]>;
  /** How many of the project's threads have an answer citing a page changed or gone since, counted up to `cap`. */
  countStaleThreads(projectId: string, cap: number): Promise<number>;
}

/**
 * Answers as they generate, each step one write, and the concurrent-answer slots they hold.
 * Writes of a generating answer hold only while `instanceId` generates it: an answer another
 * instance ended (its lease ran out) stays ended.
 */
export interface AnswerLedger {
  /** The question, the empty answer, their thread and events, and a slot: written whole or not at all. */
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
  /** Which instance generates the answer, and whether its lease is younger than `leaseMs`. */
  answerHost(answerId: string, leaseMs: number): Promise<AnswerHost | undefined>;
  /**
   * Ends an answer whose instance is unseen for `leaseMs` (with its `failed` event when it ends
   * as an error, decision 512); null when it has a live host or is not streaming.
   */
  endOrphan(
    answerId: string,
    status: 'stopped' | 'error',
    now: number,
    leaseMs: number,
  ): Promise<EndedOrphan | null>;
  /**
   * A cancel was sent to the answer's host, which has not confirmed it (it may have died):
   * whoever ends the answer as an orphan (the reaper, a reattach, a relay) stores it `stopped`.
   */
  requestStop(answerId: string): Promise<void>;
  /**
   * Ends answers still `streaming` and untouched since `before` (a crash left them): as errors,
   * as a shutdown ends them (decision 447), so the visitor sees Retry and not a whole answer;
   * stopped where the visitor asked to stop, or where the answer waits for their tools' results.
   * Those ended as errors are counted failed at `now` (decision 512).
   */
  endStale(before: number, now: number): Promise<EndedOrphan[]>;
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
  /** The question an Idempotency-Key asked since `since` (an older one is forgotten), if any. */
  findAsk(key: Omit<AskKey, 'fingerprint'>, since: number): Promise<AskRecord | undefined>;
  /** Forgets the keys recorded before `before`; returns how many. */
  purgeAsks(before: number): Promise<number>;
}

/** Instances sharing one database, on the database's clock: their leases and the signals between them. */
export interface FleetStore {
  /** Registers the instance, or renews its lease. */
  heartbeat(instanceId: string): Promise<void>;
  /** A clean shutdown: the instance's row goes. */
  retireInstance(instanceId: string): Promise<void>;
  /**
   * Ends as `error` (`stopped` if a stop was requested) the answers of instances unseen for
   * `leaseMs` (or gone), counts those failed (decision 512) and frees their slots; returns them.
   */
  reapInstances(leaseMs: number, now: number): Promise<EndedOrphan[]>;
  /** Every subscriber of every instance gets every published message, in publishing order per instance. */
  subscribe(onMessage: (message: string) => void): Promise<() => Promise<void>>;
  publish(messages: string[]): Promise<void>;
}

/** Fixed request windows every instance counts in, so a rate limit holds for the fleet. */
export interface RateStore {
  /** Counts one request in `key`'s fixed window (a new window when the last has expired). */
  countRequest(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  /** Drops expired windows, then the oldest beyond `max`; returns how many are left. */
  purgeRateWindows(now: number, max: number): Promise<number>;
}

/** Activity events and the rollup the query API and the console's charts read. */
export interface ActivityStore {
  recordActivity(event: ActivityEvent): Promise<void>;
  /** Rollup rows with `from <= day <= to` (UTC day numbers), as of the last refresh. */
  activity(projectId: string, fromDay: number, toDay: number): Promise<ActivityRow[]>;
  /** The console's figures per day, per integration and in total, from the same rollup. */
  activitySummary(
    projectId: string,
    fromDay: number,
    toDay: number,
    integrationId?: string,
  ): Promise<ActivitySummary>;
  /** Rebuilds the rollup; a no-op where it is computed live. */
  refreshActivity(): Promise<void>;
  /** Refreshes the rollup unless it is younger than `intervalMs`, at most once at a time in the fleet; true when this call did. */
  refreshActivityOnce(intervalMs: number, now: number): Promise<boolean>;
  /** When the rollup was last refreshed (`now` where it is computed live); null before its first refresh. */
  activityAsOf(now: number): Promise<number | null>;
  /** Deletes events older than `before`; returns how many. */
  purgeEvents(before: number): Promise<number>;
}

/** Who may call the agent API: projects, their integrations and API keys, and the sessions the keys mint. */
export interface DirectoryStore {
  /** false when the id is taken (nothing changes). */
  createProject(project: ProjectRecord): Promise<boolean>;
  getProject(id: string): Promise<ProjectRecord | undefined>;
  listProjects(): Promise<ProjectRecord[]>;
  renameProject(id: string, name: string): Promise<boolean>;
  /** The project with its integrations, keys, threads, sessions, events and feedback. */
  deleteProject(id: string): Promise<boolean>;
  /** false when the project is gone or the id is taken in it. */
  createIntegration(integration: IntegrationInput): Promise<boolean>;
  listIntegrations(projectId: string): Promise<IntegrationRecord[]>;
  updateIntegration(
    projectId: string,
    id: string,
    patch: IntegrationPatch,
  ): Promise<IntegrationRecord | undefined>;
  deleteIntegration(projectId: string, id: string): Promise<boolean>;
  /** false when the project is gone or holds a key with the same hash. */
  createApiKey(key: ApiKeyRecord): Promise<boolean>;
  listApiKeys(projectId: string): Promise<ApiKeyRecord[]>;
  updateApiKey(projectId: string, id: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | undefined>;
  putSession(session: SessionRecord): Promise<void>;
  /**
   * Ends the sessions a key minted: the key says when (so an instance that still remembers one
   * refuses it) and its sessions are deleted. Returns how many were deleted; undefined: no such key.
   */
  endKeySessions(projectId: string, keyId: string, at: number): Promise<number | undefined>;
  getSession(tokenHash: string): Promise<SessionRecord | undefined>;
  /** Deletes sessions expired before `before`; returns how many. */
  purgeSessions(before: number): Promise<number>;
  /**
   * What is left of an owner once their threads are deleted (decision 601): their sessions, their
   * reactions, the files they uploaded (as `owner:<id>`) that no question used and their Idempotency-Keys go; their
   * activity events lose the owner (the figures stay, decision 12).
   */
  forgetOwner(projectId: string, owner: string): Promise<OwnerTraces>;
}

/** What `forgetOwner` removed, by kind. */
export interface OwnerTraces {
  sessions: number;
  feedback: number;
  files: number;
  events: number;
}

/**
 * What public sessions spend (§2b), shared by the fleet: each solved challenge, kept until it
 * expires so none is used twice, and each public integration's daily budget of sessions and answers.
 */
export interface GateStore {
  /** Records a solved challenge until `expiresAt`; false when it was recorded already (a replay). */
  spendChallenge(challenge: string, expiresAt: number): Promise<boolean>;
  /** Counts one of `kind` for the integration on `day` (UTC day number) unless `limit` are counted; false then. */
  spendBudget(
    projectId: string,
    integrationId: string,
    day: number,
    kind: keyof DailyCounts,
    limit: number,
  ): Promise<boolean>;
  /** Takes back one of `kind` counted on `day`: what was charged for an answer that never began. */
  refundBudget(projectId: string, integrationId: string, day: number, kind: keyof DailyCounts): Promise<void>;
  /** What each integration of the project spent on `day` (none: nothing spent). */
  budgetUse(projectId: string, day: number): Promise<Map<string, DailyCounts>>;
  /**
   * Adds `count` refusals of `origin` by a public integration, the last at `at` (each instance
   * writes an origin at most once a UTC day; decision 750), keeping the newest 10 origins an
   * integration, so a script faking origins fills a short list and nothing else.
   */
  noteRefusals(refusal: RefusalNote): Promise<void>;
  /** The origins each integration of the project refused (by integration id), the latest first. */
  refusals(projectId: string): Promise<Map<string, StoredRefusal[]>>;
  /**
   * Drops the challenges expired by `now`, the budget days before `day`, and the refused origins
   * none refused in the 30 days before `now`; returns how many rows went.
   */
  purgeGate(now: number, day: number): Promise<number>;
}

/** Refusals of one origin by a public integration, as an instance writes them (decision 750). */
export interface RefusalNote {
  projectId: string;
  integrationId: string;
  origin: string;
  count: number;
  at: number;
}

/** An origin a public integration refused: how often, and when last. */
export interface StoredRefusal {
  origin: string;
  count: number;
  last: number;
}

/** How long a refused origin nobody refused again stays listed (decision 750). */
export const REFUSALS_KEPT_MS = 30 * 86_400_000;
/** The most origins kept per integration, the newest. */
export const REFUSALS_PER_INTEGRATION = 10;

/** What one key holds of sign-in attempts (see `countSignInAttempt`). */
export interface SignInCount {
  key: string;
  count: number;
  oldest: number | null;
  latest: number | null;
}

/** The console's admins: their accounts and sessions, failed sign-ins, and the audit log of what was done. */
export interface AccountStore {
  /** A new account; an `admin` unless `role` says otherwise. False when the name is taken. */
  createAdmin(admin: NewAdmin): Promise<boolean>;
  getAdmin(username: string): Promise<AdminRecord | undefined>;
  /** Whether anyone can sign in to the console yet (the start-up line says how to add the first admin). */
  hasAdmins(): Promise<boolean>;
  /** Every admin, by name, with when each last signed in (decision 691). */
  listAdmins(): Promise<AdminSummary[]>;
  /**
   * Removes the admin and ends its console sessions at once (decision 689). Unless `allowNone`,
   * refuses (`last`) to remove the only one with the `admin` role, in one statement: two admins removing each other
   * at once leave one. `missing`: no such admin.
   */
  removeAdmin(username: string, options: { allowNone: boolean }): Promise<'removed' | 'missing' | 'last'>;
  /**
   * A new role for the admin (decision 718). Refuses (`last`) to make the only `admin` a viewer,
   * in one statement as `removeAdmin` does; `missing`: no such admin; `same`: it had that role.
   */
  setRole(username: string, role: AdminRole): Promise<'changed' | 'same' | 'missing' | 'last'>;
  /**
   * A session is a sign-in: it becomes the admin's last one. False, and no session, when the
   * admin is gone, or, given `signedInWith`, their password's hash is no longer that one: removed
   * or given a new password while the sign-in's password was being checked (decisions 689, 690).
   */
  putConsoleSession(session: ConsoleSessionRecord, signedInWith?: string): Promise<boolean>;
  getConsoleSession(tokenHash: string): Promise<ConsoleSessionWithRole | undefined>;
  deleteConsoleSession(tokenHash: string): Promise<void>;
  /** Ends the admin's console sessions but `exceptTokenHash` (its own, when it asks); how many ended. */
  endConsoleSessions(username: string, exceptTokenHash?: string): Promise<number>;
  /**
   * Counts a sign-in attempt before its password is checked: a row under each key, then what
   * each key holds since its `since` (this attempt included in `count`; `oldest` and `latest`
   * of the others). Attempts that come together each see the others' rows, so no more pass a
   * limit than it allows. The rows stay as the attempt's failure unless it is forgotten.
   */
  countSignInAttempt(
    attempt: string,
    keys: { key: string; since: number }[],
    at: number,
  ): Promise<SignInCount[]>;
  /** The attempt's rows go: it was refused before its password was checked, or it succeeded. */
  forgetSignInAttempt(attempt: string): Promise<void>;
  clearSignInFailures(key: string): Promise<void>;
  /**
   * A new hash for an admin's password: false when no such admin, or, given `replacing`, when
   * the stored hash is no longer that one (a sign-in's re-hash of the password it checked must
   * not undo a change made meanwhile, decision 690).
   */
  setPasswordHash(username: string, passwordHash: string, replacing?: string): Promise<boolean>;
  /** Deletes console sessions expired before `before`, and sign-in failures a day older than it. */
  purgeExpired(before: number): Promise<void>;
  appendAudit(entry: Omit<AuditEntry, 'id'>): Promise<void>;
  /** Newest first, strictly older than `before` (an entry id), matching every filter given. */
  listAudit(filter: AuditFilter): Promise<AuditEntry[]>;
}

/**
 * The files visitors upload (§11): kept until a question uses them (then they go with its
 * thread, a link the answer's begin makes) or for a day unused; and what each integration allows.
 */
export interface FileStore {
  /** Stores the file unless a quota of unused files is full (one statement: the check holds under concurrent uploads). */
  /**
   * Stores the file within the quotas; `publicDaySince` (a public integration's upload: the
   * start of its UTC day) adds `publicDayBytes` over the integration's files since then.
   */
  putFile(file: StoredFile, quota: FileQuota, publicDaySince?: number): Promise<PutFileResult>;
  getFile(id: string): Promise<StoredFile | undefined>;
  /** The files of `ids` that exist, without their bytes, in no particular order. */
  describeFiles(ids: readonly string[]): Promise<FileMeta[]>;
  /** Deletes files no question used that were uploaded before `before`; returns how many. */
  purgeUnusedFiles(before: number): Promise<number>;
  /** What the integration allows; undefined: the service's defaults. */
  fileSettings(projectId: string, integrationId: string): Promise<FileSettings | undefined>;
  /** false when the integration is gone. */
  putFileSettings(projectId: string, integrationId: string, settings: FileSettings): Promise<boolean>;
}

/**
 * The widget releases the fleet served, with their files (decision 741): a page pinned to one
 * (its script tag's integrity hashes) keeps loading it from any instance after an upgrade.
 */
export interface WidgetStore {
  /**
   * Stores the release unless its version is stored with the same hashes; other hashes under
   * its version (a development build) are replaced by these. One at a time per version.
   */
  keepWidgetRelease(release: WidgetReleaseFiles, at: number): Promise<KeepWidgetResult>;
  /**
   * Whether the release is stored with these very hashes: an instance starting asks this first,
   * and reads its release's files only to keep them (keepWidgetRelease checks again, under its lock).
   */
  holdsWidgetRelease(version: string, sri: Record<string, string>): Promise<boolean>;
  /** A kept release's file by its exact name (a name of its sri, or `sri.json`). */
  widgetFile(version: string, name: string): Promise<{ body: Uint8Array; gzip?: Uint8Array } | undefined>;
  /** Notes that a page loaded the release (no-op for one not kept). */
  noteWidgetLoaded(version: string, at: number): Promise<void>;
  /** The kept releases, last loaded (or stored) first. */
  listWidgetReleases(): Promise<WidgetReleaseMeta[]>;
  /**
   * Deletes the releases, `keep` aside, neither loaded nor stored since `before`, then those
   * beyond the `max` last loaded (or stored); returns how many.
   */
  purgeWidgetReleases(keep: readonly string[], before: number, max: number): Promise<number>;
}

/**
 * The documentation the agents answer from, per project and shared by the fleet: sources, their
 * pages with the validators a re-crawl sends (and the pages that left the site), the sections
 * each project's index is built from (with their embeddings), crawl runs with their failures,
 * each project's index version, and a lease so that one instance crawls at a time.
 */
export interface DocsStore {
  /** One project's sources, oldest first; every project's when none is named (the crawl schedule). */
  listDocSources(projectId?: string): Promise<DocSourceSummary[]>;
  /** false when the project has a source at the same location (nothing changes). */
  addDocSource(source: DocSourceRecord): Promise<boolean>;
  /** The project's source with its pages, sections and runs; false when the project has no such source. */
  removeDocSource(projectId: string, id: string): Promise<boolean>;
  /** Moves a source's next crawl ("Re-crawl now" moves it to now); false when the project has no such source. */
  scheduleDocCrawl(projectId: string, id: string, at: number): Promise<boolean>;
  /** Replaces a source's exclude patterns and moves its next crawl to `at`; false when the project has no such source. */
  setDocExclusions(projectId: string, id: string, exclude: string[], at: number): Promise<boolean>;
  /** The pages of a source that the last crawls found, to revalidate them. */
  listDocPages(sourceId: string): Promise<DocPageRecord[]>;
  /**
   * One crawl, whole: new and changed pages with their sections (replacing the old ones),
   * unchanged pages kept, pages not read marked removed (their sections dropped) when the crawl
   * was complete, and the `dropped` ones whether or not it was, the run recorded and the source's last and next crawl set. The project's index
   * version moves when a section changed.
   */
  applyDocCrawl(crawl: DocCrawl): Promise<CrawlRunRecord>;
  /** Every section of the project's sources, each page's in order: what its index is built from. */
  listDocSections(projectId: string): Promise<DocSectionRecord[]>;
  /** Moves whenever the project's sections or synonyms change: an instance rebuilds that index when it sees it move. */
  docsVersion(projectId: string): Promise<number>;
  /** The project's synonym groups (decision 422); [] when it has none. */
  docSynonyms(projectId: string): Promise<string[][]>;
  /** Replaces the project's synonym groups and moves its index version, so every instance ranks with them. */
  setDocSynonyms(projectId: string, groups: string[][]): Promise<void>;
  /** A source's crawl runs, newest first. */
  listCrawlRuns(sourceId: string, limit: number): Promise<CrawlRunRecord[]>;
  /**
   * Takes the crawl lease until `now + leaseMs` when it is free, expired or this holder's; false
   * when another holder has it.
   */
  claimDocCrawl(holder: string, leaseMs: number, now: number): Promise<boolean>;
  releaseDocCrawl(holder: string): Promise<void>;
  /**
   * Writes how far a source's crawl has got, replacing what was written before (decision 435); a
   * source removed meanwhile gets none. `applyDocCrawl` clears it: its run takes over.
   */
  putDocCrawlProgress(progress: DocCrawlProgress): Promise<void>;
  /** Clears a source's crawl progress (a crawl that stopped without a run). */
  clearDocCrawlProgress(sourceId: string): Promise<void>;
  /**
   * Stores vectors (unit length) from `model` for sections of the project; sections since
   * replaced, or of another project, are skipped.
   */
  putEmbeddings(
    projectId: string,
    model: string,
    vectors: { id: number; embedding: number[] }[],
  ): Promise<void>;
  /**
   * What became of each of `urls` (pages, without fragments) in the project's sources: when it
   * last changed and when it left the site. Pages it never indexed are absent.
   */
  docPageChanges(projectId: string, urls: string[]): Promise<Map<string, DocPageChange>>;
}

/**
 * The webhooks each project notifies, and a delivery per event and webhook, kept until it is
 * sent or given up and then for the console's list; the fleet shares them, and one instance
 * sends each attempt (its claim).
 */
export interface NotificationStore {
  /** false when the project is gone. */
  createWebhook(webhook: WebhookRecord): Promise<boolean>;
  listWebhooks(projectId: string): Promise<WebhookRecord[]>;
  /** The webhook with its deliveries; false when the project has no such webhook. */
  deleteWebhook(projectId: string, id: string): Promise<boolean>;
  /**
   * A pending delivery of the event to each webhook of the project that wants it, in one
   * statement; one with the same `dedupe` not yet attempted gets the new body. Returns how many.
   */
  enqueue(input: NotificationInput): Promise<number>;
  /** A delivery to one webhook, claimed by the caller at once (the console's "Send a test"); undefined: no such webhook. */
  enqueueTest(
    projectId: string,
    webhookId: string,
    body: string,
    now: number,
    claimMs: number,
  ): Promise<ClaimedDelivery | undefined>;
  /**
   * Up to `limit` pending deliveries due by `now` that no one holds, each now held until
   * `now + claimMs` by the caller: two instances never claim one delivery at once.
   */
  claimDeliveries(now: number, claimMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Deletes the project's deliveries with this key that were not attempted nor are being sent
   * (a downvote the visitor changed within its wait, decision 629); returns how many.
   */
  withdraw(projectId: string, dedupe: string, now: number): Promise<number>;
  /** Counts an attempt and releases the claim: pending again at `nextAt`, else sent or failed. */
  recordAttempt(id: string, attempt: DeliveryAttempt): Promise<void>;
  /** A webhook's deliveries, newest first. */
  listDeliveries(projectId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]>;
  /** Deletes the deliveries created before `before` that are no longer pending; returns how many. */
  purgeDeliveries(before: number): Promise<number>;
}

/**
 * Every role of one database, over one connection (or one process's memory). The composition
 * root holds it and closes it; everything else receives only the roles it uses (`StoresOf`).
 */
export interface Stores {
  readonly conversations: ConversationStore;
  readonly ledger: AnswerLedger;
  readonly fleet: FleetStore;
  readonly rates: RateStore;
  readonly activity: ActivityStore;
  readonly directory: DirectoryStore;
  readonly accounts: AccountStore;
  readonly gate: GateStore;
  readonly files: FileStore;
  readonly docs: DocsStore;
  readonly notifications: NotificationStore;
  readonly widgets: WidgetStore;
  close(): Promise<void>;
}

export type StoreRole = Exclude<keyof Stores, 'close'>;

/** Some roles of a bundle: what a route, a duty or the answer runner is given to reach. */
export type StoresOf<R extends StoreRole> = Pick<Stores, R>;
