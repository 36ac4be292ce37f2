/**
 * The console's JSON API (`{base}/console/api`): its paths and the shapes both sides speak, the
 * service's routes (service/routes/console/) and the console's client (service/console/api.ts).
 * Same origin, a cookie session, `X-CSRF-Token` on every change; paths have no trailing slash.
 */
import type { ActivityFreshness, ConsoleCounts } from './activity.js';
import type { ActivityStep, FileInfo, FileKind, MessageStatus, Reaction, Source, ToolCall } from './types.js';

/** Where the console's API sits, under the service's base path. */
export const CONSOLE_API = '/console/api';

const id = (value: string) => encodeURIComponent(value);

/** Each path of the console's API, relative to `CONSOLE_API`. */
export const consolePaths = {
  /** GET who is signed in, POST sign in, DELETE sign out. */
  session: '/session',
  projects: '/projects',
  project: (projectId: string) => `/projects/${id(projectId)}`,
  integrations: (projectId: string) => `/projects/${id(projectId)}/integrations`,
  integration: (projectId: string, integrationId: string) =>
    `/projects/${id(projectId)}/integrations/${id(integrationId)}`,
  keys: (projectId: string) => `/projects/${id(projectId)}/keys`,
  key: (projectId: string, keyId: string) => `/projects/${id(projectId)}/keys/${id(keyId)}`,
  keyRotation: (projectId: string, keyId: string) => `/projects/${id(projectId)}/keys/${id(keyId)}/rotate`,
  /** `?start&end&integration_id`, and `format=csv` for a spreadsheet. */
  activity: (projectId: string) => `/projects/${id(projectId)}/activity`,
  conversations: (projectId: string) => `/projects/${id(projectId)}/conversations`,
  /** GET a thread, DELETE it (with its messages, files and reactions). */
  conversation: (projectId: string, threadId: string) =>
    `/projects/${id(projectId)}/conversations/${id(threadId)}`,
  /** GET how many conversations the thread's owner has; DELETE erases everything held for that owner. */
  conversationOwner: (projectId: string, threadId: string) =>
    `/projects/${id(projectId)}/conversations/${id(threadId)}/owner`,
  /** GET and PUT what the integration's visitors may attach. */
  integrationFiles: (projectId: string, integrationId: string) =>
    `/projects/${id(projectId)}/integrations/${id(integrationId)}/files`,
  /** GET a visitor's file for the conversation review; `?download=1`, the Download button's, is audited. */
  file: (projectId: string, fileId: string) => `/projects/${id(projectId)}/files/${id(fileId)}`,
  /** DELETE: signs out every other session of the signed-in admin (`ConsoleSessionsEnded`). */
  otherSessions: '/session/others',
  /** GET the admins (`ConsoleAdmins`), POST a new one (`ConsoleNewAdmin`). */
  admins: '/admins',
  /**
   * DELETE: the admin goes and its sessions end at once; PATCH a new role (`ConsoleRoleChange`).
   * Never the last one with the admin role.
   */
  admin: (username: string) => `/admins/${id(username)}`,
  /** PUT the signed-in admin's own password (`ConsolePasswordChange`); its other sessions end. */
  password: '/password',
  /** `?before&actor&action&start&end` (UTC days, both included): `ConsoleAuditPage`, 50 a page; admins only. */
  audit: '/audit',
  install: '/install',
  /** GET the widget releases pages load from this service (`ConsoleWidgetReleases`, decision 742). */
  widgetReleases: '/widget-releases',
  /** GET the project's documentation sources, POST a new one (`ConsoleNewSource`). */
  docsSources: (projectId: string) => `/projects/${id(projectId)}/docs/sources`,
  docsSource: (projectId: string, sourceId: string) =>
    `/projects/${id(projectId)}/docs/sources/${id(sourceId)}`,
  /** POST: "Re-crawl now". */
  docsCrawl: (projectId: string, sourceId: string) =>
    `/projects/${id(projectId)}/docs/sources/${id(sourceId)}/crawl`,
  /** `?q=`: the ranked sections of the project's docs a chat would retrieve for the question. */
  docsSearch: (projectId: string) => `/projects/${id(projectId)}/docs/search`,
  docsSynonyms: (projectId: string) => `/projects/${id(projectId)}/docs/synonyms`,
  /** GET: how many conversations cite a page changed or gone since (`ConsoleDocStale`). */
  docsStale: (projectId: string) => `/projects/${id(projectId)}/docs/stale`,
  /** GET the project's webhooks with their recent deliveries, POST a new one (`ConsoleWebhookInput`). */
  webhooks: (projectId: string) => `/projects/${id(projectId)}/webhooks`,
  /** DELETE: the webhook stops, its deliveries go. */
  webhook: (projectId: string, webhookId: string) => `/projects/${id(projectId)}/webhooks/${id(webhookId)}`,
  /** POST: "Send a test", at once; answers with the attempt. */
  webhookTest: (projectId: string, webhookId: string) =>
    `/projects/${id(projectId)}/webhooks/${id(webhookId)}/test`,
} as const;

