import type { MessageRecord, StoredStatus, ThreadMeta } from '../storage/types.js';

/** Where an answer's bytes go on this instance: one attached stream each. */
export type Listener = (bytes: Uint8Array, last: boolean) => void;

/** Why an answer was stopped: a cancel keeps the text as stopped; the time limit and a shutdown end with an error. */
export type StopReason = 'cancel' | 'shutdown' | 'time_limit' | 'gone';

/** An answer generating in this instance: the agent runs here whoever is listening, wherever. */
export class LiveAnswer {
  readonly listeners = new Set<Listener>();
  /** Watch ids of other instances following this answer. */
  readonly watchers = new Set<string>();
  readonly stop = new AbortController();
  /**
   * Records waiting for the next tick, and text not yet framed: consecutive text becomes one
   * partial_answer record (deltas append, so one record says what many would). `flushed`
   * counts the records sent so far: the position a follower on another instance resumes at.
   */
  pending: string[] = [];
  pendingText = '';
  flushed = 0;
  /** Set once the last record is emitted; the stream ends with it. */
  end: { status: StoredStatus; record: string } | null = null;
  /** Settles once the answer is stored and its last record sent, however the agent behaves. */
  readonly done: Promise<void>;
  readonly ended!: () => void;
  savedAt: number;
  stopReason: StopReason | null = null;
  /** Another instance sent the cancel: it waits for `ended`. */
  announceEnd = false;

  constructor(
    /** The answer as it grows: each output replaces it (applyOutput). */
    public message: MessageRecord,
    readonly thread: ThreadMeta,
    now: number,
  ) {
    this.savedAt = now;
    this.done = new Promise<void>((resolve) => ((this as { ended: () => void }).ended = resolve));
  }

  /** Stops the agent, unless the answer already ended; resolves once it is stored. */
  halt(reason: StopReason): Promise<void> {
    if (!this.end) {
      this.stopReason ??= reason;
      this.stop.abort();
    }
    return this.done;
  }
}
