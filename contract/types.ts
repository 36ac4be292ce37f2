/** JSON shapes of the wire, in its own snake_case (docs/protocol.md §4, §5, §7, §8). */

export interface Source {
  title: string;
  subtitle: string | null;
  /** Version 4: ends with the section's `#anchor` when `section` names one. */
  source_url: string;
  source_type: string;
  /** Version 4: the heading of the part of the page the answer used; null or absent for the whole page. */
  section?: string | null;
  /** Version 4: how well the part matched the question, higher is better; null or absent when unranked. */
  score?: number | null;
}

/** `streaming`: an answer the service is still generating (§9). */
export type MessageStatus = 'complete' | 'stopped' | 'error' | 'streaming';

export type Reaction = 'upvote' | 'downvote';

/** A call of a client-side tool, as the `tool_calls` record carries it (§7). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A client-side tool the chat call offers (§7). */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What the browser answers for one tool call (§7). */
export type ToolResult = { tool_call_id: string; output: unknown } | { tool_call_id: string; error: string };

/** Content of an `agent_activity_update` record: a step the agent runs on the service. */
export interface ActivityStep {
  id: string;
  name: string;
  status: 'started' | 'completed' | 'error';
  summary: string | null;
  num_results: number | null;
}

export interface ThreadSummary {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  /**
   * In a thread list only: the start of the first answer as one line of plain text ('' before
   * the first answer); absent from services older than this field.
   */
  preview?: string;
}

export interface ThreadPage {
  threads: ThreadSummary[];
  next_cursor: string | null;
}

/** A tool call of a resumed answer, with what became of it (§7). */
export interface ToolCallOutcome extends ToolCall {
  status: 'completed' | 'error';
  output?: unknown;
  error?: string;
}

/** What the service made of an uploaded file (§11): decided from its bytes, never from its name. */
export type FileKind = 'image' | 'text' | 'pdf';

/** An uploaded file as the upload answers it and a resumed question lists it (§11). */
export interface FileInfo {
  file_id: string;
  name: string;
  size: number;
  content_type: string;
  kind: FileKind;
}

export interface ThreadMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: Source[];
  created_at: string;
  status: MessageStatus;
  question_answer_id?: string;
  /** The last state of each agent step (§7); empty or absent when there were none. */
  activity?: ActivityStep[];
  /** The client-side tool calls of the answer (§7). */
  tool_calls?: ToolCallOutcome[];
  /** The caller's feedback on this answer (§8). */
  reaction?: Reaction | null;
  is_uncertain?: boolean;
  /** A question's files (§11); absent or empty when it had none. */
  attachments?: FileInfo[];
}

export interface ThreadDetail extends ThreadSummary {
  messages: ThreadMessage[];
}

/** The reasons a downvote may carry (§8); every field is optional. */
export interface FeedbackComment {
  incorrect?: boolean;
  irrelevant?: boolean;
  unaddressed?: boolean;
  issue?: string;
}

/** Every non-2xx JSON answer of the service. */
export interface ErrorBody {
  detail: string;
  code: string;
}

/**
 * The query API's answer for one integration (decision 464): what the console shows of it and
 * nothing secret, so that a site's server can tell whether its setup will work.
 */
export interface IntegrationInfo {
  id: string;
  name: string;
  /** Pages on its allowed origins may start chats with no server of their own (§2b). */
  public: boolean;
  /** The origins whose pages may use it; empty: any origin. */
  allowed_origins: string[];
}