/**
 * What a console account may do (decision 718): `admin`, everything; `viewer`, read the
 * conversations, sources, activity and notifications, and change only its own password and sessions.
 */
export type ConsoleRole = 'admin' | 'viewer';
export const CONSOLE_ROLES: readonly ConsoleRole[] = ['admin', 'viewer'];

/** `GET session`: nobody (`username: null`), or the admin with the token every change echoes. */
export type ConsoleSession =
  | { username: null }
  | { username: string; role: ConsoleRole; csrf_token: string; expires_at: string };

/** `POST session`: the answer to a sign-in. */
export interface ConsoleSignedIn {
  username: string;
  role: ConsoleRole;
  csrf_token: string;
}

export interface ConsoleSignIn {
  username: string;
  password: string;
}

/** Sessions and answers of one UTC day: a public integration's budget, or what it spent. */
export interface ConsoleDailyCounts {
  sessions: number;
  answers: number;
}

export interface ConsoleIntegration {
  id: string;
  name: string;
  allowed_origins: string[];
  /** Pages on the allowed origins may start chats without a site server (wire contract §2b). */
  public: boolean;
  /** What its public sessions may spend per UTC day. */
  budget: ConsoleDailyCounts;
  /** What they spent today (UTC). */
  today: ConsoleDailyCounts;
  /**
   * Origins whose pages it refused public sessions lately and that are still not allowed, the
   * latest first: the fleet's, of the last 30 days, the newest 10 (decisions 715, 750). `"null"`: pages with
   * no origin (a sandboxed frame, a file).
   */
  refused_origins: ConsoleRefusedOrigin[];
  /**
   * The allowed origins the service's start-up flags (`--allowed-origin`) give it: each start
   * makes the list these again. Null: none given, the console's list stays (decision 717).
   */
  origins_at_start: readonly string[] | null;
  created_at: string;
}

export interface ConsoleRefusedOrigin {
  origin: string;
  count: number;
  last_at: string;
}

export interface ConsoleProject {
  id: string;
  name: string;
  created_at: string;
  integrations: ConsoleIntegration[];
}

/** `POST projects`, `PATCH project`, `POST integrations`, `POST keys`. */
export interface ConsoleName {
  name: string;
}

/** Why the service refuses a public integration without allowed origins (the console says it beside the box too). */
export const PUBLIC_NEEDS_ORIGIN =
  'A public integration needs at least one allowed origin: only pages there may start a chat without a site server.';

/** `PATCH integration`: any of them. A public integration needs at least one allowed origin. */
export interface ConsoleIntegrationPatch {
  name?: string;
  allowed_origins?: string[];
  public?: boolean;
  budget?: ConsoleDailyCounts;
}

export interface ConsoleApiKey {
  id: string;
  name: string;
  /** The first characters of the key, to recognise it. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  /** When the sessions it minted were ended (`DELETE … ?end_sessions=1`); null: they run until they expire. */
  sessions_ended_at: string | null;
  status: 'active' | 'expiring' | 'expired' | 'revoked';
}

/** What a webhook can be told (decision 612). */
export type ConsoleNotificationEvent = 'handoff' | 'downvote' | 'answer_failed';

/** One delivery of an event to a webhook, as its last attempt left it. */
export interface ConsoleWebhookDelivery {
  id: string;
  event: ConsoleNotificationEvent | 'test';
  /** `pending`: waiting for its first or next attempt; `failed`: given up. */
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  created_at: string;
  last_attempt_at: string | null;
  /** The receiver's HTTP status; null when it gave none (unreachable, timed out). */
  status_code: number | null;
  /** Why the last attempt failed: the service's words or the first of the receiver's. */
  error: string | null;
}

