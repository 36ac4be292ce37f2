import type { Agent } from './agent.js';
import type { Clock } from './clock.js';
import { HttpError } from './http.js';
import type { SessionRecord, Storage } from './storage.js';

export interface ProjectConfig {
  id: string;
  apiKey: string;
  integrationIds: string[];
}

export interface ServiceContext {
  projects: ReadonlyMap<string, ProjectConfig>;
  storage: Storage;
  clock: Clock;
  agent: Agent;
  tokenTtlMs: number;
  rateLimiter: RateLimiter;
}

export function requireProject(ctx: ServiceContext, projectId: string): ProjectConfig {
  const project = ctx.projects.get(projectId);
  if (!project) throw new HttpError(404, 'not_found', `Unknown project ${projectId}.`);
  return project;
}

/** Server-to-server calls (sessions, query API) authenticate with the project's API key. */
export function requireApiKey(request: Request, project: ProjectConfig): void {
  if (request.headers.get('X-API-Key') !== project.apiKey) {
    throw new HttpError(401, 'invalid_api_key', 'Missing or invalid X-API-Key.');
  }
}

/** Agent calls authenticate with `Authorization: Bearer <session_token>` and are rate limited per token. */
export async function requireSession(ctx: ServiceContext, request: Request, project: ProjectConfig): Promise<SessionRecord> {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get('Authorization') ?? '');
  const session = match ? await ctx.storage.getSession(match[1]) : undefined;
  if (!session || session.projectId !== project.id || session.expiresAt <= ctx.clock.now()) {
    throw new HttpError(401, 'invalid_token', 'Missing, unknown or expired session token.');
  }
  ctx.rateLimiter.check(session.token);
  return session;
}

export interface RateLimit {
  requests: number;
  windowMs: number;
}

/** Fixed-window limit per token; answers 429 with the seconds left in the window. */
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
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > this.limit.requests) {
      const retryAfter = Math.max(1, Math.ceil((window.start + this.limit.windowMs - now) / 1000));
      throw new HttpError(429, 'rate_limited', `Too many requests; retry in ${retryAfter} s.`, { 'Retry-After': String(retryAfter) });
    }
  }
}
