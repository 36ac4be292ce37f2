/**
 * The console's records: the directory (projects, integrations, API keys) that the agent API
 * also reads, the admin side (accounts, console sessions, the audit log), and the project-wide
 * reads (conversations across owners, activity per day).
 */
import type { ActivityCounts, ConsoleCounts } from '../../contract/activity.js';
import type { ConsoleRole } from '../../contract/console.js';
import type { ThreadMeta } from './records.js';

export type { ActivityCounts };

export interface ProjectRecord {
  id: string;
  name: string;
  /** HMAC secret for the owner keys the console shows; never leaves the service. */
  ownerSecret: string;
  createdAt: number;
}

/** Sessions and answers of one UTC day: a public integration's budget, or what it spent. */
export interface DailyCounts {
  sessions: number;
  answers: number;
}

/** A new integration's daily budget: a docs site's busy day, and a bound on what a flood costs (decision 356). */
export const DEFAULT_DAILY_BUDGET: Readonly<DailyCounts> = { sessions: 500, answers: 2000 };

export interface IntegrationRecord {
  projectId: string;
  id: string;
  name: string;
  /** Origins (`https://docs.example.com`) whose pages may call the agent API; empty: any. */
  allowedOrigins: string[];
  /** Pages on the allowed origins may mint their own anonymous sessions (§2b); needs an origin. */
  public: boolean;
  /** What public sessions of this integration may spend per UTC day. */
  budget: DailyCounts;
  createdAt: number;
}

/** A new integration: not public, with the default budget, unless it says otherwise. */
export type IntegrationInput = Omit<IntegrationRecord, 'public' | 'budget'> &
  Partial<Pick<IntegrationRecord, 'public' | 'budget'>>;

/** What an update may change. */
export type IntegrationPatch = Partial<
  Pick<IntegrationRecord, 'name' | 'allowedOrigins' | 'public' | 'budget'>
>;

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
  /** When the sessions it minted were ended ("revoke and end its sessions"); null: they run out. */
  sessionsEndedAt: number | null;
}

export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, 'name' | 'expiresAt' | 'revokedAt' | 'lastUsedAt'>>;

/** What a console account may do (decision 718): the contract's roles, as stored. */
export type AdminRole = ConsoleRole;

export interface AdminRecord {
  username: string;
  role: AdminRole;
  /** `scrypt$N$r$p$salt$hash` (base64url parts). */
  passwordHash: string;
  createdAt: number;
}

export type NewAdmin = Omit<AdminRecord, 'role'> & { role?: AdminRole };

/** What the admins' list shows of one: never its password's hash. */
export interface AdminSummary {
  username: string;
  role: AdminRole;
  createdAt: number;
  /** When its newest console session began; null: never signed in (or not since this was kept). */
  lastSignInAt: number | null;
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

/** A session as a call reads it: with its admin's role now (a change applies at the next call). */
export type ConsoleSessionWithRole = ConsoleSessionRecord & { role: AdminRole };

/** What the Audit log page filters on (decision 719); each one left out matches everything. */
export interface AuditFilter {
  limit: number;
  /** Strictly older than this entry id (the next page). */
  before?: number;
  projectId?: string;
  actor?: string;
  action?: string;
  /** `at` bounds, epoch ms, inclusive from, exclusive to. */
  from?: number;
  to?: number;
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
  /** An answer cites a page of the project's docs changed or gone since it was written. */
  staleSources?: boolean;
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
  /** An answer cites a page of the project's docs changed or gone since it was written. */
  staleSources: boolean;
  handoffAt: number | null;
}

/** Activity aggregated where the data lives (SQL), from the same rollup the query API reads. */
export interface ActivitySummary {
  /** Days (UTC day numbers) with any activity; the others are zero. */
  days: ({ day: number } & ConsoleCounts)[];
  totals: ConsoleCounts & { uniqueOwners: number };
  byIntegration: ({ integrationId: string } & ConsoleCounts)[];
}