export interface ConsoleWebhook {
  id: string;
  /** The address without its path's secret part (Slack's and Discord's addresses are credentials). */
  url_shown: string;
  events: ConsoleNotificationEvent[];
  created_at: string;
  /** The newest first. */
  deliveries: ConsoleWebhookDelivery[];
}

/** `GET webhooks`: the project's webhooks, and whether their messages link the conversation. */
export interface ConsoleWebhookList {
  webhooks: ConsoleWebhook[];
  /** False when the service does not know its public URL (`--public-url`): each message's `url` is null. */
  conversation_links: boolean;
}

/** `POST webhooks`: an `https:` address (or `http:` to this machine) and the events it wants. */
export interface ConsoleWebhookInput {
  url: string;
  events: ConsoleNotificationEvent[];
}

/** `POST webhooks`: the signing secret, shown this once. */
export type ConsoleNewWebhook = ConsoleWebhook & { secret: string };

/** `POST keys`: the key's whole value, shown this once. */
export type ConsoleNewKey = ConsoleApiKey & { key: string };

/** `POST key rotation`: the new key, and the one it replaces (expiring after the overlap). */
export type ConsoleRotatedKey = ConsoleNewKey & { replaced: ConsoleApiKey };

export interface ConsoleKeyRotation {
  overlap_seconds: number;
}

/**
 * `GET activity`: the query API's report for one integration or all, every count per
 * integration, and the answers that failed (decision 497).
 */
export interface ConsoleActivity {
  period: { start: string; end: string };
  integration_id: string | null;
  totals: ConsoleCounts & { unique_owners: number };
  by_day: (ConsoleCounts & { date: string })[];
  by_integration: (ConsoleCounts & { integration_id: string })[];
  freshness: ActivityFreshness;
}

/** What every view of a thread shows of it. */
export interface ConsoleThreadHead {
  id: string;
  title: string;
  integration_id: string;
  /** The owner as an opaque key (an HMAC under the project's secret), never the id. */
  owner_key: string;
  created_at: string;
  updated_at: string;
  /** When the visitor first asked for a person; null: never. */
  handoff_at: string | null;
}

/** One row of `GET conversations`. */
export interface ConsoleThread extends ConsoleThreadHead {
  messages: number;
  upvotes: number;
  downvotes: number;
  uncertain: boolean;
  /** An answer of the thread failed (the `error` filter, "Failed answer"). */
  error: boolean;
  tool_used: boolean;
  /** An answer cites a page of the project's docs changed or gone since (the `stale_sources` filter, "Sources changed"). */
  stale_sources: boolean;
}

export interface ConsoleThreadPage {
  threads: ConsoleThread[];
  next_cursor: string | null;
  /** Days a conversation is kept after its last message; null: until it is deleted (decision 603). */
  retention_days: number | null;
}

/** `GET conversationOwner`: the thread's owner, as its opaque key, and how many conversations they have. */
export interface ConsoleOwner {
  owner_key: string;
  conversations: number;
}

/** `DELETE conversationOwner`: what erasing the owner removed (events: those that lost the owner's name). */
export interface ConsoleOwnerErasure extends ConsoleOwner {
  sessions: number;
  feedback: number;
  files: number;
  events: number;
}

export interface ConsoleFeedback {
  reaction: Reaction;
  comment: Record<string, unknown> | null;
  at: string;
  voter_key: string;
}

/** A source of an answer whose page is no longer what the answer read. */
export interface ConsoleStaleSource {
  source_url: string;
  page: 'changed' | 'removed';
}

export interface ConsoleMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  status: MessageStatus;
  created_at: string;
  uncertain: boolean;
  sources: Source[];
  /** The sources whose page changed, or left the site, after this answer was written. */
  stale_sources: ConsoleStaleSource[];
  tool_calls: (ToolCall & {
    round: number;
    status: 'pending' | 'completed' | 'error';
    output?: unknown;
    error?: string;
  })[];
  activity: ActivityStep[];
  feedback: ConsoleFeedback[];
  /** A question's files; empty for answers and questions without. */
  attachments: FileInfo[];
  /**
   * Why a failed answer (`status: "error"`) failed, in words for the operator (decision 496);
   * null for every other message, and for answers that failed before the service kept a reason.
   */
  failure: ConsoleFailure | null;
}

