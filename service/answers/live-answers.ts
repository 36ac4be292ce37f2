import { MAX_TOOL_ROUNDS } from '../../contract/limits.js';
import { encodeRecord } from '../../contract/records.js';
import { AgentError, type AgentInput, type AgentOutput } from '../agents/types.js';
import type { ServiceContext } from '../http/context.js';
import { STREAM_HEADERS } from '../http/responses.js';
import type { ActivityEvent, MessageRecord, StoredStatus, ThreadMeta, TokenUsage } from '../storage/types.js';
import { snapshot } from './replay.js';
/** How often a generating answer's text is written, so a crash loses at most this much. */
const SAVE_EVERY_MS = 1_000;

type Listener = (record: string, last: boolean) => void;

export interface AnswerEnd {
  status: StoredStatus;
  record: string;
}

/** An answer generating in this process: the agent runs here whoever is listening. */
class LiveAnswer {
  readonly listeners = new Set<Listener>();
  readonly stop = new AbortController();
  end: AnswerEnd | null = null;
  done!: Promise<void>;
  /** Why `stop` fired: a cancel keeps the text as stopped, the time limit ends with an error. */
  stopReason: 'cancel' | 'shutdown' | 'time_limit' | null = null;

  constructor(
    readonly message: MessageRecord,
    readonly thread: ThreadMeta,
  ) {}

  emit(record: string, last = false) {
    for (const listener of this.listeners) listener(record, last);
  }
}

export interface StartAnswer {
  thread: ThreadMeta;
  message: MessageRecord;
  input: Omit<AgentInput, 'signal'>;
  /** Activity event fields of the caller, for counting the answer when it ends. */
  activity: Omit<ActivityEvent, 'kind' | 'at'>;
}

/**
 * Runs answers apart from the connections that asked for them (wire contract §9): a closed
 * connection only unsubscribes; cancel, the time limit or shutdown stop the agent. Text is
 * saved as it grows and the answer is saved whole when it ends.
 */
export class Answers {
  private readonly live = new Map<string, LiveAnswer>();
  /** Paused answers whose tool results are being taken, so two continuations cannot both run. */
  private readonly claimed = new Set<string>();

  constructor(
    private readonly ctx: () => ServiceContext,
    private readonly maxAnswerMs: number,
  ) {}

  get(id: string): LiveAnswer | undefined {
    return this.live.get(id);
  }

  get size(): number {
    return this.live.size;
  }

  /** Claims a paused answer for one continuation; false when another has it (in this process). */
  claim(id: string): boolean {
    if (this.claimed.has(id) || this.live.has(id)) return false;
    this.claimed.add(id);
    return true;
  }

  release(id: string): void {
    this.claimed.delete(id);
  }

  /** Starts generating and returns the stream for the caller (stream_start first). */
  start(request: StartAnswer): Response {
    const answer = new LiveAnswer(request.message, request.thread);
    this.claimed.delete(answer.message.id);
    this.live.set(answer.message.id, answer);
    const response = this.stream(answer, false);
    answer.done = this.run(answer, request);
    return response;
  }

  /** Stops an answer generating here; true when there was one. */
  cancel(id: string): Promise<void> | undefined {
    const answer = this.live.get(id);
    if (!answer || answer.end) return answer?.done;
    answer.stopReason ??= 'cancel';
    answer.stop.abort();
    return answer.done;
  }

  /** Shutdown: every answer in flight is stored as stopped. */
  async stopAll(): Promise<void> {
    const all = [...this.live.values()];
    for (const answer of all) {
      answer.stopReason ??= 'shutdown';
      answer.stop.abort();
    }
    await Promise.all(all.map((a) => a.done));
  }

