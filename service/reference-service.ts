import { type Agent, DemoAgent } from './agent.js';
import { activity, removedAnalyticsActivity } from './activity.js';
import { chat } from './chat.js';
import { type Clock, systemClock } from './clock.js';
import { type ProjectConfig, type RateLimit, RateLimiter, type ServiceContext } from './context.js';
import { deleteThread, getThread, listThreads } from './history.js';
import { HttpError, json, notFound, preflight } from './http.js';
import { createSession } from './sessions.js';
import { MemoryStorage, type Storage } from './storage.js';

export interface ReferenceServiceOptions {
  projects: ProjectConfig[];
  /** Path prefix the service is mounted under (e.g. `/service`); '' at the origin root. */
  basePath?: string;
  storage?: Storage;
  clock?: Clock;
  agent?: Agent;
  tokenTtlMs?: number;
  /** Per-token limit on agent calls; false turns it off. Default 60 per minute. */
  rateLimit?: RateLimit | false;
}

export interface ReferenceService {
  /** A Fetch handler: runs under msw, as Vite/Node middleware, or in any Fetch-style server. */
  handle(request: Request): Promise<Response>;
  readonly storage: Storage;
}

type Handler = (ctx: ServiceContext, request: Request, ...params: string[]) => Promise<Response>;
type Route = { pattern: RegExp; methods: Record<string, Handler> };

const ID = '([^/]+)';
const ROUTES: Route[] = [
  { pattern: new RegExp(`^/agent/v1/projects/${ID}/agent/sessions/$`), methods: { POST: createSession } },
  { pattern: new RegExp(`^/agent/v1/projects/${ID}/agent/chat/$`), methods: { POST: chat } },
  { pattern: new RegExp(`^/agent/v1/projects/${ID}/agent/threads/$`), methods: { GET: listThreads } },
  { pattern: new RegExp(`^/agent/v1/projects/${ID}/agent/threads/${ID}/$`), methods: { GET: getThread, DELETE: deleteThread } },
  { pattern: new RegExp(`^/query/v1/projects/${ID}/activity/$`), methods: { GET: activity } },
];
const REMOVED_ANALYTICS = new RegExp(`^/query/v1/projects/${ID}/analytics/activity/$`);

export function createReferenceService(options: ReferenceServiceOptions): ReferenceService {
  const clock = options.clock ?? systemClock;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const ctx: ServiceContext = {
    projects: new Map(options.projects.map((p) => [p.id, p])),
    storage: options.storage ?? new MemoryStorage(),
    clock,
    agent: options.agent ?? new DemoAgent(),
    tokenTtlMs: options.tokenTtlMs ?? 3_600_000,
    rateLimiter: new RateLimiter(options.rateLimit ?? { requests: 60, windowMs: 60_000 }, clock),
  };

  async function route(request: Request): Promise<Response> {
    const fullPath = new URL(request.url).pathname;
    if (!fullPath.startsWith(basePath)) throw notFound();
    const path = fullPath.slice(basePath.length);
    if (request.method === 'OPTIONS') return preflight();
    const removed = REMOVED_ANALYTICS.exec(path);
    if (removed) return removedAnalyticsActivity(request, basePath, decodeURIComponent(removed[1]));
    for (const { pattern, methods } of ROUTES) {
      const match = pattern.exec(path);
      if (!match) continue;
      const handler = methods[request.method];
      if (!handler) throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed here.`, { Allow: Object.keys(methods).join(', ') });
      return handler(ctx, request, ...match.slice(1).map(decodeURIComponent));
    }
    throw notFound();
  }

  return {
    storage: ctx.storage,
    async handle(request) {
      try {
        return await route(request);
      } catch (error) {
        if (error instanceof HttpError) return error.toResponse();
        console.error('[reference-service]', error);
        return json({ detail: 'Internal error.', code: 'internal_error' }, 500);
      }
    },
  };
}
