import type { Agent } from '../agents/types.js';
import type { DocsLibrary } from '../docs/library.js';
import type { AnswerRunner } from '../answers/types.js';
import type { Log } from '../kernel/log.js';
import type { FileQuota, SessionRecord, StoreRole, StoresOf } from '../storage/types.js';
import type { Clock } from '../kernel/clock.js';
import { HttpError } from '../http/errors.js';
import type { Directory, ProjectView } from '../http/directory.js';
import { type RateLimit, checkRate } from '../http/rate-limiter.js';
import { hashToken } from '../kernel/tokens.js';
import type { WebhookNetwork } from '../notifications/address.js';
import type { WidgetRelease, WidgetReleases } from '../http/widget-releases.js';

export type { WidgetRelease } from '../http/widget-releases.js';

export type { ProjectConfig, ProjectView } from '../http/directory.js';

/** What the host knows about a request that the request itself cannot be trusted to say. */
export interface RequestInfo {
  /** The peer address (from the socket, or a proxy header the host trusts). */
  clientAddress?: string;
}

/** Turns a password into a stored hash and checks one; the Node face supplies scrypt. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * `lane` 'known': a sign-in from a browser that signed in to this name before, or a signed-in
   * admin's; the service's bounded hasher takes those first (decision 820).
   */
  verify(password: string, stored: string, lane?: 'known'): Promise<boolean>;
  /** Whether a stored hash has weaker parameters than `hash` gives now: it is re-hashed at the next sign-in. */
  outdated?(stored: string): boolean;
}

/** What the console needs beyond the core: a password hash, its built pages. */
export interface ConsoleOptions {
  passwords: PasswordHasher;
  /** A built page file by its path under /console/ (`index.html`, `assets/…`); undefined: none. */
  files?: (path: string) => Promise<{ body: Uint8Array; type: string } | undefined>;
}

/** The limits of one service; each holds for the whole fleet (its state is in the store). */
export interface Limits {
  /** Agent calls, per owner (or per client address for sessions without owner). */
  readonly agent: RateLimit | false;
  /** Session mints, per project: tokens must not be a free way around the agent limit. */
  readonly mint: RateLimit | false;
  /** Answers generating at once, per owner (or client address). */
  readonly concurrentAnswers: number | false;
  /** Public session mints (§2b), per client address and project. */
  readonly publicMint: RateLimit | false;
  /** The largest number a public challenge hides: a browser tries half of them on average. */
  readonly challengeWork: number;
  /** What files no question used yet may take, per uploader and per integration (§11). */
  readonly files: FileQuota;
}

/**
 * What every route reads: configuration and the service's parts, no state of its own. `R` names
 * the storage roles a route may reach (none by default): the composition root holds every role,
 * and each route module's functions say which of them they use.
 */
export interface ServiceContext<R extends StoreRole = never> {
  /** null: the console is off (its paths answer 404). */
  readonly console: ConsoleOptions | null;
  /** null: this build has no widget release (/widget/ answers 404, the console says so). */
  readonly widget: WidgetRelease | null;
  /** This build's release and those the fleet served before, as /widget/ serves them (decision 741). */
  readonly widgetReleases: WidgetReleases;
  /** Projects, integrations and API keys, from storage (cached briefly). */
  readonly directory: Directory;
  readonly storage: StoresOf<R>;
  readonly clock: Clock;
  readonly agent: Agent;
  /** The documentation the agents answer from, when the service has a library (the console's Sources page). */
  readonly docs: DocsLibrary | null;
  readonly answers: AnswerRunner;
  readonly tokenTtlMs: number;
  readonly limits: Limits;
  /** Absolute base URL for links the service writes; relative links when absent. */
  readonly publicUrl: string | null;
  readonly basePath: string;
  /** How old the activity rollup may get: it is refreshed this often, off the request path. */
  readonly activityStalenessMs: number;
  /** How long a conversation is kept after its last message; 0: until deleted (decision 603). */
  readonly conversationRetentionMs: number;
  /** Where webhooks may point and how their names resolve (decisions 626-627). */
  readonly webhooks: WebhookNetwork;
  readonly log: Log;
}

