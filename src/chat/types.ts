import type { AgentActivity, FileInfo, Source } from '../api/types.js';
import type { UiStringKey } from '../i18n/en.js';
import type { ToolCallView } from './tools.js';

/**
 * user: sending → sent | failed (nothing reached the agent; the text is kept for Retry).
 * assistant: streaming → complete | stopped (visitor pressed Stop) | error (the agent failed)
 *            | interrupted (the stream broke; the partial text is kept for Retry).
 */
export type ChatMessageStatus =
  | 'sending'
  | 'sent'
  | 'failed'
  | 'streaming'
  | 'complete'
  | 'stopped'
  | 'error'
  | 'interrupted';

export interface ErrorInfo {
  code: string;
  /** English plain words, for the agent-chat-error event; the screen shows `key` translated. */
  message: string;
  /** The text the visitor reads, in the widget's language. */
  key: UiStringKey;
  /** Values of the text's `{placeholders}`. */
  values?: Record<string, string | number>;
  status?: number;
  /** Whether trying again can help (Retry is offered). */
  recoverable: boolean;
}

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: readonly Source[];
  status: ChatMessageStatus;
  error?: ErrorInfo;
  /** The service's id of an answer (§9): cancel, reattach, feedback. */
  questionAnswerId?: string;
  /** Client-side tool calls of this answer (§7), in the order the agent made them. */
  toolCalls?: readonly ToolCallView[];
  /** The agent's steps on the service, upserted by id. */
  activity?: readonly AgentActivity[];
  /** The agent flagged the answer as uncertain (`metadata.is_uncertain`). */
  uncertain?: boolean;
  /** The visitor's feedback on an answer (wire §8), restored when a thread is resumed. */
  reaction?: Reaction | null;
  /** A question's files (§11), uploaded before it was sent. */
  attachments?: readonly FileInfo[];
  /** A question's Idempotency-Key (decision 453), made when it is first sent and kept by every resend. */
  idempotencyKey?: string;
  /** When a question was first sent (ms): a reload resends it only for a while (decision 455). */
  sentAt?: number;
}

export type Reaction = 'upvote' | 'downvote';

export interface ConversationSnapshot {
  threadId: string | null;
  messages: readonly ChatMessage[];
  /** An answer is being requested or streamed; Stop is available. */
  streaming: boolean;
}

export type AnswerOutcome = 'complete' | 'aborted' | 'error';

export const RETRYABLE: ReadonlySet<ChatMessageStatus> = new Set(['failed', 'error', 'interrupted']);
