/** The Agent port: what the service asks of whatever writes the answers. */
import type { ActivityStep, Source, ToolCall, ToolResult, ToolSpec } from '../../contract/types.js';
import type { DocsSearch } from '../docs/types.js';
import type { AttachmentRecord, MessageRecord } from '../storage/types.js';

export type { ToolCall, ToolSpec };

/** A file of the question, with its bytes (§11): its kind was decided from them at upload. */
export interface AttachmentContent extends AttachmentRecord {
  bytes: Uint8Array;
}

/** One pause of an answer: the calls the agent made and what the browser answered. */
export interface ToolRound {
  calls: ToolCall[];
  results: ToolResult[];
}

export type AgentOutput =
  | { type: 'sources'; sources: Source[] }
  | { type: 'text'; text: string }
  | { type: 'activity'; step: ActivityStep }
  | { type: 'uncertain' }
  /** Pauses the answer: the browser runs these and the agent is called again with `rounds`. */
  | { type: 'tool_calls'; calls: ToolCall[] }
  /** What one model call cost, as the model reported it; summed per answer and per day. */
  | { type: 'usage'; promptTokens: number; completionTokens: number };

export interface AgentInput {
  message: string;
  /** Earlier messages of the thread, oldest first. */
  history: readonly MessageRecord[];
  /** The tools the browser offers for this answer; empty when none. */
  tools: readonly ToolSpec[];
  /** Earlier tool rounds of this answer, oldest first; empty on the first call. */
  rounds: readonly ToolRound[];
  /** Text this answer already produced before its last pause. */
  partial: string;
  /**
   * The visitor's language, a canonical BCP 47 tag (`de`, `pt-BR`), when the chat call named one
   * (wire contract §4, version 3). Agents answer and write step summaries in it where they can.
   */
  locale?: string;
  /**
   * The files of this question, oldest first (absent when none). They go with this question's
   * model calls only; earlier questions' files are in `history` as names (`attachments`), not bytes.
   */
  attachments?: readonly AttachmentContent[];
  /**
   * The documentation of the project the question came to, when the service keeps a library:
   * an agent answers from it and from nothing else. Absent: the agent's own docs, if any.
   */
  docs?: DocsSearch;
  signal: AbortSignal;
}

/**
 * A failure an agent reports on purpose: the answer ends with the `error` record carrying
 * `reason` (shown to the visitor, so plain words and nothing from the conversation), and the
 * text so far is kept with status `error`. `code` and `hint` are for the operator: they go to
 * the log, and are kept with the answer for the console's conversation view (decision 496), so
 * the hint says what happened and what to check, with nothing from the conversation and no
 * secret (a model server's words only as a plain code). Any other exception ends the answer the
 * same way with a generic reason.
 */
export class AgentError extends Error {
  override name = 'AgentError';
  constructor(
    readonly reason: string,
    readonly code: string,
    readonly hint?: string,
  ) {
    super(reason);
  }
}

/**
 * What the service asks of an agent. The service handles framing, storage, tool rounds,
 * time limits and cancelation; an agent only turns a question into outputs.
 */
export interface Agent {
  answer(input: AgentInput): AsyncIterable<AgentOutput>;
}
