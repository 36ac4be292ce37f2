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
/** external_owner_id (§1). */
export const MAX_OWNER_ID_CHARS = 256;

/** Session tokens live this long (§1). */
export const SESSION_TTL_MS = 3_600_000;
