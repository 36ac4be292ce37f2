import { TOOL_WAIT_MS } from '../../contract/limits.js';
import { encodeRecord } from '../../contract/records.js';
import type { ToolRound } from '../agents/types.js';
import type { MessageRecord } from '../storage/types.js';

/** What an answer has so far, as records: sources, activity, uncertainty, then its whole text. */
export function snapshot(message: MessageRecord): string[] {
  const records: string[] = [];
  if (message.sources.length) records.push(encodeRecord('relevant_sources', { relevant_sources: message.sources }));
  for (const step of message.activity) records.push(encodeRecord('agent_activity_update', step));
  if (message.uncertain) records.push(encodeRecord('metadata', { is_uncertain: true }));
  if (message.content) records.push(encodeRecord('partial_answer', { text: message.content }));
  return records;
}

/** Groups an answer's stored tool calls into rounds for the agent. */
export function roundsOf(message: MessageRecord): ToolRound[] {
  const rounds: ToolRound[] = [];
  for (const call of message.toolCalls) {
    const round = (rounds[call.round - 1] ??= { calls: [], results: [] });
    round.calls.push({ id: call.id, name: call.name, arguments: call.arguments });
    if (call.status === 'completed') round.results.push({ tool_call_id: call.id, output: call.output });
    if (call.status === 'error') round.results.push({ tool_call_id: call.id, error: call.error ?? 'failed' });
  }
  return rounds;
}

/** A paused answer waits for tool results this long, then counts as stopped (§7). */
export function waitExpired(message: MessageRecord, now: number): boolean {
  return message.status === 'streaming' && message.toolCalls.some((c) => c.status === 'pending') && now - message.updatedAt > TOOL_WAIT_MS;
}
