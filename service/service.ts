import { SESSION_TTL_MS } from '../contract/limits.js';
import {
  addressKey,
  checkTrustProxy,
  clientAddress,
  fewerHopsThanTrusted,
  type TrustProxy,
} from '../server/client-address.js';
import { DemoAgent } from './agents/demo.js';
import type { Agent } from './agents/types.js';
import type { DocsLibrary } from './docs/library.js';
import type { FailedAnswer } from './answers/failure-log.js';
import type { LogEntry } from './kernel/log.js';
import { Answers } from './answers/live-answers.js';
import { KEEPALIVE_MS } from './answers/record-stream.js';
import { heartbeat, maintain, refreshActivity, runDuties } from './duties.js';
import { type Clock, systemClock } from './kernel/clock.js';
import { Directory } from './http/directory.js';
import type {
  ConsoleOptions,
  ProjectConfig,
  RequestInfo,
  ServiceContext,
  WidgetRelease,
} from './routes/context.js';
import { HttpError } from './http/errors.js';
import type { RateLimit } from './http/rate-limiter.js';
import { json } from './http/responses.js';
import { type Resolve, systemResolve } from './kernel/addresses.js';
import { closeIdlePdfThreads } from './kernel/pdf.js';
import { DEFAULT_TIMEOUT_MS, deliverNotifications } from './notifications/deliver.js';
import { boundedPasswords } from './routes/console/auth.js';
import { notifyFailure } from './routes/notify.js';
import { route } from './routes/index.js';
import { WidgetReleases } from './http/widget-releases.js';
import { memoryStores } from './storage/memory/index.js';
import type { FileQuota, FleetStore, StoreRole, Stores } from './storage/types.js';

export type { ConsoleOptions, LogEntry, RequestInfo, TrustProxy, WidgetRelease };

export interface AgentServiceOptions {
  /** Projects made to exist at start (idempotent); the console manages them and others. */
  projects?: ProjectConfig[];
  /** The console at `/console/` (sign-in, keys, integrations, activity, conversations); off when absent. */
  console?: ConsoleOptions;
  /** The widget release served at `/widget/{version}/` and pinned by the console (`nodeWidgetRelease()`); none when absent. */
  widget?: WidgetRelease | null;
  /** How long projects, integrations and keys are cached; a console change reaches every instance at once by a fleet signal, and within this time one that missed it (decision 640). Default 5 s. */
  directoryCacheMs?: number;
  /** Path prefix the service is mounted under (e.g. `/service`); '' at the origin root. */
  basePath?: string;
  /** The service's public origin (e.g. `https://agent.example.com`) for links it writes; relative links when absent. */
  publicUrl?: string;
  /** Every storage role on one database (`openStorage`); in memory when absent. */
  storage?: Stores;
  clock?: Clock;
  agent?: Agent;
  /**
   * The documentation the agents answer from (pass the same library to the agent): crawled on a
   * schedule with the duties, managed on the console's Sources page.
   */
  docs?: DocsLibrary;
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
  /** Answers generating at once per owner, or per client address for sessions without owner; false turns it off. Default 3. */
  maxConcurrentAnswers?: number | false;
  /** Public challenges, and public session mints (§2b), per client address and project, each; false turns it off. Default 20 a minute. */
  publicSessionLimit?: RateLimit | false;
  /**
   * The work of a public session's proof (the ALTCHA challenge's `maxnumber`): a browser hashes
   * half of it on average. Default 50,000 (decision 354).
   */
  challengeWork?: number;
  /**
   * What uploaded files no question used yet may hold (§11): per uploader (the owner, or the
   * session without owner) 20 files and 50 MB, per integration 1 GB, by default; and
   * `publicDayBytes`, what a public integration's visitors may upload in a UTC day, used or
   * not: 1 GB by default (decision 797).
   */
  unusedFileQuota?: Partial<FileQuota>;
  /** An instance that has not renewed its lease for this long is dead; others end its answers as errors. Default 30 s. */
  instanceLeaseMs?: number;
  /** Longest an answer may generate before it ends with an error. Default 5 minutes. */
  maxAnswerMs?: number;
  /**
   * A streamed answer (a chat, a reattach) that has sent nothing for this long sends a
   * `keepalive` record, which clients ignore, so a proxy's idle timeout does not cut it while the
   * model thinks (decision 586). Default 15 s; 0 sends none.
   */
  streamKeepAliveMs?: number;
  /** How old activity figures may get: the fleet rebuilds the rollup every half of it. Default 60 s. */
  activityStalenessMs?: number;
  /** How long activity events are kept. Default 400 days. */
  eventRetentionMs?: number;
  /**
   * How long a conversation is kept after its last message: the maintenance duty deletes older
   * ones with their files and reactions (decision 603). Default 0: kept until deleted.
   */
  conversationRetentionMs?: number;
  /** How long a webhook's receiver may take to answer one delivery. Default 10 s. */
  notificationTimeoutMs?: number;
  /**
   * Webhooks may reach the service's own network (private, loopback, link-local addresses) and
   * use http:// there: for an operator whose receiver is local (decision 627). Default false.
   */
  allowPrivateWebhooks?: boolean;
  /** How webhooks' host names resolve (every address of one). Default: the system's resolver. */
  webhookResolve?: Resolve;
  log?: (entry: LogEntry) => void;
}

