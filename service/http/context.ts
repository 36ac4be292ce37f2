import type { Agent } from '../agents/types.js';
import type { Answers } from '../answers/live-answers.js';
import type { SessionRecord, Storage } from '../storage/types.js';
import type { Clock } from './clock.js';
import { HttpError } from './errors.js';
import type { RateLimiter } from './rate-limiter.js';

export interface ProjectConfig {
  id: string;
  apiKey: string;
  integrationIds: string[];
}

/** What the host knows about a request that the request itself cannot be trusted to say. */
export interface RequestInfo {
  /** The peer address (from the socket, or a proxy header the host trusts). */
  clientAddress?: string;
}

export interface ServiceContext {
  projects: ReadonlyMap<string, ProjectConfig>;
  storage: Storage;
  clock: Clock;
  agent: Agent;
  answers: Answers;
  tokenTtlMs: number;
  /** Agent calls, per owner (or per client address for sessions without owner). */
  rateLimiter: RateLimiter;
  /** Session mints, per project: tokens must not be a free way around the agent limit. */
  mintLimiter: RateLimiter;
  /** Absolute base URL for links the service writes; relative links when absent. */
  publicUrl: string | null;
  basePath: string;
  activityStalenessMs: number;
  activityRefreshedAt: number;
  activityRefresh: Promise<void> | null;
  log: (entry: { level: 'info' | 'warn' | 'error'; msg: string } & Record<string, string | number | boolean | null>) => void;
}

/** Stand-ins for project ids nobody configured; no key or token ever matches them. */
const UNKNOWN_PROJECTS = new WeakSet<ProjectConfig>();

/**
 * The project a path names. An unknown id gets a stand-in that no key and no token matches, so
 * an unauthenticated call gets the same 401 whether the project exists or not: project ids
 * cannot be enumerated.
 */
export function requireProject(ctx: ServiceContext, projectId: string): ProjectConfig {
  const project = ctx.projects.get(projectId);
  if (project) return project;
  const unknown = { id: projectId, apiKey: 'x'.repeat(32), integrationIds: [] };
  UNKNOWN_PROJECTS.add(unknown);
  return unknown;
}

/** Compares a presented secret in time that does not depend on where it first differs. */
function sameSecret(presented: string | null, secret: string): boolean {
  if (presented === null) return false;
  let diff = presented.length ^ secret.length;
  for (let i = 0; i < secret.length; i++) diff |= presented.charCodeAt(i % Math.max(1, presented.length)) ^ secret.charCodeAt(i);
  return diff === 0;
}

/** Server-to-server calls (sessions, query API) authenticate with the project's API key. */
export function requireApiKey(request: Request, project: ProjectConfig): void {
  const matches = sameSecret(request.headers.get('X-API-Key'), project.apiKey);
  if (!matches || UNKNOWN_PROJECTS.has(project)) {
    throw new HttpError(401, 'invalid_api_key', 'Missing or invalid X-API-Key for this project: check the project id and the API key.');
  }
}

/**
 * Agent calls authenticate with `Authorization: Bearer <session_token>`. The rate limit sits
 * where the identity lives: the owner, or for sessions without owner the client address
 * (tokens are free to mint, so a per-token limit would cap nothing).
 */
export async function requireSession(ctx: ServiceContext, request: Request, project: ProjectConfig, info: RequestInfo): Promise<SessionRecord> {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get('Authorization') ?? '');
  const session = match ? await ctx.storage.getSession(match[1]) : undefined;
  if (!session || session.projectId !== project.id || session.expiresAt <= ctx.clock.now() || UNKNOWN_PROJECTS.has(project)) {
    throw new HttpError(401, 'invalid_token', 'Missing, unknown or expired session token.');
  }
  const identity = session.owner !== null ? `owner:${session.owner}` : info.clientAddress ? `addr:${info.clientAddress}` : `session:${session.token}`;
  ctx.rateLimiter.check(`${project.id}\n${identity}`);
  return session;
}