  /**
   * The record stream of a live answer. With `replay`, what it has so far comes first
   * (reattach); a closed connection only removes its listener.
   */
  stream(answer: LiveAnswer, replay: boolean): Response {
    const encoder = new TextEncoder();
    let listener: Listener | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const send = (text: string) => controller.enqueue(encoder.encode(text));
        send(encodeRecord('stream_start', { thread_id: answer.thread.id, question_answer_id: answer.message.id }));
        if (replay) for (const record of snapshot(answer.message)) send(record);
        if (answer.end) {
          send(answer.end.record);
          controller.close();
          return;
        }
        listener = (record, last) => {
          send(record);
          if (last) {
            answer.listeners.delete(listener!);
            controller.close();
          }
        };
        answer.listeners.add(listener);
      },
      cancel: () => {
        if (listener) answer.listeners.delete(listener);
      },
    });
    return new Response(body, { headers: STREAM_HEADERS });
  }

  private async run(answer: LiveAnswer, { input, activity }: StartAnswer): Promise<void> {
    const ctx = this.ctx();
    const { message } = answer;
    const timer = setTimeout(() => {
      answer.stopReason ??= 'time_limit';
      answer.stop.abort();
    }, this.maxAnswerMs);
    let writes: Promise<unknown> = Promise.resolve();
    let savedAt = ctx.clock.now();
    let gone = false;
    /** What the model reported for this run; the message keeps the sum over the answer's runs. */
    let runUsage = null as TokenUsage | null;
    const save = () => {
      const snapshotNow = { content: message.content, sources: message.sources, activity: message.activity, uncertain: message.uncertain, updatedAt: ctx.clock.now() };
      writes = writes.then(async () => {
        // A thread deleted meanwhile stays deleted: the update finds nothing to write.
        if (!(await ctx.storage.updateMessage(message.id, snapshotNow))) gone = true;
      }).catch(() => {});
    };
    const finish = async (status: StoredStatus, record: string) => {
      clearTimeout(timer);
      message.status = status;
      message.updatedAt = ctx.clock.now();
      await writes;
      try {
        const stored = !gone && await ctx.storage.updateMessage(message.id, {
          content: message.content, sources: message.sources, activity: message.activity, uncertain: message.uncertain,
          toolCalls: message.toolCalls, status, updatedAt: message.updatedAt, usage: message.usage,
        });
        if (stored && status !== 'streaming') await ctx.storage.recordActivity({ ...activity, kind: 'message', at: message.updatedAt });
        if (stored && runUsage) await ctx.storage.recordActivity({ ...activity, kind: 'usage', at: message.updatedAt, ...runUsage });
      } catch (error) {
        // The listeners still get the end of the answer.
        ctx.log({ level: 'error', msg: 'answer_not_saved', error: error instanceof Error ? error.name : typeof error });
      }
      answer.end = { status, record };
      answer.emit(record, true);
      this.live.delete(message.id);
    };
    const stoppedEnd = async () => {
      if (answer.stopReason === 'time_limit') {
        await finish('error', encodeRecord('error', { reason: 'The answer took too long and was ended.' }, true));
      } else {
        await finish('stopped', identifiers(answer));
      }
    };

    const outputs = ctx.agent.answer({ ...input, signal: answer.stop.signal })[Symbol.asyncIterator]();
    // An agent that ignores its signal must not hold a cancel or a shutdown forever.
    const stopped = new Promise<never>((_, reject) => answer.stop.signal.addEventListener('abort', () => reject(answer.stop.signal.reason), { once: true }));
    stopped.catch(() => {});
    try {
      for (;;) {
        if (answer.stop.signal.aborted) break;
        const next: IteratorResult<AgentOutput> = await Promise.race([outputs.next(), stopped]);
        if (answer.stop.signal.aborted) break;
        if (next.done) {
          // An agent that ends quietly with nothing to show has failed, whatever it says.
          if (!message.content.trim() && !message.toolCalls.length) return await finish('error', encodeRecord('error', { reason: 'The agent ended without an answer.' }, true));
          return await finish('complete', identifiers(answer));
        }
        const out = next.value;
        if (out.type === 'text') {
          message.content += out.text;
          answer.emit(encodeRecord('partial_answer', { text: out.text }));
          if (ctx.clock.now() - savedAt >= SAVE_EVERY_MS) {
            savedAt = ctx.clock.now();
            save();
          }
        } else if (out.type === 'sources') {
          message.sources.push(...out.sources);
          answer.emit(encodeRecord('relevant_sources', { relevant_sources: out.sources }));
        } else if (out.type === 'activity') {
          const at = message.activity.findIndex((s) => s.id === out.step.id);
          if (at >= 0) message.activity[at] = out.step;
          else message.activity.push(out.step);
          answer.emit(encodeRecord('agent_activity_update', out.step));
        } else if (out.type === 'usage') {
          runUsage = { promptTokens: (runUsage?.promptTokens ?? 0) + out.promptTokens, completionTokens: (runUsage?.completionTokens ?? 0) + out.completionTokens };
          message.usage = { promptTokens: (message.usage?.promptTokens ?? 0) + out.promptTokens, completionTokens: (message.usage?.completionTokens ?? 0) + out.completionTokens };
        } else if (out.type === 'uncertain') {
          message.uncertain = true;
          answer.emit(encodeRecord('metadata', { is_uncertain: true }));
        } else if (out.type === 'tool_calls') {
          const round = input.rounds.length + 1;
          if (round > MAX_TOOL_ROUNDS) {
            return await finish('error', encodeRecord('error', { reason: `The agent asked for more than ${MAX_TOOL_ROUNDS} tool rounds.` }, true));
          }
          message.toolCalls.push(...out.calls.map((c) => ({ ...c, round, status: 'pending' as const })));
          void outputs.return?.();
          // Still `streaming`: the answer goes on when the results come (§7).
          return await finish('streaming', encodeRecord('tool_calls', { tool_calls: out.calls }, true));
        }
      }
      void outputs.return?.();
      await stoppedEnd();
    } catch (error) {
      if (answer.stop.signal.aborted) return await stoppedEnd();
      // An AgentError's reason and hint are the agent's own words; any other error gives its
      // name only, since a model's error message may quote the conversation.
      if (error instanceof AgentError) {
        ctx.log({ level: 'warn', msg: 'agent_failed', error: error.name, code: error.code, ...(error.hint && { hint: error.hint }) });
        return await finish('error', encodeRecord('error', { reason: error.reason }, true));
      }
      ctx.log({ level: 'warn', msg: 'agent_failed', error: error instanceof Error ? error.name : typeof error });
      await finish('error', encodeRecord('error', { reason: 'The agent could not finish this answer.' }, true));
    }
  }
}

function identifiers(answer: LiveAnswer): string {
  return encodeRecord('identifiers', { thread_id: answer.thread.id, question_answer_id: answer.message.id }, true);
}
