import type { Agent } from '../agents/types.js';
import type { Clock } from '../kernel/clock.js';
import { encodeRecord } from '../../contract/records.js';
import { randomId } from '../kernel/ids.js';
import type { EndedOrphan, MessageRecord, StoresOf, ThreadMeta } from '../storage/types.js';
import type { Log } from '../kernel/log.js';
import { type FailedHook, logLostAnswers } from './failure-log.js';
import { FanOut } from './fan-out.js';
import { type Signal, decodeSignal, encodeSignal } from './fleet.js';
import { Following } from './follow.js';
import { LiveAnswer } from './live-answer.js';
import { RecordStream } from './record-stream.js';
import { isPaused, snapshot, storedEnd } from './replay.js';
import { type RunParts, runAnswer } from './run.js';
import { AnswerSaves } from './saves.js';
import type { AnswerRunner, StartAnswer } from './types.js';

/** A cancel for whichever instance generates the answer (its row, naming the host, is gone). */
const ANY_HOST = '*';

const encoder = new TextEncoder();
/** Node's check phase (after I/O callbacks); elsewhere the next task. */
const afterIo: (fn: () => void) => void =
  (globalThis as { setImmediate?: (fn: () => void) => void }).setImmediate ?? ((fn) => setTimeout(fn, 0));

export interface AnswersOptions {
  /** Answers live in the conversations, generate under the ledger's rules, and signal through the fleet. */
  storage: StoresOf<'conversations' | 'ledger' | 'fleet'>;
  clock: Clock;
  agent: Agent;
  log: Log;
  /** Longest an answer may generate before it ends with an error. */
  maxAnswerMs: number;
  /** An instance unseen this long is dead: its answers are ended by others. */
  leaseMs: number;
  /** The longest silence of a streamed answer before a keep-alive record (decision 586); 0: none. */
  keepAliveMs: number;
  /** Told of each answer that failed here, or that this instance ended as lost. */
  failed?: FailedHook;
}

/**
 * Runs answers apart from the connections that asked for them (wire contract §9): a closed
 * connection only unsubscribes; cancel, the time limit or shutdown stop the agent. Each duty
 * has its part: `runAnswer` generates (run.ts), `FanOut` coalesces records per tick for the
 * attached streams and the followers, `AnswerSaves` saves text as it grows (batched per tick),
 * `Following` relays other instances' answers and awaits their cancels. This class holds the
 * live answers and hosts them for the fleet.
 */
export class Answers implements AnswerRunner {
  readonly instanceId = randomId('inst');
  private readonly live = new Map<string, LiveAnswer>();
  private readonly saves: AnswerSaves;
  private readonly fanOut: FanOut;
  private readonly following: Following;
  private readonly runParts: RunParts;
  private unsubscribe: (() => Promise<void>) | null = null;
  private drainBegun = false;
  /** Chats let in before a drain began whose answer has not started yet: the drain waits for them too. */
  private readonly admitted = new Set<Promise<void>>();

  constructor(private readonly options: AnswersOptions) {
    const { storage, clock, log } = options;
    const publish = (signal: Signal) => this.signal(signal);
    this.saves = new AnswerSaves(storage.ledger, clock, this.instanceId, log);
    this.fanOut = new FanOut(publish, () => this.saves.saveDue(), options.keepAliveMs);
    this.following = new Following(storage.conversations, clock, publish, {
      check: (answerId) => this.checkHost(answerId),
      everyMs: options.leaseMs / 3,
      keepAliveMs: options.keepAliveMs,
    });
    this.runParts = {
      ledger: storage.ledger,
      conversations: storage.conversations,
      clock,
      agent: options.agent,
      log,
      failed: options.failed,
      instanceId: this.instanceId,
      fanOut: this.fanOut,
      saves: this.saves,
      maxAnswerMs: options.maxAnswerMs,
      released: (answer) => this.release(answer),
    };
  }

  /** Joins the fleet's signals; until then only this instance's own answers are reachable. */
  async listen(): Promise<void> {
    this.unsubscribe ??= await this.options.storage.fleet.subscribe((message) => {
      const signal = decodeSignal(message);
      if (signal) this.onSignal(signal);
    });
  }