export interface AgentService {
  /** A Fetch handler: runs under msw, as Vite/Node middleware, or in any Fetch-style server. */
  // A property, not a method: it uses no `this`, so it can be handed on alone (toNodeHandler(service.handle)).
  handle: (request: Request, info?: RequestInfo) => Promise<Response>;
  readonly storage: Stores;
  /** This instance's id in the fleet (random per start). */
  readonly instanceId: string;
  /**
   * Purges expired sessions, old events, spent rate windows, leaked slots, unused files and
   * Idempotency-Keys past their day, conversations past the retention period, widget releases
   * no page loads; stops answers that waited too long for tools.
   */
  maintain(): Promise<{
    sessions: number;
    events: number;
    answers: number;
    rateWindows: number;
    files: number;
    idempotencyKeys: number;
    conversations: number;
    deliveries: number;
    /** Widget releases dropped: no page loaded them for 180 days, or more than 20 were kept (decision 741). */
    widgetReleases: number;
  }>;
  /** Renews this instance's lease and ends the answers of instances whose lease ran out; returns how many. */
  heartbeat(): Promise<number>;
  /** Rebuilds the activity rollup if no instance did for half the staleness bound; true when this call did. */
  refreshActivity(): Promise<boolean>;
  /**
   * Builds the indexes of the projects with docs this instance has not built yet, then crawls the
   * docs that are due if it gets the crawl lease; returns how many sources it crawled.
   */
  crawlDocs(): Promise<number>;
  /**
   * Sends the webhook deliveries that are due and that no other instance holds, each attempt
   * recorded (a failed one tried again later, decision 616); returns how many arrived.
   */
  deliverNotifications(): Promise<number>;
  /**
   * Runs maintain, heartbeat, refreshActivity, crawlDocs and deliverNotifications on timers (what `serve()` does);
   * returns a stop function. Hosts that cannot keep timers call them themselves.
   */
  startDuties(options?: { maintainEveryMs?: number }): () => void;
  /**
   * True once `drain` began: a chat (§4, §7) answers 503 with `Retry-After`, `serve()`'s
   * readiness probe fails, and only the heartbeat of the duties runs (decisions 456-457).
   */
  readonly draining: boolean;
  /** Answers generating on this instance now. */
  readonly answersInFlight: number;
  /**
   * Takes no new answers and no background work (a crawl in flight stops and leaves its lease
   * to the fleet), and waits for the answers generating here to end, for at most `deadlineMs`;
   * everything else is served meanwhile. Resolves with how many answers were in flight, how many
   * still generate (`close` ends them as errors, decision 447) and how long it took.
   */
  drain(deadlineMs: number): Promise<DrainReport>;
  /** Answers in flight end as errors, their text kept (447); the instance leaves the fleet; the storage is closed. */
  close(): Promise<void>;
}

/** What a drain did: answers in flight when it began, those still generating when it ended, its length. */
export interface DrainReport {
  answers: number;
  left: number;
  ms: number;
}

/** Sized for about a second on a phone (decision 354). */
const DEFAULT_CHALLENGE_WORK = 50_000;

