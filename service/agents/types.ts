/** The Agent port: what the service asks of whatever writes the answers. */
import type { ActivityStep, Source, ToolCall, ToolResult, ToolSpec } from '../../contract/types.js';
import type { MessageRecord } from '../storage/types.js';

export type { ToolCall, ToolSpec };

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
  | { type: 'tool_calls'; calls: ToolCall[] };

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
  signal: AbortSignal;
}

/**
 * What the service asks of an agent. The service handles framing, storage, tool rounds,
 * time limits and cancelation; an agent only turns a question into outputs.
 */
export interface Agent {
  answer(input: AgentInput): AsyncIterable<AgentOutput>;
}
