import { SESSION_TTL_MS, TOOL_WAIT_MS } from '../contract/limits.js';
import { addressKey, checkTrustProxy, clientAddress, type TrustProxy } from '../server/client-address.js';
import { DemoAgent } from './agents/demo.js';
import type { Agent } from './agents/types.js';
import { Answers } from './answers/live-answers.js';
import { type Clock, systemClock } from './http/clock.js';
import { Directory } from './http/directory.js';
import type { ConsoleOptions, ProjectConfig, RequestInfo, ServiceContext } from './http/context.js';
import { HttpError } from './http/errors.js';
import { type RateLimit, RateLimiter } from './http/rate-limiter.js';
import { json } from './http/responses.js';
import { route } from './http/router.js';
import { MemoryStorage } from './storage/memory.js';
import type { Storage } from './storage/types.js';

export type { ConsoleOptions, RequestInfo, TrustProxy };

/** One structured log entry; never a token, a key or message text. */
export type LogEntry = { level: 'info' | 'warn' | 'error'; msg: string } & Record<string, string | number | boolean | null>;

export interface ReferenceServiceOptions {
  /** Projects made to exist at start (idempotent); the console manages them and others. */
  projects?: ProjectConfig[];
  /** The console at `/console/` (sign-in, keys, integrations, activity, conversations); off when absent. */
  console?: ConsoleOptions;
  /** How long projects, integrations and keys are cached; a revoke reaches every instance within it. Default 5 s. */
  directoryCacheMs?: number;
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
  /**
   * Session mints per project. Default 600 a minute. This is the site's own server budget: only
   * the site's session endpoint mints (with the API key), and `createSessionHandler` limits each
   * visitor's address well below it, so one visitor cannot spend it for the others.
   */
  sessionMintLimit?: RateLimit | false;
  /**
   * Which forwarding headers tell the client's address for the agent limit: `0` (default) the
   * socket's (`serve()` and `toNodeHandler` pass it as `info.clientAddress`); N the N-th hop back
   * in `X-Forwarded-For` behind N reverse proxies you run; `'cloudflare'` `CF-Connecting-IP`
   * (the default inside Cloudflare Workers).
   */
  trustProxy?: TrustProxy;
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

export function createReferenceService(options: ReferenceServiceOptions): ReferenceService {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  const storage = options.storage ?? new MemoryStorage();
  const ctx: ServiceContext = {
    console: options.console ?? null,
    directory: new Directory(storage, clock, options.projects ?? [], options.directoryCacheMs),
    storage,
    clock,
    agent: options.agent ?? new DemoAgent(),
    answers: new Answers(() => ctx, options.maxAnswerMs ?? 5 * 60_000),
    tokenTtlMs: options.tokenTtlMs ?? SESSION_TTL_MS,
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
  const trustProxy = checkTrustProxy(options.trustProxy);

  return {
    storage: ctx.storage,
    async handle(request, info = {}) {
      try {
        // Limits count IPv6 addresses per /64, the block one subscriber usually holds.
        const address = clientAddress(request, info, trustProxy);
        return await route(ctx, request, { ...info, clientAddress: address && addressKey(address) });
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