/** The read-only context every route gets: configuration and the service's parts, every storage role. */
function serviceContext(
  options: AgentServiceOptions,
  parts: Pick<ServiceContext<StoreRole>, 'storage' | 'clock' | 'agent' | 'answers' | 'log' | 'docs'> & {
    stalenessMs: number;
  },
): ServiceContext<StoreRole> {
  const { storage, clock, stalenessMs, ...rest } = parts;
  return {
    ...rest,
    storage,
    clock,
    console: options.console
      ? { ...options.console, passwords: boundedPasswords(options.console.passwords) }
      : null,
    widget: options.widget ?? null,
    widgetReleases: new WidgetReleases(options.widget ?? null, storage.widgets, clock, rest.log),
    directory: new Directory(storage, clock, options.projects ?? [], options.directoryCacheMs),
    tokenTtlMs: options.tokenTtlMs ?? SESSION_TTL_MS,
    limits: {
      agent: options.rateLimit ?? { requests: 60, windowMs: 60_000 },
      mint: options.sessionMintLimit ?? { requests: 600, windowMs: 60_000 },
      concurrentAnswers: options.maxConcurrentAnswers ?? 3,
      publicMint: options.publicSessionLimit ?? { requests: 20, windowMs: 60_000 },
      challengeWork: options.challengeWork ?? DEFAULT_CHALLENGE_WORK,
      files: {
        uploaderFiles: 20,
        uploaderBytes: 50_000_000,
        integrationBytes: 1_000_000_000,
        publicDayBytes: 1_000_000_000,
        ...options.unusedFileQuota,
      },
    },
    publicUrl: options.publicUrl?.replace(/\/+$/, '') ?? null,
    basePath: (options.basePath ?? '').replace(/\/+$/, ''),
    activityStalenessMs: stalenessMs,
    conversationRetentionMs: retentionPeriod(options.conversationRetentionMs),
    webhooks: {
      allowPrivate: options.allowPrivateWebhooks ?? false,
      resolve: options.webhookResolve ?? systemResolve,
    },
  };
}

/** How long the maintenance duty keeps events (default 400 days) and conversations. */
const retentions = (options: AgentServiceOptions, ctx: ServiceContext<StoreRole>) => ({
  retentionMs: options.eventRetentionMs ?? 400 * 86_400_000,
  conversationRetentionMs: ctx.conversationRetentionMs,
});

/** The conversations' retention period: 0 (the default) keeps them until deleted. */
function retentionPeriod(ms = 0): number {
  if (!(Number.isFinite(ms) && ms >= 0))
    throw new TypeError(
      '[agent-chat-service] conversationRetentionMs must be 0 (keep) or a positive duration.',
    );
  return ms;
}

/** A route's error as its response; anything else is a logged 500. */
function errorResponse(error: unknown, request: Request, log: (entry: LogEntry) => void): Response {
  if (error instanceof HttpError) return error.toResponse();
  // The error's name only: messages and stacks may quote what the visitor wrote.
  log({
    level: 'error',
    msg: 'internal_error',
    method: request.method,
    error: error instanceof Error ? error.name : typeof error,
  });
  return json({ detail: 'Internal error.', code: 'internal_error' }, 500);
}

export function createAgentService(options: AgentServiceOptions): AgentService {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => {});
  const storage = options.storage ?? memoryStores();
  const agent = options.agent ?? new DemoAgent();
  const maxAnswerMs = options.maxAnswerMs ?? 5 * 60_000;
  const leaseMs = options.instanceLeaseMs ?? 30_000;
  const stalenessMs = options.activityStalenessMs ?? 60_000;
  const keepAliveMs = options.streamKeepAliveMs ?? KEEPALIVE_MS;
  // The project's webhooks hear of failed answers through the context the routes use (built next).
  const failed = (f: FailedAnswer) => void notifyFailure(ctx, f);
  const answers = new Answers({ storage, clock, agent, log, maxAnswerMs, leaseMs, keepAliveMs, failed });
  const docs = options.docs ?? null;
  const ctx = serviceContext(options, { storage, clock, agent, answers, log, stalenessMs, docs });
  const upkeep = { ...retentions(options, ctx), maxAnswerMs, log, failed, widgets: ctx.widgetReleases };
  const send = { timeoutMs: options.notificationTimeoutMs ?? DEFAULT_TIMEOUT_MS, network: ctx.webhooks };
  const trustProxy = checkTrustProxy(options.trustProxy);
  const join = fleetJoin(storage.fleet, answers, ctx.directory, ctx.widgetReleases);
  const timers = new Set<ReturnType<typeof setInterval>>();
  const warnHops = hopWarning(trustProxy, log);
  const duties = { leaseMs, stalenessMs, log, draining: () => answers.draining };

  const service: AgentService = {
    storage,
    instanceId: answers.instanceId,
    async handle(request, info = {}) {
      let response: Response;
      try {
        await join();
        // Limits count IPv6 addresses per /64, the block one subscriber usually holds.
        const address = clientAddress(request, info, trustProxy);
        warnHops(request);
        response = await route(ctx, request, { ...info, clientAddress: address && addressKey(address) });
      } catch (error) {
        response = errorResponse(error, request, log);
      }
      // Every answer is read as the type it says, never sniffed into a page or a script.
      response.headers.set('X-Content-Type-Options', 'nosniff');
      return response;
    },
    maintain: () => maintain(storage, clock.now(), upkeep),
    heartbeat: () => heartbeat(storage.fleet, answers, leaseMs, clock),
    refreshActivity: () => refreshActivity(storage.activity, stalenessMs, clock),
    // Indexes first: a visitor's question cannot wait, a crawl due every few hours can.
    crawlDocs: async () => (docs ? docs.warm().then(() => docs.tick()) : 0),
    deliverNotifications: () => deliverNotifications(storage.notifications, clock, send),
    startDuties: ({ maintainEveryMs = 60_000 } = {}) =>
      startDuties(service, timers, ctx.widgetReleases, { maintainEveryMs, ...duties }),
    get draining() {
      return answers.draining;
    },
    get answersInFlight() {
      return answers.size;
    },
    drain: (deadlineMs) => drainInstance(answers, docs, deadlineMs),
    close: () => closeInstance(timers, docs, answers, storage, ctx.directory),
  };
  return service;
}