/** Why an answer failed: a stable code and what to do about it (never the model server's own words). */
export interface ConsoleFailure {
  code: string;
  message: string;
}

/** `GET conversation`: the whole thread, with sources, tool calls and every reaction. */
export interface ConsoleThreadDetail extends ConsoleThreadHead {
  messages: ConsoleMessage[];
}

/** One console admin, as the Admins page lists it. */
export interface ConsoleAdmin {
  username: string;
  role: ConsoleRole;
  created_at: string;
  /** null: has not signed in since this was kept. */
  last_sign_in_at: string | null;
  /** The signed-in admin's own row. */
  you: boolean;
}

export interface ConsoleAdmins {
  admins: ConsoleAdmin[];
  /** The rules a new password must meet, as the form shows them. */
  min_password_chars: number;
}

/** `POST admins`: the name and the password the new admin signs in with (set once, by the adder). */
export interface ConsoleNewAdmin {
  username: string;
  password: string;
  /** `admin` when left out. */
  role?: ConsoleRole;
}

/** `PATCH admin`: the admin's new role. */
export interface ConsoleRoleChange {
  role: ConsoleRole;
}

/** `PUT password`: the admin's own, current one first. */
export interface ConsolePasswordChange {
  current_password: string;
  new_password: string;
}

/** What ending sessions ended: `DELETE session/others`, `PUT password`, `DELETE admins/…`. */
export interface ConsoleSessionsEnded {
  sessions_ended: number;
}

export interface ConsoleAuditEntry {
  id: number;
  at: string;
  /** The admin's username, or `cli` / `start-up`. */
  actor: string;
  action: string;
  project_id: string | null;
  target: string | null;
  detail: Record<string, unknown> | null;
  address: string | null;
}

export interface ConsoleAuditPage {
  entries: ConsoleAuditEntry[];
  next_before: number | null;
}

/** `GET`/`PUT integration files`: what the integration's visitors may attach (wire contract §11). */
export interface ConsoleFileSettings {
  /** Kinds taken; empty: none. */
  kinds: FileKind[];
  /** The largest file of each kind, in bytes. */
  max_bytes: Record<FileKind, number>;
  /** Files one question may carry, 0 (no files) to 5. */
  per_question: number;
}

/** `GET integration files` adds the service's own bounds, which no setting passes. */
export interface ConsoleFileSettingsView extends ConsoleFileSettings {
  limits: { max_bytes: Record<FileKind, number>; per_question: number };
}

/** `GET install`: what the Install page fills into its snippets. */
export interface ConsoleInstall {
  service_url: string;
  widget: {
    version: string;
    file: string;
    integrity: string;
    /** The parts and locale files `file` imports later, each with its SRI hash. */
    parts: Record<string, string>;
  } | null;
}

/**
 * `GET widgetReleases`: the widget release this service serves, and every release it keeps for
 * pages pinned to one (decision 741), the last loaded first.
 */
export interface ConsoleWidgetReleases {
  /** null: the service was built without the widget. */
  serving: string | null;
  releases: {
    version: string;
    stored_at: string;
    /** When a page last loaded it, to the hour; null: none since it was kept. */
    loaded_at: string | null;
    bytes: number;
  }[];
}

/** A page a crawl could not index, and why. */
export interface ConsoleCrawlFailure {
  url: string;
  reason: string;
  /**
   * How the crawl came to the page: the first page that linked it, the sitemap that listed it, or
   * the page that redirected to it. Absent for the start page and robots.txt (and older runs).
   */
  from?: { url: string; by: 'link' | 'sitemap' | 'redirect' };
}

