/**
 * The records the stores keep and hand out: conversations, answers, sessions, activity. The
 * console's records (the directory, accounts, its reads) are in console-types.ts.
 */
import type { ConsoleCounts } from '../../contract/activity.js';
import type { ActivityStep, Reaction, Source, ToolCall } from '../../contract/types.js';
import type { AttachmentRecord } from './file-records.js';

export type { ActivityStep, Reaction };

export interface ThreadMeta {
  id: string;
  projectId: string;
  integrationId: string;
  owner: string | null;
  title: string;
  createdAt: number;
  updatedAt: number;
}

export interface FeedbackRecord {
  messageId: string;
  projectId: string;
  /** Who reacted: `owner:<id>` or, for a session without owner, `session:<token hash>`. */
  voter: string;
  /** The session's token hash. */
  sessionToken: string;
  owner: string | null;
  integrationId: string;
  reaction: Reaction;
  comment: Record<string, unknown> | null;
  at: number;
}

/** Keyset position for newest-first thread pages. */
export interface ThreadCursor {
  updatedAt: number;
  id: string;
}

export interface SessionRecord {
  /** SHA-256 of the session token (hex): the token itself is never stored, so none read back authenticates. */
  tokenHash: string;
  projectId: string;
  /** null: a session without owner, which can chat but has no history. */
  owner: string | null;
  /** The public integration that minted it (§2b): its answers count against that integration's budget. */
  integrationId?: string;
  /** The API key that minted it (null for sessions minted before keys were recorded). */
  keyId: string | null;
  createdAt: number;
  expiresAt: number;
}

/** `streaming` covers an answer still generating and one waiting for client tool results. */
export type StoredStatus = 'complete' | 'stopped' | 'error' | 'streaming';

export interface ToolCallRecord extends ToolCall {
  /** 1 for the first pause of the answer; wire contract §7 allows 8. */
  round: number;
  status: 'pending' | 'completed' | 'error';
  output?: unknown;
  error?: string;
}

export interface MessageRecord {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: Source[];
  createdAt: number;
  /** Last write; for a paused answer, when it began waiting for tool results. */
  updatedAt: number;
  status: StoredStatus;
  toolCalls: ToolCallRecord[];
  activity: ActivityStep[];
  uncertain: boolean;
  /** Model tokens this answer took, summed over its tool rounds; absent when the agent reports none. */
  usage?: TokenUsage;
  /** A question's files (§11), linked to its thread when the answer begins; absent when none. */
  attachments?: AttachmentRecord[];
  /**
   * Why an answer stored `error` failed, for the console (decision 496); absent on every other
   * answer, and on those that failed before the service kept a reason.
   */
  failure?: AnswerFailure;
}

/**
 * Why an answer failed, as the console shows it to the project's admins (decision 496): a stable
 * code (the agent's, `model_unauthorized`, or the service's, `answer_time_limit`) and words an
 * operator can act on. Written by the service and its agents, never the model server's body or
 * the conversation: a model server's words only as a bounded code, never the API key.
 */
export interface AnswerFailure {
  code: string;
  message: string;
  /**
   * The `reason` of the `error` record its stream ended with (wire contract §4), which a reattach
   * ends with again (decision 524); absent on answers that failed before the service kept it.
   */
  reason?: string;
}

/** The most characters of a failure's message that are kept. */
export const FAILURE_MESSAGE_CHARS = 400;

/**
 * How an answer its instance never ended failed: the reaper, a reattach or the maintenance ends
 * it. Its reason is what a stream of it says wherever it ends: a reattach, and its own instance's
 * stream should it wake to find the answer ended (decision 524).
 */
export const LOST_ANSWER: Required<AnswerFailure> = {
  code: 'answer_lost',
  message:
    'The service instance generating this answer stopped (it crashed, was killed or lost the database) before the answer ended.',
  reason: 'This answer is no longer being generated.',
};

