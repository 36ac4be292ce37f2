import { TOOL_WAIT_MS } from '../../contract/limits.js';
import { encodeRecord } from '../../contract/records.js';
import type { ToolRound } from '../agents/types.js';
import { LOST_ANSWER, type MessageRecord, type ThreadMeta } from '../storage/types.js';

/** The reason a reattach gives a failed answer stored before its own was kept. */
const FAILED_BEFORE = 'The agent could not finish this answer.';

/** What an answer has so far, as records: sources, activity, uncertainty, then its whole text. */
export function snapshot(message: MessageRecord): string[] {
  const records: string[] = [];
  if (message.sources.length)
    records.push(encodeRecord('relevant_sources', { relevant_sources: message.sources }));
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
  return (
    message.status === 'streaming' &&
    message.toolCalls.some((c) => c.status === 'pending') &&
    now - message.updatedAt > TOOL_WAIT_MS
  );
}

/**
 * A reattach to an answer no instance generates (§9): what is stored, then how it ended: the
 * error its stream ended with (decision 524), its pending tool calls (paused), the words of a
 * lost answer (left streaming by a crash no instance has noticed yet) or its identifiers.
 * `stream_start` is the caller's.
 */
export function storedEnd(message: MessageRecord, thread: ThreadMeta, now: number): string[] {
  const records = snapshot(message);
  const pending = message.toolCalls.filter((c) => c.status === 'pending');
  if (message.status === 'error')
    records.push(encodeRecord('error', { reason: message.failure?.reason ?? FAILED_BEFORE }, true));
  else if (message.status === 'streaming' && pending.length && !waitExpired(message, now)) {
    records.push(
      encodeRecord(
        'tool_calls',
        { tool_calls: pending.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) },
        true,
      ),
    );
  } else if (message.status === 'streaming' && !pending.length) {
    records.push(encodeRecord('error', { reason: LOST_ANSWER.reason }, true));
  } else
    records.push(encodeRecord('identifiers', { thread_id: thread.id, question_answer_id: message.id }, true));
  return records;
}

/** A paused answer: streaming, waiting for the browser's tool results (§7). */
export const isPaused = (message: MessageRecord) =>
  message.status === 'streaming' && message.toolCalls.some((c) => c.status === 'pending');
