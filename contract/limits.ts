/** Limits both sides enforce; the service answers 400 or 413 past them (docs/protocol.md). */

/** Tool rounds one answer may take; the next one ends it with an `error` record (§7). */
export const MAX_TOOL_ROUNDS = 8;
/** Tools one chat call may offer (§7). */
export const MAX_TOOLS = 32;
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TOOL_DESCRIPTION_CHARS = 1024;
/** A paused answer waits this long for tool results, then counts as stopped (§7). */
export const TOOL_WAIT_MS = 10 * 60_000;

/** Request bodies of the agent API. */
export const MAX_BODY_BYTES = 64 * 1024;
/** One question (§4). */
export const MAX_MESSAGE_CHARS = 16_000;
/** One answer's text (§4): past it the answer ends with an `error` record, the text so far kept. */
export const MAX_ANSWER_CHARS = 200_000;
/** Thread titles, derived or renamed (§5, §10). */
export const MAX_TITLE_CHARS = 80;
/** A BCP 47 tag in the chat body (§4, version 3). */
export const MAX_LOCALE_CHARS = 35;
/** The free-text reason of a downvote (§8). */
export const MAX_FEEDBACK_ISSUE_CHARS = 2000;
/** Sources one answer cites (§4, version 4). */
export const MAX_SOURCES = 5;
/** external_owner_id (§1). */
export const MAX_OWNER_ID_CHARS = 256;

/** Session tokens live this long (§1). */
export const SESSION_TTL_MS = 3_600_000;

/** Files one question may carry (§4, version 4); an integration may allow fewer. */
export const MAX_ATTACHMENTS = 5;
/** The kinds of file the service takes (§11), in the order the console lists them. */
export const FILE_KINDS = ['image', 'text', 'pdf'] as const;
/** The largest file of each kind (§11's defaults, in bytes); an integration may allow less, never more. */
export const MAX_FILE_BYTES: Readonly<Record<(typeof FILE_KINDS)[number], number>> = {
  image: 10_000_000,
  text: 1_000_000,
  pdf: 20_000_000,
};
/** A file no question used for this long is deleted (§11). */
export const UNUSED_FILE_TTL_MS = 24 * 3_600_000;
/** How long the service remembers the question an Idempotency-Key asked (decision 453). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
/**
 * An Idempotency-Key: visible ASCII, and long enough that a key nobody was told cannot be
 * guessed (an owner-less session's keys share one scope, as its thread ids do, decision 453).
 */
export const IDEMPOTENCY_KEY = /^[\x21-\x7E]{16,255}$/;
/** A file's name, as kept and shown (characters, after sanitizing). */
export const MAX_FILE_NAME_CHARS = 200;
