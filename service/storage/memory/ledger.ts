import { IDEMPOTENCY_WINDOW_MS } from '../../../contract/limits.js';
import type {
  AnswerEnd,
  AnswerLedger,
  AnswerSave,
  AnswerStart,
  AskKey,
  BeginResult,
  ToolCallRecord,
} from '../types.js';
import type { MemoryState } from './state.js';

const askId = ({ projectId, scope, key }: Omit<AskKey, 'fingerprint'>) => `${projectId}\n${scope}\n${key}`;

/** Synchronous, as every check-and-write of the memory roles, so two begins with one key never both pass. */
function askOf(state: MemoryState, key: Omit<AskKey, 'fingerprint'>, since: number) {
  const ask = state.asks.get(askId(key));
  return ask && ask.createdAt >= since ? { ...ask } : undefined;
}

/** Answers and their slots in memory: `state.hosts` says which instance generates each. */
export class MemoryAnswerLedger implements AnswerLedger {
  constructor(private readonly state: MemoryState) {}

  async beginAnswer({
    thread,
    newThread,
    question,
    answer,
    instanceId,
    events,
    slot,
    ask,
  }: AnswerStart): Promise<BeginResult> {
    const { state } = this;
    if (!newThread && !state.threads.has(thread.id)) return 'thread_gone';
    if (ask && askOf(state, ask, answer.createdAt - IDEMPOTENCY_WINDOW_MS)) return 'asked';
    if (slot && state.takeSlot(slot.key, slot.cap, answer.id, answer.createdAt) !== 'taken')
      return 'cap_reached';
    if (newThread) state.createThread(thread);
    state.appendMessage(thread.id, question);
    state.claimFiles(question, thread.id);
    state.appendMessage(thread.id, answer);
    state.hosts.set(answer.id, instanceId);
    if (events[0])
      state.counted.set(answer.id, {
        sessionToken: events[0].sessionToken,
        integrationId: events[0].integrationId,
      });
    for (const event of events) state.events.push({ ...event });
    if (ask)
      state.asks.set(askId(ask), {
        fingerprint: ask.fingerprint,
        threadId: thread.id,
        answerId: answer.id,
        createdAt: answer.createdAt,
      });
    return 'begun';
  }

  async saveAnswers(saves: AnswerSave[], instanceId: string) {
    const held = new Set<string>();
    for (const { id, ...patch } of saves) {
      const message = this.state.message(id);
      if (!message || message.status !== 'streaming' || this.state.hosts.get(id) !== instanceId) continue;
      Object.assign(message, structuredClone(patch));
      held.add(id);
    }
    return held;
  }

  async endAnswer({ id, instanceId, patch, events }: AnswerEnd) {
    this.state.freeSlot(id);
    const message = this.state.message(id);
    if (!message || this.state.hosts.get(id) !== instanceId) return false;
    this.state.hosts.delete(id);
    if (patch.status !== 'streaming') this.state.counted.delete(id);
    Object.assign(message, structuredClone(patch));
    for (const event of events) this.state.events.push({ ...event });
    return true;
  }

  async resumeAnswer(
    id: string,
    expected: ToolCallRecord[],
    toolCalls: ToolCallRecord[],
    updatedAt: number,
    instanceId: string,
  ) {
    const message = this.state.message(id);
    if (
      !message ||
      message.status !== 'streaming' ||
      this.state.hosts.has(id) ||
      JSON.stringify(message.toolCalls) !== JSON.stringify(expected)
    )
      return false;
    Object.assign(message, { toolCalls: structuredClone(toolCalls), updatedAt });
    this.state.hosts.set(id, instanceId);
    return true;
  }

  async answerHost(answerId: string, leaseMs: number) {
    if (!this.state.messageThread.has(answerId)) return undefined;
    const instanceId = this.state.hosts.get(answerId) ?? null;
    const seen = instanceId === null ? undefined : this.state.instances.get(instanceId);
    return { instanceId, alive: seen !== undefined && seen >= Date.now() - leaseMs };
  }

  async endOrphan(answerId: string, status: 'stopped' | 'error', now: number, leaseMs: number) {
    const message = this.state.message(answerId);
    const host = await this.answerHost(answerId, leaseMs);
    if (!message || message.status !== 'streaming' || !host?.instanceId || host.alive) return null;
    this.state.freeSlot(answerId);
    const stopped = this.state.stopRequested.delete(answerId);
    return this.state.endLost(message, stopped ? 'stopped' : status, now);
  }

  async requestStop(answerId: string) {
    if (this.state.message(answerId)?.status === 'streaming') this.state.stopRequested.add(answerId);
  }

  async endStale(before: number, now: number) {
    const ended = [];
    for (const list of this.state.messages.values()) {
      for (const m of list) {
        if (m.status === 'streaming' && m.updatedAt < before) {
          const paused = m.toolCalls.some((call) => call.status === 'pending');
          const stop = this.state.stopRequested.has(m.id) || paused;
          ended.push(this.state.endLost(m, stop ? 'stopped' : 'error', now, m.updatedAt));
        }
      }
    }
    return ended;
  }

  async takeAnswerSlot(key: string, cap: number, answerId: string, _instanceId: string, now: number) {
    return this.state.takeSlot(key, cap, answerId, now);
  }

  async releaseAnswerSlot(answerId: string) {
    this.state.freeSlot(answerId);
  }

  async findAsk(key: Omit<AskKey, 'fingerprint'>, since: number) {
    return askOf(this.state, key, since);
  }

  async purgeAsks(before: number) {
    let count = 0;
    for (const [key, ask] of this.state.asks)
      if (ask.createdAt < before) count += Number(this.state.asks.delete(key));
    return count;
  }

  async purgeAnswerSlots(before: number) {
    let count = 0;
    for (const [answerId, slot] of this.state.slots) {
      if (slot.at < before) {
        this.state.freeSlot(answerId);
        count += 1;
      }
    }
    return count;
  }
}