  get size(): number {
    return this.live.size;
  }

  get draining(): boolean {
    return this.drainBegun;
  }

  admit(): (() => void) | null {
    if (this.drainBegun) return null;
    let leave!: () => void;
    const gone = new Promise<void>((resolve) => (leave = resolve));
    this.admitted.add(gone);
    return () => {
      this.admitted.delete(gone);
      leave();
    };
  }

  /**
   * Takes no new answers (`admit` refuses) and waits for those generating here, and for the
   * chats let in before it began, to end, for at most `deadlineMs`; resolves with how many
   * answers there were and how many still generate (`stopAll` then cuts them, decision 447). Reattaches, cancels and the fleet's
   * signals are served meanwhile: followers on other instances read the answers to their end.
   */
  async drain(deadlineMs: number): Promise<{ answers: number; left: number }> {
    this.drainBegun = true;
    const answers = this.live.size;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<'deadline'>(
      (resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)),
    );
    try {
      // Again while any is left: a question admitted just before the drain began starts during it.
      while (this.live.size || this.admitted.size) {
        const ended = Promise.all([
          ...[...this.live.values()].map((answer) => answer.done),
          ...this.admitted,
        ]);
        if ((await Promise.race([ended, deadline])) === 'deadline') break;
      }
    } finally {
      clearTimeout(timer);
    }
    return { answers, left: this.live.size };
  }

  start(request: StartAnswer): RecordStream {
    const answer = new LiveAnswer(request.message, request.thread, this.options.clock.now());
    this.live.set(answer.message.id, answer);
    const records = this.fanOut.attach(answer, false);
    // The agent starts once the event loop has taken its pending I/O: in a burst of questions,
    // every stream_start (and every question's write) goes out before the agents' first work
    // (the demo agent's search, a model call's set-up) is done for any of them.
    afterIo(() => void runAnswer(answer, request, this.runParts));
    return records;
  }

  async reattach(message: MessageRecord, thread: ThreadMeta): Promise<RecordStream> {
    const local = this.live.get(message.id);
    if (local) return this.fanOut.attach(local, true);
    const { storage, leaseMs } = this.options;
    if (message.status === 'streaming' && !isPaused(message)) {
      const host = await storage.ledger.answerHost(message.id, leaseMs);
      if (host?.instanceId && host.instanceId !== this.instanceId && host.alive)
        return this.following.follow(message, thread, host.instanceId);
      // Its instance died: end it as an error now rather than when the lease reaper comes by.
      if (host?.instanceId && !host.alive) await this.endOrphan(message.id, 'error');
      message = (await storage.conversations.getMessage(message.id))?.message ?? message;
    }
    return this.storedStream(message, thread);
  }

  /**
   * A followed answer's host went silent: alive while its lease runs; once it has run out, the
   * answer is ended as an error here (as a reattach would) and said to be over.
   */
  private async checkHost(answerId: string): Promise<'alive' | 'over'> {
    const { storage, leaseMs } = this.options;
    const found = await storage.conversations.getMessage(answerId);
    if (found?.message.status !== 'streaming') return 'over';
    const host = await storage.ledger.answerHost(answerId, leaseMs);
    if (host?.alive) return 'alive';
    await this.endOrphan(answerId, 'error');
    return 'over';
  }

  /** Ends an answer whose instance died; a lost one writes its log line here (decision 513). */
  private async endOrphan(answerId: string, status: 'stopped' | 'error'): Promise<void> {
    const { storage, clock, leaseMs, log, failed } = this.options;
    const ended = await storage.ledger.endOrphan(answerId, status, clock.now(), leaseMs);
    if (ended) logLostAnswers(log, [ended], failed);
  }

  /**
   * The lease reaper ended these answers (their instance died): whoever relays them hears it,
   * and each lost one writes its log line.
   */
  reaped(ended: EndedOrphan[]): void {
    for (const { id } of ended) this.signal({ kind: 'ended', answerId: id });
    logLostAnswers(this.options.log, ended, this.options.failed);
  }

  async cancel(message: MessageRecord): Promise<void> {
    const local = this.live.get(message.id);
    if (local) return local.halt('cancel');
    const { storage, clock, leaseMs } = this.options;
    if (message.status !== 'streaming') return;
    if (isPaused(message)) {
      // No instance generates a paused answer; only a claim in flight could, and it is conditional on this state.
      await storage.conversations.updateMessage(message.id, { status: 'stopped', updatedAt: clock.now() });
      return;
    }
    const host = await storage.ledger.answerHost(message.id, leaseMs);
    if (!host?.instanceId || host.instanceId === this.instanceId) return;
    if (!host.alive) {
      await this.endOrphan(message.id, 'stopped');
      return;
    }
    // Should the host have died since its last heartbeat, whoever ends the answer as an orphan
    // (once the lease runs out) stores it as the visitor asked: stopped.
    await storage.ledger.requestStop(message.id);
    const ended = this.following.awaitEnd(message.id);
    this.signal({ kind: 'cancel', answerId: message.id, host: host.instanceId });
    await ended;
  }

  stopDeleted(answerIds: string[]): void {
    for (const id of answerIds) {
      const local = this.live.get(id);
      if (local) void local.halt('cancel');
      // The rows are gone with the thread, and with them who generates: whoever does, stops.
      else this.signal({ kind: 'cancel', answerId: id, host: ANY_HOST });
    }
  }

  async stopAll(): Promise<void> {
    const all = [...this.live.values()];
    await Promise.all(all.map((answer) => answer.halt('shutdown')));
    this.following.closeAll();
    await this.unsubscribe?.().catch(() => {});
    this.unsubscribe = null;
  }

  /** An answer no instance generates: what is stored, and how it ended. */
  private storedStream(message: MessageRecord, thread: ThreadMeta): RecordStream {
    const head = encodeRecord('stream_start', { thread_id: thread.id, question_answer_id: message.id });
    const records = new RecordStream(() => {});
    records.write(encoder.encode(head + storedEnd(message, thread, this.options.clock.now()).join('')));
    records.end();
    return records;
  }

  /** The answer is stored and its last record sent. */
  private release(answer: LiveAnswer): void {
    this.live.delete(answer.message.id);
    if (answer.announceEnd) this.signal({ kind: 'ended', answerId: answer.message.id });
  }

  private onSignal(signal: Signal): void {
    switch (signal.kind) {
      case 'watch':
      case 'unwatch':
      case 'cancel':
        return this.host(signal);
      default:
        return this.following.hear(signal);
    }
  }

  /** What other instances ask of the answers this one generates. */
  private host(signal: Extract<Signal, { kind: 'watch' | 'unwatch' | 'cancel' }>): void {
    if (signal.kind === 'unwatch') {
      this.live.get(signal.answerId)?.watchers.delete(signal.watchId);
      return;
    }
    if (signal.host !== this.instanceId && !(signal.kind === 'cancel' && signal.host === ANY_HOST)) return;
    const answer = this.live.get(signal.answerId);
    if (signal.kind === 'cancel') {
      if (!answer) {
        if (signal.host !== ANY_HOST) this.signal({ kind: 'ended', answerId: signal.answerId });
        return;
      }
      answer.announceEnd = true;
      void answer.halt('cancel');
      return;
    }
    if (!answer || answer.end) return this.signal({ kind: 'gone', watchId: signal.watchId });
    // Flushed first: the snapshot is exactly the records before `flushed`, and every later
    // record goes out in `recs` after it (one publisher, one order).
    this.fanOut.flush(answer);
    answer.watchers.add(signal.watchId);
    this.signal({
      kind: 'snap',
      watchId: signal.watchId,
      seq: answer.flushed,
      records: snapshot(answer.message).join(''),
    });
  }

  private signal(signal: Signal): void {
    this.options.storage.fleet.publish([encodeSignal(signal)]).catch((error) => {
      this.options.log({
        level: 'error',
        msg: 'signal_failed',
        kind: signal.kind,
        error: error instanceof Error ? error.name : typeof error,
      });
    });
  }
}
