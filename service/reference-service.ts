import { type Agent, DemoAgent } from './agent.js';
import { activity, removedAnalyticsActivity } from './activity.js';
import { Answers, TOOL_WAIT_MS } from './answers.js';
import { cancel, chat, reattach } from './chat.js';
import { type Clock, systemClock } from './clock.js';
import { type ProjectConfig, type RateLimit, RateLimiter, type RequestInfo, type ServiceContext } from './context.js';
import { feedback } from './feedback.js';
import { deleteThread, getThread, listThreads, renameThread } from './history.js';
import { HttpError, badRequest, json, notFound, preflight } from './http.js';
import { createSession } from './sessions.js';
import { MemoryStorage, type Storage } from './storage.js';

export type { RequestInfo };

/** One structured log entry; never a token, a key or message text. */
export type LogEntry = { level: 'info' | 'warn' | 'error'; msg: string } & Record<string, string | number | boolean | null>;

export interface ReferenceServiceOptions {
  projects: ProjectConfig[];
  /** Path prefix the service is mounted under (e.g. `/service`); '' at the origin root. */
  basePath?: string;
  /** The service's public origin (e.g. `https://agent.example.com`) for links it writes; relative links when absent. */
  publicUrl?: string;
  storage?: Storage;
  clock?: Clock;
  agent?: Agent;
  tokenTtlMs?: number;
  /** Agent calls per owner, or per client address for sessions without owner; false turns it off. Default 60 a minute. */
  rateLimit?: RateLimit | false;
  /** Session mints per project. Default 600 a minute. */
  sessionMintLimit?: RateLimit | false;
  /** Longest an answer may generate before it ends with an error. Default 5 minutes. */
  maxAnswerMs?: number;
  /** How old activity figures may be before a query rebuilds the rollup. Default 60 s. */
  activityStalenessMs?: number;
  /** How long activity events are kept. Default 400 days. */
  eventRetentionMs?: number;
  log?: (entry: LogEntry) => void;
}

export interface ReferenceService {
  /** A Fetch handler: runs under msw, as Vite/Node middleware, or in any Fetch-style server. */
  handle(request: Request, info?: RequestInfo): Promise<Response>;
  readonly storage: Storage;
  /** Purges expired sessions, old events and rate windows; stops answers that waited too long for tools. */
  maintain(): Promise<{ sessions: number; events: number; answers: number; rateWindows: number }>;
  /** Answers in flight are stored as stopped; the storage is closed. */
  close(): Promise<void>;
}

type Handler = (ctx: ServiceContext, request: Request, info: RequestInfo, ...params: string[]) => Promise<Response>;
type Route = { pattern: RegExp; methods: Record<string, Handler> };

const ID = '([^/]+)';
const AGENT = `^/agent/v1/projects/${ID}/agent`;
const ROUTES: Route[] = [
  { pattern: new RegExp(`${AGENT}/sessions/$`), methods: { POST: createSession } },
  { pattern: new RegExp(`${AGENT}/chat/$`), methods: { POST: chat } },
  { pattern: new RegExp(`${AGENT}/feedback/$`), methods: { POST: feedback } },
  { pattern: new RegExp(`${AGENT}/answers/${ID}/stream/$`), methods: { GET: reattach } },
  { pattern: new RegExp(`${AGENT}/answers/${ID}/cancel/$`), methods: { POST: cancel } },
  { pattern: new RegExp(`${AGENT}/threads/$`), methods: { GET: listThreads } },
  { pattern: new RegExp(`${AGENT}/threads/${ID}/$`), methods: { GET: getThread, DELETE: deleteThread, PATCH: renameThread } },
  { pattern: new RegExp(`^/query/v1/projects/${ID}/activity/$`), methods: { GET: activity } },
];
const REMOVED_ANALYTICS = new RegExp(`^/query/v1/projects/${ID}/analytics/activity/$`);

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('The path has malformed percent-encoding.');
  }
}

export function createReferenceService(options: ReferenceServiceOptions): ReferenceService {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  const ctx: ServiceContext = {
    projects: new Map(options.projects.map((p) => [p.id, p])),
    storage: options.storage ?? new MemoryStorage(),
    clock,
    agent: options.agent ?? new DemoAgent(),
    answers: new Answers(() => ctx, options.maxAnswerMs ?? 5 * 60_000),
    tokenTtlMs: options.tokenTtlMs ?? 3_600_000,
    rateLimiter: new RateLimiter(options.rateLimit ?? { requests: 60, windowMs: 60_000 }, clock),
    mintLimiter: new RateLimiter(options.sessionMintLimit ?? { requests: 600, windowMs: 60_000 }, clock),
    publicUrl: options.publicUrl?.replace(/\/+$/, '') ?? null,
    basePath: (options.basePath ?? '').replace(/\/+$/, ''),
    activityStalenessMs: options.activityStalenessMs ?? 60_000,
    activityRefreshedAt: Number.NEGATIVE_INFINITY,
    activityRefresh: null,
    log,
  };
  const retentionMs = options.eventRetentionMs ?? 400 * 86_400_000;

  async function route(request: Request, info: RequestInfo): Promise<Response> {
    const fullPath = new URL(request.url).pathname;
    if (!fullPath.startsWith(ctx.basePath)) throw notFound();
    const path = fullPath.slice(ctx.basePath.length);
    if (request.method === 'OPTIONS') return preflight();
    const removed = REMOVED_ANALYTICS.exec(path);
    if (removed) return removedAnalyticsActivity(ctx, decode(removed[1]));
    for (const { pattern, methods } of ROUTES) {
      const match = pattern.exec(path);
      if (!match) continue;
      const handler = methods[request.method];
      if (!handler) throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed here.`, { Allow: Object.keys(methods).join(', ') });
      return handler(ctx, request, info, ...match.slice(1).map(decode));
    }
    throw notFound();
  }

  return {
    storage: ctx.storage,
    async handle(request, info = {}) {
      try {
        return await route(request, info);
      } catch (error) {
        if (error instanceof HttpError) return error.toResponse();
        // The error's name only: messages and stacks may quote what the visitor wrote.
        log({ level: 'error', msg: 'internal_error', method: request.method, error: error instanceof Error ? error.name : typeof error });
        return json({ detail: 'Internal error.', code: 'internal_error' }, 500);
      }
    },
    async maintain() {
      const now = clock.now();
      const purged = await ctx.storage.purge({ sessionsBefore: now, eventsBefore: now - retentionMs });
      const answers = await ctx.storage.stopStale(now - Math.max(TOOL_WAIT_MS, 2 * (options.maxAnswerMs ?? 5 * 60_000)));
      ctx.mintLimiter.sweep();
      return { ...purged, answers, rateWindows: ctx.rateLimiter.sweep() };
    },
    async close() {
      await ctx.answers.stopAll();
      await ctx.storage.close();
    },
  };
}
