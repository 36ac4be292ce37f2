import { AgentError, type AgentOutput } from './types.js';
import { AttemptFailure } from './openai-failures.js';
import type { Phrases } from './phrases.js';

/** The timing options of the model agent (OpenAiAgentOptions). */
export interface TimingOptions {
  firstTokenTimeoutMs?: number;
  stillWorkingAfterMs?: number;
  stallTimeoutMs?: number;
  retryBaseMs?: number;
  maxRetryDelayMs?: number;
}

/**
 * Where one answer is in its life, and the time it keeps: the first token ends retries and the
 * first-token deadline; before it a late model shows a still-working step, after it a watchdog
 * ends a silent stream.
 */
export class ModelClock {
  readonly started = Date.now();
  readonly firstTokenBy: number;
  /** When the first token came; null before. */
  firstTokenAt: number | null = null;
  /** When the still-working step was shown; null before. */
  noticed: number | null = null;
  /** Last time anything arrived from the model, for the stall timeout. */
  lastData = this.started;
  /** Once the answer streams, one timer per try watches for silence (no timer per chunk). */
  watchdog?: ReturnType<typeof setTimeout>;
  stalled = false;

  constructor(
    private readonly options: TimingOptions,
    private readonly phrases: Phrases,
    /** The step's id: one per run of the answer. */
    private readonly stepId: string,
  ) {
    this.firstTokenBy = this.started + (options.firstTokenTimeoutMs ?? 60_000);
  }

  /** The first token arrived: no more retries, and a shown still-working step is completed. */
  *firstToken(local: AbortController | null): Generator<AgentOutput, void> {
    if (this.firstTokenAt !== null) return;
    this.firstTokenAt = Date.now();
    if (local) {
      const stall = this.options.stallTimeoutMs ?? 60_000;
      const check = () => {
        const idle = Date.now() - this.lastData;
        if (idle < stall) this.watchdog = setTimeout(check, stall - idle);
        else {
          this.stalled = true;
          local.abort();
        }
      };
      this.watchdog = setTimeout(check, stall);
    }
    if (this.noticed !== null)
      yield this.step(
        'completed',
        this.phrases.startedAfter(Math.max(1, Math.round((this.firstTokenAt - this.started) / 1000))),
      );
  }

  step(status: 'started' | 'completed' | 'error', summary: string): AgentOutput {
    return {
      type: 'activity',
      step: { id: this.stepId, name: 'wait_for_model', status, summary, num_results: null },
    };
  }

  /**
   * Awaits `promise` before the first token, keeping time: shows the still-working step when
   * the first token is late, and fails at the first-token deadline.
   */
  async *wait<T>(promise: Promise<T>, local: AbortController): AsyncGenerator<AgentOutput, T> {
    const settled = promise.then((value) => ({ value }));
    settled.catch(() => {});
    const deadline = this.firstTokenBy;
    for (;;) {
      const now = Date.now();
      const notice =
        this.noticed === null
          ? this.started + (this.options.stillWorkingAfterMs ?? 4_000)
          : Number.POSITIVE_INFINITY;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const outcome = await Promise.race([
        settled,
        new Promise<null>(
          (resolve) => (timer = setTimeout(resolve, Math.max(0, Math.min(notice, deadline) - now), null)),
        ),
      ]);
      clearTimeout(timer);
      if (outcome) return outcome.value;
      // A timer may fire a little early: act only on what is really due, else wait again.
      if (Date.now() >= deadline) {
        local.abort();
        const seconds = Math.max(1, Math.round((deadline - this.started) / 1000));
        throw new AttemptFailure(
          new AgentError(
            `The model did not start answering within ${seconds} s.`,
            'model_first_token_timeout',
            `the model did not start answering within ${seconds} s: raise AGENT_CHAT_MODEL_FIRST_TOKEN_TIMEOUT or check the model server's load`,
          ),
          false,
        );
      }
      if (Date.now() >= notice) {
        this.noticed = Date.now();
        yield this.step('started', this.phrases.stillWorking);
      }
    }
  }

  stalledFailure(): AttemptFailure {
    const seconds = Math.max(1, Math.round((this.options.stallTimeoutMs ?? 60_000) / 1000));
    return new AttemptFailure(
      new AgentError(`The answer stopped: the model sent nothing for ${seconds} s.`, 'model_stalled'),
      false,
    );
  }

  /** How long to wait before the next try; null when it must not be made. */
  retryDelay(error: AttemptFailure, attempt: number): number | null {
    const base = this.options.retryBaseMs ?? 500;
    const backoff = base * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
    const delay = error.retryAfterMs ?? backoff;
    if (delay > (this.options.maxRetryDelayMs ?? 20_000) || Date.now() + delay >= this.firstTokenBy)
      return null;
    return Math.round(delay);
  }
}
