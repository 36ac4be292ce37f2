/**
 * What the console keeps: the directory (projects, integrations, API keys) that the agent API
 * also reads, the admin side (accounts, console sessions, sign-in failures, the audit log), and
 * the project-wide reads (conversations across owners, activity per day).
 */
import type { FeedbackRecord, ThreadCursor, ThreadMeta } from './records.js';

export interface ProjectRecord {
  id: string;
  name: string;
  /** HMAC secret for the owner keys the console shows; never leaves the service. */
  ownerSecret: string;
  createdAt: number;
}

export interface IntegrationRecord {
  projectId: string;
  id: string;
  name: string;
  /** Origins (`https://docs.example.com`) whose pages may call the agent API; empty: any. */
  allowedOrigins: string[];
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  name: string;
  /** The first characters of the key, to recognise it; the rest exists only as the hash. */
  prefix: string;
  /** Hex SHA-256 of the whole key. */
  hash: string;
  createdAt: number;
  lastUsedAt: number | null;
  /** A rotated key works until then; null: no end. */
  expiresAt: number | null;
  revokedAt: number | null;
}

export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, 'name' | 'expiresAt' | 'revokedAt' | 'lastUsedAt'>>;

export interface AdminRecord {
  username: string;
  /** `scrypt$N$r$p$salt$hash` (base64url parts). */
  passwordHash: string;
  createdAt: number;
}

export interface ConsoleSessionRecord {
  /** Hex SHA-256 of the cookie's value: a database read never yields a working cookie. */
  tokenHash: string;
  username: string;
  /** The token every change must echo in `X-CSRF-Token`. */
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

export interface AuditEntry {
  id: number;
  at: number;
  /** The admin's username, or `cli` / `start-up` for changes made outside the console. */
  actor: string;
  /** `project.create`, `key.revoke`, `sign_in`, … */
  action: string;
  projectId: string | null;
  target: string | null;
  detail: Record<string, unknown> | null;
  address: string | null;
}

export interface ConversationFilter {
  /** One thread only (its summary). */
  threadId?: string;
  /** Full-text search over titles and message text. */
  q?: string;
  downvoted?: boolean;
  uncertain?: boolean;
  handoff?: boolean;
  error?: boolean;
  toolUsed?: boolean;
  integrationId?: string;
  /** `updatedAt` bounds, epoch ms, inclusive from, exclusive to. */
  from?: number;
  to?: number;
}

export interface ConversationSummary extends ThreadMeta {
  messages: number;
  upvotes: number;
  downvotes: number;
  uncertain: boolean;
  error: boolean;
  toolUsed: boolean;
  handoffAt: number | null;
}

export interface ActivityCounts {
  sessions: number;
  threads: number;
  messages: number;
  upvotes: number;
  downvotes: number;
  promptTokens: number;
  completionTokens: number;
}

/** Activity aggregated where the data lives (SQL), from the same rollup the query API reads. */
export interface ActivitySummary {
  /** Days (UTC day numbers) with any activity; the others are zero. */
  days: ({ day: number } & ActivityCounts)[];
  totals: ActivityCounts & { uniqueOwners: number };
  byIntegration: ({ integrationId: string } & ActivityCounts)[];
}

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
