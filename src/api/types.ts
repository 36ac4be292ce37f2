/** The wire's shapes (from contract/) and the typed events the stream reader yields. */
import type {
  FeedbackComment,
  Reaction,
  Source,
  ThreadMessage as WireThreadMessage,
  ThreadSummary,
  ToolCall,
  ToolResult,
  ToolSpec,
} from '../../contract/types.js';

export type {
  FileInfo,
  FileKind,
  MessageStatus,
  Source,
  ThreadPage,
  ThreadSummary,
  ToolCall,
} from '../../contract/types.js';

/** A resumed message as the client holds it: its steps in the client's camelCase. */
export type ThreadMessage = Omit<WireThreadMessage, 'activity'> & { activity?: AgentActivity[] };

export interface ThreadDetail extends ThreadSummary {
  messages: ThreadMessage[];
}

export type StreamEvent =
  /** `questionAnswerId` names the answer for cancel and reattach (§9); older services omit it. */
  | { type: 'start'; threadId: string; questionAnswerId?: string }
  /** A step the agent runs on the service, upserted by id. */
  | { type: 'activity'; activity: AgentActivity }
  | { type: 'metadata'; uncertain: boolean }
  /** The answer pauses for client-side tools (§7); always followed by the terminal `end`. */
  | { type: 'tool_calls'; calls: ToolCall[] }
  | { type: 'sources'; sources: Source[] }
  | { type: 'delta'; text: string }
  | { type: 'end'; threadId: string | null; questionAnswerId: string | null }
  /** The service reported a failure in-stream (an `error` record). */
  | { type: 'error'; reason: string }
  /** The stream broke: bad JSON, or it ended with no `stream_end` record. */
  | { type: 'interrupted'; reason: string };

export interface AgentActivity {
  id: string;
  name: string;
  status: 'started' | 'completed' | 'error';
  summary: string | null;
  numResults: number | null;
}

/** Feedback on one answer (§8); every reason is optional. */
export interface FeedbackRequest {
  questionAnswerId: string;
  reaction: Reaction;
  comment?: FeedbackComment | null;
}

export interface ChatRequest {
  /** Absent in a continuation that carries `toolResults` (§7). */
  message?: string;
  threadId?: string | null;
  /** The client-side tools on offer (§7), sent with every chat call. */
  tools?: ToolSpec[];
  /** Results of the paused answer's tool calls (§7). */
  toolResults?: ToolResult[];
  /** The language the visitor reads, a BCP 47 tag (§4, version 3): steps and answers are written in it. */
  locale?: string;
  /** Ids of the question's uploaded files (§4, §11). */
  attachments?: string[];
  /** The question's Idempotency-Key (decision 453): the same for every send of one question. */
  idempotencyKey?: string;
}

/**
 * How an upload's bytes travel: fetch's signature, so the client authenticates it as any call.
 * The attachment view passes one over XMLHttpRequest, whose upload reports progress.
 */
export type Transport = (url: string, init: RequestInit) => Promise<Response>;