/**
 * The duties on timers, and this build's widget release kept at once, not at the first request:
 * during a rolling upgrade the instances of the release before serve its files as soon as it is up.
 */
function startDuties(
  service: AgentService,
  timers: Set<ReturnType<typeof setInterval>>,
  widgets: WidgetReleases,
  options: Parameters<typeof runDuties>[2],
) {
  void widgets.keep();
  return runDuties(service, timers, options);
}

/** Answers in flight end as errors, their text kept (447); the instance leaves the fleet; the storage is closed. */
async function closeInstance(
  timers: Set<ReturnType<typeof setInterval>>,
  docs: DocsLibrary | null,
  answers: Answers,
  storage: Stores,
  directory: Directory,
) {
  for (const timer of timers) clearInterval(timer);
  timers.clear();
  await docs?.close();
  await answers.stopAll();
  await directory.close();
  await storage.fleet.retireInstance(answers.instanceId).catch(() => {});
  await storage.close();
  // A question's PDF or a crawl's left pdf.js's thread waiting for the next (decision 764).
  await closeIdlePdfThreads();
}

/**
 * Joins the fleet (a lease, the signals) before the first request; a failure is retried by the
 * next one.
 */
function fleetJoin(
  fleet: FleetStore,
  answers: Answers,
  directory: Directory,
  widgets: WidgetReleases,
): () => Promise<void> {
  let joined: Promise<void> | null = null;
  return () =>
    (joined ??= Promise.all([
      fleet.heartbeat(answers.instanceId),
      answers.listen(),
      directory.listen(),
      // Before the first request, so that an instance of another release serves this one's pages.
      widgets.keep(),
    ]).then(
      () => {},
      (error) => {
        joined = null;
        throw error;
      },
    ));
}

/** A drain (decision 456): the answers in flight end, and a crawl under way hands over (458), at once. */
async function drainInstance(
  answers: Answers,
  docs: DocsLibrary | null,
  deadlineMs: number,
): Promise<DrainReport> {
  const started = performance.now();
  const [report] = await Promise.all([answers.drain(deadlineMs), docs?.close()]);
  return { ...report, ms: Math.round(performance.now() - started) };
}

/** A trustProxy one hop too high lets a visitor pick the address limits count: says so once. */
function hopWarning(trustProxy: TrustProxy, log: (entry: LogEntry) => void) {
  let warned = false;
  return (request: Request) => {
    if (warned) return;
    const entries = fewerHopsThanTrusted(request, trustProxy);
    if (entries === undefined) return;
    warned = true;
    log({
      level: 'warn',
      msg: 'trust_proxy_too_high',
      trustProxy,
      forwarded: entries,
      hint: `A request came through ${entries} proxies but trustProxy counts ${String(trustProxy)}: visitors can choose the address limits count. Set it to the number of proxies in front.`,
    });
  };
}
