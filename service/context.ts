import type { Agent } from './agent.js';
import type { Answers } from './answers.js';
import type { Clock } from './clock.js';
import { HttpError } from './http.js';
import type { SessionRecord, Storage } from './storage.js';

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

export function requireProject(ctx: ServiceContext, projectId: string): ProjectConfig {
  const project = ctx.projects.get(projectId);
  if (!project) throw new HttpError(404, 'not_found', 'Unknown project.');
  return project;
}

/** Server-to-server calls (sessions, query API) authenticate with the project's API key. */
export function requireApiKey(request: Request, project: ProjectConfig): void {
  if (request.headers.get('X-API-Key') !== project.apiKey) {
    throw new HttpError(401, 'invalid_api_key', 'Missing or invalid X-API-Key.');
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
  if (!session || session.projectId !== project.id || session.expiresAt <= ctx.clock.now()) {
    throw new HttpError(401, 'invalid_token', 'Missing, unknown or expired session token.');
  }
  const identity = session.owner !== null ? `owner:${session.owner}` : info.clientAddress ? `addr:${info.clientAddress}` : `session:${session.token}`;
  ctx.rateLimiter.check(`${project.id}\n${identity}`);
  return session;
}

export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** Keys kept before a sweep is forced; windows expire after `windowMs`, so this bounds memory. */
const MAX_WINDOWS = 100_000;

/** Fixed-window limit per key; answers 429 with the seconds left in the window. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: RateLimit | false,
    private readonly clock: Clock,
  ) {}

  check(key: string): void {
    if (!this.limit) return;
    const now = this.clock.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.limit.windowMs) {
      if (!window && this.windows.size >= MAX_WINDOWS) this.sweep();
      // Still full of live windows: a flood of distinct keys. Refuse rather than grow.
      if (!window && this.windows.size >= MAX_WINDOWS) throw this.refusal(Math.ceil(this.limit.windowMs / 1000));
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > this.limit.requests) throw this.refusal(Math.max(1, Math.ceil((window.start + this.limit.windowMs - now) / 1000)));
  }

  /** Drops expired windows; returns how many are left. */
  sweep(): number {
    if (!this.limit) return 0;
    const now = this.clock.now();
    for (const [key, window] of this.windows) if (now - window.start >= this.limit.windowMs) this.windows.delete(key);
    return this.windows.size;
  }

  get size(): number {
    return this.windows.size;
  }

  private refusal(retryAfter: number) {
    return new HttpError(429, 'rate_limited', `Too many requests; retry in ${retryAfter} s.`, { 'Retry-After': String(retryAfter) });
  }
}
