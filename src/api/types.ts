/** Wire DTOs (wire contract §4, §5) and the typed events the stream reader yields. */

export interface Source {
  title: string;
  subtitle: string | null;
  source_url: string;
  source_type: string;
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

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface ThreadSummary {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface ThreadPage {
  threads: ThreadSummary[];
  next_cursor: string | null;
}

/** `streaming`: an answer the service is still generating (§9). */
export type MessageStatus = 'complete' | 'stopped' | 'error' | 'streaming';

export interface ThreadMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: Source[];
  created_at: string;
  status: MessageStatus;
  question_answer_id?: string;
  /** The last state of each agent step (§7); empty or absent when there were none. */
  activity?: AgentActivity[];
  /** The client-side tool calls of the answer (§7). */
  tool_calls?: { id: string; name: string; arguments: Record<string, unknown>; status: 'completed' | 'error'; error?: string }[];
  /** The caller's feedback on this answer (§8). */
  reaction?: 'upvote' | 'downvote' | null;
}

/** Feedback on one answer (§8); every reason is optional. */
export interface FeedbackRequest {
  questionAnswerId: string;
  reaction: 'upvote' | 'downvote';
  comment?: { incorrect?: boolean; irrelevant?: boolean; unaddressed?: boolean; issue?: string } | null;
}

export interface ThreadDetail extends ThreadSummary {
  messages: ThreadMessage[];
}

export interface ChatRequest {
  /** Absent in a continuation that carries `toolResults` (§7). */
  message?: string;
  threadId?: string | null;
  /** The client-side tools on offer (§7), sent with every chat call. */
  tools?: { name: string; description: string; parameters: Record<string, unknown> }[];
  /** Results of the paused answer's tool calls (§7). */
  toolResults?: ({ tool_call_id: string; output: unknown } | { tool_call_id: string; error: string })[];
}
