import type { Agent, AgentOutput } from '../agents/types.js';
import type { Clock } from '../kernel/clock.js';
import type { ActivityEvent, AnswerLedger, ConversationStore } from '../storage/types.js';
import {
  type AnswerRun,
  type RunEnd,
  agentFailure,
  applyOutput,
  quietEnd,
  stoppedEnd,
  takenOver,
} from './apply-output.js';
import type { FanOut } from './fan-out.js';
import type { Log } from '../kernel/log.js';
import { type FailedHook, logFailedAnswer } from './failure-log.js';
import type { LiveAnswer } from './live-answer.js';
import { storedEnd } from './replay.js';
import type { AnswerSaves } from './saves.js';
import type { StartAnswer } from './types.js';

/** What a run works with: the instance's parts, shared by every answer it generates. */
export interface RunParts {
  ledger: AnswerLedger;
  /** Where an end another instance stored is read back. */
  conversations: Pick<ConversationStore, 'getMessage'>;
  clock: Clock;
  agent: Agent;
  log: Log;
  /** Told of each failed end this instance stored. */
  failed?: FailedHook;
  instanceId: string;
  fanOut: FanOut;
  saves: AnswerSaves;
  /** Longest an answer may generate before it ends with an error. */
  maxAnswerMs: number;
  /** The answer is stored and its last record sent: it leaves the instance's live answers. */
  released: (answer: LiveAnswer) => void;
}

/**
 * One run of the agent for a live answer: its outputs applied as they come, then one end. The
 * first end wins (the agent's last output, a failure, a stop or the time limit); whatever the
 * agent was doing when it came is dropped.
 */
class Run {
  private state: AnswerRun;
  private ending: Promise<void> | null = null;
  private readonly timer: ReturnType<typeof setTimeout>;
  private outputs: AsyncIterator<AgentOutput> | null = null;
  /** The agent threw: what its failure's log line says of the error (name, code, hint). */
  private agentError: Record<string, string> | null = null;

  constructor(
    private readonly answer: LiveAnswer,
    private readonly request: StartAnswer,
    private readonly parts: RunParts,
  ) {
    this.state = { message: answer.message, runUsage: null, rounds: request.input.rounds.length };
    this.timer = setTimeout(() => void answer.halt('time_limit'), parts.maxAnswerMs);
  }

  async run(): Promise<void> {
    const { answer } = this;
    // Stopped before the agent started (a cancel or a shutdown right after the question).
    if (answer.stop.signal.aborted) return this.end(this.stopped());
    const outputs = this.parts.agent
      .answer({ ...this.request.input, signal: answer.stop.signal })
      [Symbol.asyncIterator]();
    this.outputs = outputs;
    // A stop ends the answer at once, without waiting for the agent's next output: an agent
    // that ignores its signal must not hold a cancel or a shutdown forever.
    answer.stop.signal.addEventListener('abort', () => void this.end(this.stopped()), { once: true });
    try {
      for (;;) {
        const step = await outputs.next();
        if (this.ending) return;
        if (step.done) return await this.end(quietEnd(this.state.message, answer.thread.id));
        const end = this.apply(step.value);
        if (end) return await this.end(end);
      }
    } catch (error) {
      if (this.ending) return;
      const failure = agentFailure(error);
      this.agentError = failure.log;
      await this.end(failure.end);
    }
  }

  /** One output: the answer grows, its records go to the tick, its text towards a save. */
  private apply(output: AgentOutput): RunEnd | null {
    const applied = applyOutput(this.state, output);
    this.state = applied.run;
    this.answer.message = applied.run.message;
    if (applied.record !== null) this.parts.fanOut.emit(this.answer, applied.record);
    if (applied.text) {
      this.parts.fanOut.emit(this.answer, null, applied.text);
      this.parts.saves.grew(this.answer);
    }
    return applied.end;
  }

  private stopped(): RunEnd {
    const { answer } = this;
    return stoppedEnd(answer.stopReason, answer.thread.id, answer.message.id);
  }

  /** The first end wins; the agent is told to stop producing. */
  private end(end: RunEnd): Promise<void> {
    if (!this.ending) void this.outputs?.return?.()?.catch(() => {});
    return (this.ending ??= this.settle(end)
      .catch(() => {})
      .then(this.answer.ended));
  }

  /** Stores the answer's end, sends its last record, and releases it. */
  private async settle({ status, record, failure }: RunEnd): Promise<void> {
    const { answer, parts } = this;
    clearTimeout(this.timer);
    answer.message = { ...answer.message, status, updatedAt: parts.clock.now(), failure };
    await parts.saves.settle(answer);
    if (answer.stopReason !== 'gone') {
      try {
        const stored = await parts.ledger.endAnswer(this.stored());
        // Taken over (this instance's lease ran out and another ended it): the stored end stands,
        // whatever stopped the run here (a shutdown too), as a reattach reads it (decision 543).
        if (!stored) record = await this.storedEnding();
        // Whoever stores a failed end writes its one log line (another ender writes its own).
        if (stored && failure) {
          const failed = {
            project: answer.thread.projectId,
            thread: answer.thread.id,
            answer: answer.message.id,
            code: failure.code,
          };
          logFailedAnswer(parts.log, failed, this.agentError);
          parts.failed?.(failed);
        }
      } catch (error) {
        // The listeners still get the end of the answer.
        parts.log({
          level: 'error',
          msg: 'answer_not_saved',
          error: error instanceof Error ? error.name : typeof error,
        });
      }
    }
    answer.end = { status, record };
    parts.fanOut.emitLast(answer, record);
    parts.released(answer);
  }

  /** The last record of the end another instance stored: what a reattach ends with (decision 524). */
  private async storedEnding(): Promise<string> {
    const { answer, parts } = this;
    const found = await parts.conversations.getMessage(answer.message.id).catch(() => undefined);
    return found ? storedEnd(found.message, found.thread, parts.clock.now()).at(-1)! : takenOver();
  }

  /** The end as the ledger stores it, with the activity it counts. */
  private stored() {
    const { message } = this.answer;
    const { activity } = this.request;
    const { runUsage } = this.state;
    const at = message.updatedAt;
    return {
      id: message.id,
      instanceId: this.parts.instanceId,
      patch: {
        content: message.content,
        sources: message.sources,
        activity: message.activity,
        uncertain: message.uncertain,
        toolCalls: message.toolCalls,
        status: message.status,
        updatedAt: at,
        usage: message.usage,
        failure: message.failure,
      },
      events: [
        ...(message.status === 'streaming'
          ? []
          : [{ ...activity, kind: 'message', at } satisfies ActivityEvent]),
        ...(message.status === 'error' ? [{ ...activity, kind: 'failed', at } satisfies ActivityEvent] : []),
        ...(runUsage ? [{ ...activity, kind: 'usage', at, ...runUsage } satisfies ActivityEvent] : []),
      ],
    };
  }
}

/** Generates a live answer to its end; resolves once it is stored and its last record sent. */
export function runAnswer(answer: LiveAnswer, request: StartAnswer, parts: RunParts): Promise<void> {
  return new Run(answer, request, parts).run();
}