/**
 * An answer its instance never ended, ended by another part of the fleet (the reaper, a
 * reattach, the maintenance): `error` as lost (LOST_ANSWER), or `stopped` when the visitor had
 * asked; where it is, for the log line a failed one writes (decision 513).
 */
export interface EndedOrphan {
  id: string;
  threadId: string;
  projectId: string;
  status: 'stopped' | 'error';
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A thread as a list shows it: with the start of its first answer ('' before the first). */
export interface ThreadListing extends ThreadMeta {
  preview: string;
}

/** Characters of the first answer a thread listing carries (its Markdown, before plain-text cleanup). */
export const PREVIEW_SOURCE_CHARS = 400;

export interface ThreadRecord extends ThreadMeta {
  messages: MessageRecord[];
}

export interface ActivityEvent {
  /**
   * `usage`: what one run of an answer cost the model, in `promptTokens` and `completionTokens`;
   * `failed`: an answer ended failed (beside its `message`), for the console's count (decision 497).
   */
  kind: 'session' | 'thread' | 'message' | 'usage' | 'failed';
  projectId: string;
  at: number;
  /** The session's token hash (the rollup counts sessions by it). */
  sessionToken: string;
  owner: string | null;
  integrationId: string | null;
  promptTokens?: number;
  completionTokens?: number;
}

/**
 * One row of the activity rollup: what one session did on one UTC day through one
 * integration ('' for none). The SQL stores keep it in a materialized view; its counts carry
 * the contract's names, as the view's columns do.
 */
export interface ActivityRow extends ConsoleCounts {
  day: number;
  sessionToken: string;
  owner: string | null;
  integrationId: string;
}

export type MessagePatch = Partial<
  Pick<
    MessageRecord,
    | 'content'
    | 'sources'
    | 'status'
    | 'toolCalls'
    | 'activity'
    | 'uncertain'
    | 'updatedAt'
    | 'usage'
    | 'failure'
  >
>;

/** A question's writes before its first record, made as one (one round trip on SQL). */
export interface AnswerStart {
  /** The thread, created with the question when `newThread`, else only its `updatedAt` moves. */
  thread: ThreadMeta;
  newThread: boolean;
  question: MessageRecord;
  /** The empty answer, `streaming`, generated by `instanceId`. */
  answer: MessageRecord;
  instanceId: string;
  /** Activity of the start: the thread (when new) and the question. */
  events: ActivityEvent[];
  /** One of `cap` concurrent-answer slots of `key`, taken for the answer first; none taken without it. */
  slot?: { key: string; cap: number };
  /** The question's Idempotency-Key, recorded with it: nothing is begun when its scope has it already. */
  ask?: AskKey;
}

/** An Idempotency-Key where it is unique: per project and per owner (`scope`), with what it asked (decision 453). */
export interface AskKey {
  projectId: string;
  /** The owner, or '' for every session without owner (an owner id is never empty). */
  scope: string;
  key: string;
  /** A hash of what the question asked (integration, thread, message, files): the same key must ask the same. */
  fingerprint: string;
}

/** The question a key asked: its answer and thread, and when (the key is remembered for IDEMPOTENCY_WINDOW_MS). */
export interface AskRecord {
  fingerprint: string;
  threadId: string;
  answerId: string;
  createdAt: number;
}

/**
 * A start is written whole or not at all: when the thread is gone, every slot is taken, or
 * (`asked`) its Idempotency-Key asked a question already.
 */
export type BeginResult = 'begun' | 'thread_gone' | 'cap_reached' | 'asked';

/** What a generating answer has so far, saved while it grows. */
export type AnswerSave = { id: string } & Required<
  Pick<MessageRecord, 'content' | 'sources' | 'activity' | 'uncertain' | 'updatedAt'>
>;

/** The end of an answer's generation (or a run of it): its last state, the activity it counts, its slot freed. */
export interface AnswerEnd {
  id: string;
  instanceId: string;
  /** `status: 'streaming'` with pending tool calls pauses it (no instance generates it meanwhile). */
  patch: Required<
    Pick<
      MessageRecord,
      'content' | 'sources' | 'activity' | 'uncertain' | 'toolCalls' | 'status' | 'updatedAt'
    >
  > &
    Pick<MessageRecord, 'usage' | 'failure'>;
  /**
   * Written only when the end is: the answer's `message` event (and its `failed` one when it
   * failed), the run's `usage` event.
   */
  events: ActivityEvent[];
}

/** What a fleet subscriber gets when signals may have been missed (the listening connection dropped). */
export const SIGNALS_LOST = 'lost';

/** Which instance generates an answer, and whether that instance still renews its lease. */
export interface AnswerHost {
  instanceId: string | null;
  alive: boolean;
}

/** A documentation source a project answers from: a website (or its sitemap) or a folder on the service's disk. */
export interface DocSourceRecord {
  id: string;
  /** The project whose agent answers from it; no other project's search ever sees it. */
  projectId: string;
  /** An http(s) URL (a site root, a folder of it, a sitemap.xml) or a folder path on the service's disk. */
  location: string;
  kind: 'site' | 'folder';
  /** A folder's public URL, that its files are linked at; null for a site. */
  publicUrl: string | null;
  /** Paths the owner keeps out of the index (`docs/exclusions.ts`, decision 416); empty for none. */
  exclude: string[];
  createdAt: number;
  lastCrawlAt: number | null;
  /** When the schedule (or "Re-crawl now") wants the next crawl. */
  nextCrawlAt: number;
}

/** A source as the console lists it: with what it holds, its last crawl and the crawl under way. */
export interface DocSourceSummary extends DocSourceRecord {
  pages: number;
  sections: number;
  lastRun: CrawlRunRecord | null;
  /** As its crawler last wrote it, however long ago (the library tells a live crawl from a dead one); null for none. */
  crawl: DocCrawlProgress | null;
}

/**
 * How far a crawl under way has got (decision 435), as the instance crawling it writes it every
 * second or so: what every instance of the fleet shows until the crawl's run is stored.
 */
export interface DocCrawlProgress {
  sourceId: string;
  /** What the crawl is doing: reading robots.txt, the sitemap or the pages, or storing what it read. */
  phase: 'robots' | 'sitemap' | 'pages' | 'saving';
  /** Pages read so far (new, changed or unchanged); not redirects, copies or failures. */
  pagesRead: number;
  pagesFailed: number;
  startedAt: number;
  /** When its crawler last wrote it: one that stops being written has died with its instance. */
  updatedAt: number;
}

/** Another address of a page (its content served again, or naming it canonical) and what revalidates it. */
export interface DocPageCopy {
  url: string;
  etag: string | null;
  lastModified: string | null;
}

/** A page of a source as the last crawl left it: what revalidates it, and when its content last changed. */
export interface DocPageRecord {
  sourceId: string;
  url: string;
  title: string;
  etag: string | null;
  lastModified: string | null;
  hash: string;
  links: string[];
  /** Its other addresses the last crawl read, revalidated as copies by the next (decision 642). */
  copies: DocPageCopy[];
  /** The sitemap's `<lastmod>` (ms) when it was last read or revalidated; null when none (decision 752). */
  sitemapLastmod: number | null;
  /** When it was last read or revalidated (ms); null for pages stored before it was kept, and a folder's. */
  checkedAt: number | null;
  /** When its content last changed (first indexed, or read with another content). */
  changedAt: number;
}

/** What became of a page an answer cited: when its content last changed, and when it left the site. */
export interface DocPageChange {
  changedAt: number;
  /** When a complete crawl no longer found it; null while it is on the site. */
  removedAt: number | null;
}

/** The page a cited address stands for: a section's `#anchor` is its page's. */
export const citedPage = (sourceUrl: string): string => sourceUrl.split('#')[0];

/**
 * What became of a cited page since an answer written at `at` (decisions 296, 392): gone, changed,
 * or null (as it was, or not the project's docs). The SQL search says the same in its statement.
 */
export function pageSince(change: DocPageChange | undefined, at: number): 'changed' | 'removed' | null {
  if (change?.removedAt != null && change.removedAt > at) return 'removed';
  return change && change.changedAt > at ? 'changed' : null;
}

/** A stored section: what the index is built from. */
export interface DocSectionRecord {
  id: number;
  sourceId: string;
  url: string;
  pageUrl: string;
  title: string;
  headings: string[];
  text: string;
  /** Its unit vector from `embeddingModel`, or null before it is embedded. */
  embedding: number[] | null;
  embeddingModel: string | null;
}

export interface CrawlRunRecord {
  id: number;
  sourceId: string;
  startedAt: number;
  finishedAt: number;
  complete: boolean;
  truncated: boolean;
  pagesNew: number;
  pagesChanged: number;
  pagesUnchanged: number;
  pagesRemoved: number;
  /** Addresses the source's exclude patterns kept the crawl from. */
  pagesExcluded: number;
  /** Addresses the site's robots.txt kept the crawl from (decision 460). */
  pagesDisallowed: number;
  /** Pages of `pagesUnchanged` asked nothing, their sitemap's lastmod vouching for them (decision 752). */
  pagesSpared: number;
  /** When the site's lastmod was caught lying, while the next crawl believes none of it (decision 785). */
  lastmodLieAt: number | null;
  failures: CrawlFailureRecord[];
}

/**
 * A page a crawl could not index, and why; `from`: how the crawl came to it (decision 707), none
 * for the start page, robots.txt or the site as a whole, and in runs stored before it was kept.
 */
export interface CrawlFailureRecord {
  url: string;
  reason: string;
  from?: { url: string; by: 'link' | 'sitemap' | 'redirect' };
}

/** One crawl's outcome, applied whole. */
export interface DocCrawl {
  sourceId: string;
  startedAt: number;
  finishedAt: number;
  nextCrawlAt: number;
  /** Every page read: `new` and `changed` ones with their sections, `unchanged` ones without. */
  pages: (Pick<DocPageRecord, 'url' | 'title' | 'etag' | 'lastModified' | 'hash' | 'links'> & {
    /** None: it has none (a folder's pages). */
    copies?: DocPageCopy[];
    /** None: a folder's pages, which have no sitemap. */
    sitemapLastmod?: number | null;
    checkedAt?: number | null;
    status: 'new' | 'changed' | 'unchanged';
    sections: Pick<DocSectionRecord, 'url' | 'pageUrl' | 'title' | 'headings' | 'text'>[];
  })[];
  /** When false the pages not read are kept (the crawl could not tell which are gone). */
  complete: boolean;
  truncated: boolean;
  failures: CrawlFailureRecord[];
  /** Addresses the source's exclude patterns kept the crawl from. Default 0. */
  excluded?: number;
  /** Addresses the site's robots.txt kept the crawl from. Default 0. */
  disallowed?: number;
  /** Pages its sitemap's lastmod spared a request. Default 0. */
  lastmodSpared?: number;
  /** When the site's lastmod was caught lying, while it is not believed. Default null. */
  lastmodLieAt?: number | null;
  /** Pages the index held that the owner now excludes: removed even when the crawl was incomplete. */
  dropped?: string[];
}

/**
 * The run a crawl starts as, before its pages are counted: what it counted on its own and the
 * defaults of what it may leave out, one reading for both stores.
 */
export const startedRun = (crawl: DocCrawl): Omit<CrawlRunRecord, 'id'> => ({
  sourceId: crawl.sourceId,
  startedAt: crawl.startedAt,
  finishedAt: crawl.finishedAt,
  complete: crawl.complete,
  truncated: crawl.truncated,
  pagesNew: 0,
  pagesChanged: 0,
  pagesUnchanged: 0,
  pagesRemoved: 0,
  pagesExcluded: crawl.excluded ?? 0,
  pagesDisallowed: crawl.disallowed ?? 0,
  pagesSpared: crawl.lastmodSpared ?? 0,
  lastmodLieAt: crawl.lastmodLieAt ?? null,
  failures: crawl.failures,
});