/** One crawl of a source: what changed, and why pages failed (the first 100). */
export interface ConsoleCrawlRun {
  started_at: string;
  finished_at: string;
  /** false: the crawl stopped before the end (a failure, or the service closing). */
  complete: boolean;
  /** The page cap was reached. */
  truncated: boolean;
  pages_new: number;
  pages_changed: number;
  pages_unchanged: number;
  pages_removed: number;
  /** Addresses the source's exclude patterns kept the crawl from (not failures). */
  pages_excluded: number;
  /** Addresses the site's robots.txt kept the crawl from (not failures). */
  pages_disallowed: number;
  /** Of the unchanged pages, those asked nothing: the sitemap's lastmod vouched for them. */
  pages_spared: number;
  /** When the site's lastmod was caught lying, while the next crawl believes none of it; else null. */
  lastmod_lie_at: string | null;
  failures: ConsoleCrawlFailure[];
  failure_count: number;
}

/** A documentation source: a website or a folder, with what it holds and its last crawl. */
export interface ConsoleDocSource {
  id: string;
  location: string;
  kind: 'site' | 'folder';
  /** A folder's public URL; null for a website. */
  public_url: string | null;
  /** Paths kept out of the index (`/blog/`, `*\/whatsnew/`); empty for none. */
  exclude: string[];
  created_at: string;
  last_crawl_at: string | null;
  next_crawl_at: string;
  pages: number;
  sections: number;
  last_run: ConsoleCrawlRun | null;
  /**
   * Paths of a website whose pages often outrank the page that answers (decision 427): release
   * notes, source listings, blog posts, each with the pages it would keep out. Empty for a folder.
   */
  suggested_exclusions: ConsoleSuggestedExclusion[];
  /** The crawl under way, whichever instance of the fleet runs it (decision 435); null when none runs. */
  crawl: ConsoleCrawlProgress | null;
}

/** How far a crawl under way has got, as the instance crawling it wrote it a second or so ago. */
export interface ConsoleCrawlProgress {
  /** Reading robots.txt, the sitemap or the pages, or saving what it read into the index. */
  phase: 'robots' | 'sitemap' | 'pages' | 'saving';
  /** Pages read so far (new, changed or unchanged). */
  pages_read: number;
  pages_failed: number;
  started_at: string;
  /** How long it has run, by the service's clock as the answer was made (the browser's may differ). */
  elapsed_ms: number;
  /**
   * How long since it last got further (a page read or failed, a new phase), by the same clock: a
   * minute or more while reading pages is a crawl that may be stuck.
   */
  quiet_ms: number;
}

/** An exclude pattern the Sources page offers, with what it would keep out. */
export interface ConsoleSuggestedExclusion {
  pattern: string;
  kind: 'release notes' | 'source listings' | 'blog posts' | 'pages of another version';
  pages: number;
}

/** `GET docs sources`; `enabled: false` when the service answers without a documentation library. */
export interface ConsoleDocSources {
  enabled: boolean;
  sources: ConsoleDocSource[];
  /** The project's synonym groups (decision 422): words or phrases that mean one thing on its site. */
  synonyms: string[][];
}

/** `PUT docs synonyms` and its answer: every group, replacing the ones before. */
export interface ConsoleDocSynonyms {
  synonyms: string[][];
}

/** `GET docsStale`: the conversations whose answers cite a page changed or gone since (decision 739). */
export interface ConsoleDocStale {
  /** Counted up to 1,000: a walk through every conversation stops there. */
  conversations: number;
  /** There may be more than `conversations` (the count stopped at its cap). */
  at_least: boolean;
}

/** `POST docs sources`. */
export interface ConsoleNewSource {
  location: string;
  public_url?: string;
  /** Paths kept out of the index: at most 50, each at most 200 characters, starting with / or *. */
  exclude?: string[];
}

/** `PATCH docs source`: its exclude patterns replaced, and a crawl now. */
export interface ConsoleSourceChange {
  exclude: string[];
}

/** One ranked section of `GET docs search`. */
export interface ConsoleDocHit {
  title: string;
  headings: string[];
  url: string;
  /** The fused score that ranked it. */
  score: number;
  /** Its lexical (BM25) match, what the relevance threshold reads. */
  match: number;
  excerpt: string;
}

export interface ConsoleDocHits {
  hits: ConsoleDocHit[];
  /** The words the search added to the question: the general synonyms and the project's own. */
  also: string[];
  /**
   * The question asked before it (`earlier`) as the search took it: a follow-up that refers back is
   * searched with its words too (decision 450); null when none was given or the question does not
   * refer back, so it was searched alone.
   */
  earlier: string | null;
}