/**
 * What a routing table calls: the context (the router holds every role; each route names the
 * ones it uses), the request, what the host knows about it, and the ids its path holds.
 */
export type RouteHandler = (
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
  ...params: string[]
) => Promise<Response>;

/** Stand-ins for project ids nobody configured; no key or token ever matches them. */
const UNKNOWN_PROJECTS = new WeakSet<ProjectView>();

/**
 * The project a path names, from the directory. An unknown id gets a stand-in that no key and no
 * token matches, so an unauthenticated call gets the same 401 whether the project exists or not:
 * project ids cannot be enumerated.
 */
export async function requireProject(ctx: ServiceContext, projectId: string): Promise<ProjectView> {
  const project = await ctx.directory.project(projectId);
  if (project) return project;
  const unknown: ProjectView = {
    project: { id: projectId, name: '', ownerSecret: '', createdAt: 0 },
    id: projectId,
    integrations: new Map(),
    integrationIds: [],
    keys: [],
    loadedAt: ctx.clock.now(),
  };
  UNKNOWN_PROJECTS.add(unknown);
  return unknown;
}

/**
 * Server-to-server calls (sessions, query API) authenticate with one of the project's live API
 * keys; the key presented is returned (the session's owner key is computed under it) with its id.
 */
export async function requireApiKey(
  ctx: ServiceContext,
  request: Request,
  project: ProjectView,
): Promise<{ apiKey: string; keyId: string }> {
  const presented = request.headers.get('X-API-Key');
  const key =
    presented && !UNKNOWN_PROJECTS.has(project)
      ? await ctx.directory.verifyKey(project, presented)
      : undefined;
  if (!presented || !key) {
    throw new HttpError(
      401,
      'invalid_api_key',
      'Missing or invalid X-API-Key for this project: check the project id and the API key.',
    );
  }
  return { apiKey: presented, keyId: key.id };
}

/** Whether the key that minted a session had its sessions ended (as the directory knows, within its cache time). */
const endedByItsKey = (session: SessionRecord, project: ProjectView) =>
  session.keyId !== null && project.keys.some((k) => k.id === session.keyId && k.sessionsEndedAt !== null);

/**
 * Whether nothing ended a session of `project` early: its project is one, the key that minted it
 * did not have its sessions ended, and a public session's integration (§2b) is still public
 * (its owner made it private: every route refuses its sessions, decision 681). Expiry is the
 * caller's to check: an open stream outlives its token (decision 684).
 */
export function sessionHolds(session: SessionRecord, project: ProjectView | undefined): boolean {
  return (
    project !== undefined &&
    session.projectId === project.id &&
    !UNKNOWN_PROJECTS.has(project) &&
    !endedByItsKey(session, project) &&
    (!session.integrationId || project.integrations.get(session.integrationId)?.public === true)
  );
}

/**
 * Agent calls authenticate with `Authorization: Bearer <session_token>`. The rate limit sits
 * where the identity lives: the owner, or for sessions without owner the client address
 * (tokens are free to mint, so a per-token limit would cap nothing).
 */
export async function requireSession(
  ctx: ServiceContext<'directory' | 'rates'>,
  request: Request,
  project: ProjectView,
  info: RequestInfo,
): Promise<SessionRecord> {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get('Authorization') ?? '');
  const session = match ? await ctx.storage.directory.getSession(await hashToken(match[1])) : undefined;
  if (!session || session.expiresAt <= ctx.clock.now() || !sessionHolds(session, project)) {
    throw new HttpError(401, 'invalid_token', 'Missing, unknown or expired session token.');
  }
  await checkRate(
    ctx.storage.rates,
    ctx.clock,
    ctx.limits.agent,
    `agent\n${project.id}\n${identityOf(session, info)}`,
  );
  return session;
}

/** Whom a session's limits count against: its owner, else its client address, else itself. */
export function identityOf(session: SessionRecord, info: RequestInfo): string {
  return session.owner !== null
    ? `owner:${session.owner}`
    : info.clientAddress
      ? `addr:${info.clientAddress}`
      : `session:${session.tokenHash}`;
}
