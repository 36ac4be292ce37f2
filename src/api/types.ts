/** Wire DTOs (wire contract §4, §5) and the typed events the stream reader yields. */

export interface Source {
  title: string;
  subtitle: string | null;
  source_url: string;
  source_type: string;
}

export type StreamEvent =
  | { type: 'start'; threadId: string }
  | { type: 'sources'; sources: Source[] }
  | { type: 'delta'; text: string }
  | { type: 'end'; threadId: string | null; questionAnswerId: string | null }
  /** The service reported a failure in-stream (an `error` record). */
  | { type: 'error'; reason: string }
  /** The stream broke: bad JSON, or it ended with no `stream_end` record. */
  | { type: 'interrupted'; reason: string };

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

export type MessageStatus = 'complete' | 'stopped' | 'error';

export interface ThreadMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: Source[];
  created_at: string;
  status: MessageStatus;
}

export interface ThreadDetail extends ThreadSummary {
  messages: ThreadMessage[];
}

export interface ChatRequest {
  message: string;
  threadId?: string | null;
}
