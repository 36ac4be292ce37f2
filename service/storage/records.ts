/**
 * Records both halves of the store speak of (the agent API's and the console's), kept apart
 * so that their interface files need not import each other.
 */
import type { Reaction } from '../../contract/types.js';

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
