import { MAX_TOOL_ROUNDS } from '../../contract/limits.js';
import { RECORD_SEPARATOR, encodeRecord } from '../../contract/records.js';
import { type Agent, AgentError } from '../agents/types.js';
import type { Clock } from '../kernel/clock.js';
import { randomId } from '../kernel/ids.js';
import type {
  ActivityEvent,
  MessageRecord,
  StoredStatus,
  StoresOf,
  ThreadMeta,
  TokenUsage,
} from '../storage/types.js';
import { type Signal, decodeSignal, encodeSignal } from './fleet.js';
import { RecordStream } from './record-stream.js';
import { isPaused, snapshot, storedEnd } from './replay.js';
import type { AnswerRunner, StartAnswer } from './types.js';

/** How often a generating answer's text is saved, so a crash loses at most this much. */
const SAVE_EVERY_MS = 1_000;
/** How long a reattach waits for the generating instance to start streaming to it. */
const WATCH_TIMEOUT_MS = 2_000;
/** How long a cancel sent to another instance waits for the answer to be stored as stopped. */
const CANCEL_WAIT_MS = 1_500;

/** A cancel for whichever instance generates the answer (its row, naming the host, is gone). */
const ANY_HOST = '*';

/**
 * Records wait for the next tick and go out together, consecutive text as one partial_answer:
 * one write per answer and tick rather than one per token. A model (or the demo agent) streams
 * a token every 10-50 ms, and each write is a system call, a chunk on the wire and a record
 * to frame; the widget paints once per frame anyway. 100 ms (10 updates a second, a few words
 * each) measured 10-15 % less CPU per answer than 40-50 ms. stream_start and the last record
 * go out at once.
 */
const TICK_MS = 100;
const encoder = new TextEncoder();
/** Node's check phase (after I/O callbacks); elsewhere the next task. */
const afterIo: (fn: () => void) => void =
  (globalThis as { setImmediate?: (fn: () => void) => void }).setImmediate ?? ((fn) => setTimeout(fn, 0));

type Listener = (bytes: Uint8Array, last: boolean) => void;

export interface AnswersOptions {
  /** Answers live in the conversations, generate under the ledger's rules, and signal through the fleet. */
  storage: StoresOf<'conversations' | 'ledger' | 'fleet'>;
  clock: Clock;
  agent: Agent;
  log: (
    entry: { level: 'info' | 'warn' | 'error'; msg: string } & Record<
      string,
      string | number | boolean | null
    >,
  ) => void;
  /** Longest an answer may generate before it ends with an error. */
  maxAnswerMs: number;
  /** An instance unseen this long is dead: its answers are ended by others. */
  leaseMs: number;
}

/** An answer generating in this instance: the agent runs here whoever is listening, wherever. */
class LiveAnswer {
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
  /** Why `stop` fired: cancel and shutdown keep the text as stopped, the time limit ends with an error. */
  stopReason: 'cancel' | 'shutdown' | 'time_limit' | 'gone' | null = null;
  /** Another instance sent the cancel: it waits for `ended`. */
  announceEnd = false;

  constructor(
    readonly message: MessageRecord,
    readonly thread: ThreadMeta,
    now: number,
  ) {
    this.savedAt = now;
    this.done = new Promise<void>((resolve) => ((this as { ended: () => void }).ended = resolve));
  }
}

/** A stream this instance relays from the instance that generates the answer. */
interface Watch {
  answerId: string;
  /** Index of the next record the client needs; -1 until the host's snapshot came. */
  next: number;
  send(text: string): void;
  close(): void;
  /** Ends the stream from the store (the host no longer generates it, or never answered). */
  fallBack(): void;
}

/**
 * Runs answers apart from the connections that asked for them (wire contract §9): a closed
 * connection only unsubscribes; cancel, the time limit or shutdown stop the agent. Records are
 * coalesced per tick (one write per answer and tick), text is saved as it grows (the saves of
 * all answers batched per tick), and the end is one write. In a fleet, another
 * instance's reattach is streamed to it through the store's signals, and its cancel reaches
 * the agent here.
 */
export class Answers implements AnswerRunner {
  readonly instanceId = randomId('inst');
  private readonly live = new Map<string, LiveAnswer>();
  private readonly dirty = new Set<LiveAnswer>();
  private flushScheduled = false;
  /** Answers due for a save, and the one batch of saves in flight. */
  private readonly dueSaves = new Set<LiveAnswer>();
  private saving: Promise<void> | null = null;
  private readonly watches = new Map<string, Watch>();
  private readonly cancelWaits = new Map<string, Set<() => void>>();
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(private readonly options: AnswersOptions) {}

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

  start(request: StartAnswer): RecordStream {
    const answer = new LiveAnswer(request.message, request.thread, this.options.clock.now());
    this.live.set(answer.message.id, answer);
    const response = this.stream(answer, false);
    // The agent starts once the event loop has taken its pending I/O: in a burst of questions,
    // every stream_start (and every question's write) goes out before the agents' first work
    // (the demo agent's search, a model call's set-up) is done for any of them.
    afterIo(() => void this.run(answer, request));
    return response;
  }

  async reattach(message: MessageRecord, thread: ThreadMeta): Promise<RecordStream> {
    const local = this.live.get(message.id);
    if (local) return this.stream(local, true);
    const { storage, clock, leaseMs } = this.options;
    if (message.status === 'streaming' && !isPaused(message)) {
      const host = await storage.ledger.answerHost(message.id, leaseMs);
      if (host?.instanceId && host.instanceId !== this.instanceId && host.alive)
        return this.follow(message, thread, host.instanceId);
      // Its instance died: end it as an error now rather than when the lease reaper comes by.
      if (host?.instanceId && !host.alive)
        await storage.ledger.endOrphan(message.id, 'error', clock.now(), leaseMs);
      message = (await storage.conversations.getMessage(message.id))?.message ?? message;
    }
    return this.storedStream(message, thread);
  }

  async cancel(message: MessageRecord): Promise<void> {
    const local = this.live.get(message.id);
    if (local) return this.stopLocal(local, 'cancel');
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
      await storage.ledger.endOrphan(message.id, 'stopped', clock.now(), leaseMs);
      return;
    }
    const ended = new Promise<void>((resolve) => {
      const waits = this.cancelWaits.get(message.id) ?? new Set();
      const done = () => {
        clearTimeout(timer);
        waits.delete(done);
        if (!waits.size) this.cancelWaits.delete(message.id);
        resolve();
      };
      const timer = setTimeout(done, CANCEL_WAIT_MS);
      waits.add(done);
      this.cancelWaits.set(message.id, waits);
    });
    this.signal({ kind: 'cancel', answerId: message.id, host: host.instanceId });
    await ended;
  }

  stopDeleted(answerIds: string[]): void {
    for (const id of answerIds) {
      const local = this.live.get(id);
      if (local) void this.stopLocal(local, 'cancel');
      // The rows are gone with the thread, and with them who generates: whoever does, stops.
      else this.signal({ kind: 'cancel', answerId: id, host: ANY_HOST });
    }
  }

  async stopAll(): Promise<void> {
    const all = [...this.live.values()];
    await Promise.all(all.map((answer) => this.stopLocal(answer, 'shutdown')));
    // A copy: closing a watch removes it from the map.
    for (const watch of Array.from(this.watches.values())) watch.close();
    await this.unsubscribe?.().catch(() => {});
    this.unsubscribe = null;
  }

  private stopLocal(answer: LiveAnswer, reason: NonNullable<LiveAnswer['stopReason']>): Promise<void> {
    if (!answer.end) {
      answer.stopReason ??= reason;
      answer.stop.abort();
    }
    return answer.done;
  }

  /**
   * The record stream of a live answer. With `replay`, what it has so far comes first
   * (reattach); a closed connection only removes its listener.
   */
  private stream(answer: LiveAnswer, replay: boolean): RecordStream {
    let listener: Listener | undefined;
    const records = new RecordStream(() => {
      if (listener) answer.listeners.delete(listener);
    });
    // Whatever waits for the next turn goes out first, so the snapshot below is exact.
    this.flush(answer);
    let head = encodeRecord('stream_start', {
      thread_id: answer.thread.id,
      question_answer_id: answer.message.id,
    });
    if (replay) head += snapshot(answer.message).join('');
    if (answer.end) {
      records.write(encoder.encode(head + answer.end.record));
      records.end();
    } else {
      records.write(encoder.encode(head));
      listener = (bytes, last) => {
        records.write(bytes);
        if (last) records.end();
      };
      answer.listeners.add(listener);
    }
    return records;
  }

  /** An answer no instance generates: what is stored, and how it ended. */
  private storedStream(message: MessageRecord, thread: ThreadMeta): RecordStream {
    const head = encodeRecord('stream_start', { thread_id: thread.id, question_answer_id: message.id });
    const records = new RecordStream(() => {});
    records.write(encoder.encode(head + storedEnd(message, thread, this.options.clock.now()).join('')));
    records.end();
    return records;
  }

  /** Relays an answer another instance generates: its snapshot, then its records as they come. */
  private follow(message: MessageRecord, thread: ThreadMeta, host: string): RecordStream {
    const watchId = randomId('watch');
    let open = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const leave = () => {
      open = false;
      clearTimeout(timer);
      this.watches.delete(watchId);
    };
    const records = new RecordStream(() => {
      if (!open) return;
      leave();
      this.signal({ kind: 'unwatch', answerId: message.id, watchId });
    });
    const send = (text: string) => {
      if (open) records.write(encoder.encode(text));
    };
    const close = () => {
      if (!open) return;
      leave();
      records.end();
    };
    const watch: Watch = {
      answerId: message.id,
      next: -1,
      send,
      close,
      fallBack: () => {
        if (!open) return;
        clearTimeout(timer);
        this.watches.delete(watchId);
        void this.options.storage.conversations.getMessage(message.id).then(
          (found) => {
            send(storedEnd(found?.message ?? message, thread, this.options.clock.now()).join(''));
            close();
          },
          () => close(),
        );
      },
    };
    send(encodeRecord('stream_start', { thread_id: thread.id, question_answer_id: message.id }));
    // A host that never answers (it died after its last heartbeat): the store decides.
    timer = setTimeout(() => watch.next === -1 && watch.fallBack(), WATCH_TIMEOUT_MS);
    this.watches.set(watchId, watch);
    this.signal({ kind: 'watch', answerId: message.id, watchId, host });
    return records;
  }

  private onSignal(signal: Signal): void {
    switch (signal.kind) {
      case 'watch': {
        if (signal.host !== this.instanceId) return;
        const answer = this.live.get(signal.answerId);
        if (!answer || answer.end) return this.signal({ kind: 'gone', watchId: signal.watchId });
        // Flushed first: the snapshot is exactly the records before `flushed`, and every later
        // record goes out in `recs` after it (one publisher, one order).
        this.flush(answer);
        answer.watchers.add(signal.watchId);
        this.signal({
          kind: 'snap',
          watchId: signal.watchId,
          seq: answer.flushed,
          records: snapshot(answer.message).join(''),
        });
        return;
      }
      case 'unwatch':
        this.live.get(signal.answerId)?.watchers.delete(signal.watchId);
        return;
      case 'snap': {
        const watch = this.watches.get(signal.watchId);
        if (!watch || watch.next !== -1) return;
        watch.next = signal.seq;
        watch.send(signal.records);
        return;
      }
      case 'recs':
        for (const watch of this.watches.values()) {
          if (watch.answerId !== signal.answerId || watch.next === -1) continue;
          // A gap (signals were lost): end the stream unfinished; the client reattaches (§9).
          if (signal.first > watch.next) {
            watch.close();
            continue;
          }
          const records = signal.records.split(RECORD_SEPARATOR).slice(0, -1);
          const fresh = records.slice(watch.next - signal.first);
          watch.next = signal.first + records.length;
          if (fresh.length) watch.send(fresh.map((r) => r + RECORD_SEPARATOR).join(''));
          if (signal.last) watch.close();
        }
        return;
      case 'gone':
        this.watches.get(signal.watchId)?.fallBack();
        return;
      case 'cancel': {
        if (signal.host !== this.instanceId && signal.host !== ANY_HOST) return;
        const answer = this.live.get(signal.answerId);
        if (!answer)
          return signal.host === ANY_HOST
            ? undefined
            : this.signal({ kind: 'ended', answerId: signal.answerId });
        answer.announceEnd = true;
        void this.stopLocal(answer, 'cancel');
        return;
      }
      case 'ended':
        for (const done of Array.from(this.cancelWaits.get(signal.answerId) ?? [])) done();
        return;
      case 'lost':
        // Records may be missing: followed streams end unfinished and their clients reattach.
        for (const watch of Array.from(this.watches.values())) watch.close();
    }
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

  /** Queues a record (or, with `text`, a piece of the answer's text) for the next tick. */
  private emit(answer: LiveAnswer, record: string | null, text = ''): void {
    if (record === null) answer.pendingText += text;
    else {
      if (answer.pendingText) this.frameText(answer);
      answer.pending.push(record);
    }
    this.dirty.add(answer);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setTimeout(() => this.flushAll(), TICK_MS);
    }
  }

  private flushAll(): void {
    this.flushScheduled = false;
    for (const answer of this.dirty) this.flush(answer);
    this.dirty.clear();
    this.saveDue();
  }

  private frameText(answer: LiveAnswer): void {
    answer.pending.push(encodeRecord('partial_answer', { text: answer.pendingText }));
    answer.pendingText = '';
  }

  /** Sends what an answer emitted since the last flush: one chunk per listener, one signal for watchers. */
  private flush(answer: LiveAnswer): void {
    if (answer.pendingText) this.frameText(answer);
    if (!answer.pending.length) return;
    const text = answer.pending.length === 1 ? answer.pending[0] : answer.pending.join('');
    const first = answer.flushed;
    answer.flushed += answer.pending.length;
    answer.pending = [];
    const last = answer.end !== null;
    if (answer.listeners.size) {
      const bytes = encoder.encode(text);
      for (const listener of answer.listeners) listener(bytes, last);
    }
    if (last) answer.listeners.clear();
    if (answer.watchers.size)
      this.signal({ kind: 'recs', answerId: answer.message.id, first, last, records: text });
  }

  /** One statement saves every answer due; the next batch waits for it. */
  private saveDue(): void {
    if (this.saving || !this.dueSaves.size) return;
    const batch = [...this.dueSaves];
    this.dueSaves.clear();
    const saves = batch.map(({ message: m }) => ({
      id: m.id,
      content: m.content,
      sources: m.sources,
      activity: m.activity,
      uncertain: m.uncertain,
      updatedAt: this.options.clock.now(),
    }));
    this.saving = this.options.storage.ledger
      .saveAnswers(saves, this.instanceId)
      .then(
        (held) => {
          // Deleted with its thread, or ended by another instance (this one's lease ran out): stop.
          for (const answer of batch)
            if (!held.has(answer.message.id) && !answer.end) void this.stopLocal(answer, 'gone');
        },
        (error) =>
          this.options.log({
            level: 'error',
            msg: 'answer_not_saved',
            error: error instanceof Error ? error.name : typeof error,
          }),
      )
      .finally(() => {
        this.saving = null;
        this.saveDue();
      });
  }

  private async run(answer: LiveAnswer, { input, activity }: StartAnswer): Promise<void> {
    const { storage, clock, agent, log } = this.options;
    const { message } = answer;
    const timer = setTimeout(() => {
      answer.stopReason ??= 'time_limit';
      answer.stop.abort();
    }, this.options.maxAnswerMs);
    /** What the model reported for this run; the message keeps the sum over the answer's runs. */
    let runUsage = null as TokenUsage | null;
    const finish = async (status: StoredStatus, record: string) => {
      const takenOver = encodeRecord('error', { reason: 'This answer is no longer being generated.' }, true);
      clearTimeout(timer);
      message.status = status;
      message.updatedAt = clock.now();
      this.dueSaves.delete(answer);
      // A save in flight lands first, so it cannot overwrite the end.
      await this.saving;
      if (answer.stopReason !== 'gone') {
        try {
          const stored = await storage.ledger.endAnswer({
            id: message.id,
            instanceId: this.instanceId,
            patch: {
              content: message.content,
              sources: message.sources,
              activity: message.activity,
              uncertain: message.uncertain,
              toolCalls: message.toolCalls,
              status,
              updatedAt: message.updatedAt,
              usage: message.usage,
            },
            events: [
              ...(status === 'streaming'
                ? []
                : [{ ...activity, kind: 'message', at: message.updatedAt } satisfies ActivityEvent]),
              ...(runUsage
                ? [{ ...activity, kind: 'usage', at: message.updatedAt, ...runUsage } satisfies ActivityEvent]
                : []),
            ],
          });
          // Taken over (this instance's lease ran out and another ended it): the stored end stands.
          if (!stored && answer.stopReason === null) record = takenOver;
        } catch (error) {
          // The listeners still get the end of the answer.
          log({
            level: 'error',
            msg: 'answer_not_saved',
            error: error instanceof Error ? error.name : typeof error,
          });
        }
      }
      answer.end = { status, record };
      this.emit(answer, record);
      this.dirty.delete(answer);
      this.flush(answer);
      this.live.delete(message.id);
      if (answer.announceEnd) this.signal({ kind: 'ended', answerId: message.id });
    };
    // The first end wins; whatever the loop was doing when it came is dropped.
    let ending: Promise<void> | null = null;
    const end = (status: StoredStatus, record: string) =>
      (ending ??= finish(status, record)
        .catch(() => {})
        .then(answer.ended));
    const stoppedEnd = () =>
      answer.stopReason === 'time_limit'
        ? end('error', encodeRecord('error', { reason: 'The answer took too long and was ended.' }, true))
        : end('stopped', identifiers(answer));

    // Stopped before the agent started (a cancel or a shutdown right after the question).
    if (answer.stop.signal.aborted) {
      await stoppedEnd();
      return;
    }
    const outputs = agent.answer({ ...input, signal: answer.stop.signal })[Symbol.asyncIterator]();
    // A stop ends the answer at once, without waiting for the agent's next output: an agent
    // that ignores its signal must not hold a cancel or a shutdown forever.
    answer.stop.signal.addEventListener(
      'abort',
      () => {
        void stoppedEnd();
        void outputs.return?.()?.catch(() => {});
      },
      { once: true },
    );
    try {
      for (;;) {
        const step = await outputs.next();
        if (ending) return;
        if (step.done) {
          // An agent that ends quietly with nothing to show has failed, whatever it says.
          if (!message.content.trim() && !message.toolCalls.length)
            return await end(
              'error',
              encodeRecord('error', { reason: 'The agent ended without an answer.' }, true),
            );
          return await end('complete', identifiers(answer));
        }
        const out = step.value;
        if (out.type === 'text') {
          message.content += out.text;
          this.emit(answer, null, out.text);
          const now = clock.now();
          if (now - answer.savedAt >= SAVE_EVERY_MS) {
            answer.savedAt = now;
            this.dueSaves.add(answer);
          }
        } else if (out.type === 'sources') {
          message.sources.push(...out.sources);
          this.emit(answer, encodeRecord('relevant_sources', { relevant_sources: out.sources }));
        } else if (out.type === 'activity') {
          const at = message.activity.findIndex((s) => s.id === out.step.id);
          if (at >= 0) message.activity[at] = out.step;
          else message.activity.push(out.step);
          this.emit(answer, encodeRecord('agent_activity_update', out.step));
        } else if (out.type === 'usage') {
          runUsage = {
            promptTokens: (runUsage?.promptTokens ?? 0) + out.promptTokens,
            completionTokens: (runUsage?.completionTokens ?? 0) + out.completionTokens,
          };
          message.usage = {
            promptTokens: (message.usage?.promptTokens ?? 0) + out.promptTokens,
            completionTokens: (message.usage?.completionTokens ?? 0) + out.completionTokens,
          };
        } else if (out.type === 'uncertain') {
          message.uncertain = true;
          this.emit(answer, encodeRecord('metadata', { is_uncertain: true }));
        } else if (out.type === 'tool_calls') {
          const round = input.rounds.length + 1;
          if (round > MAX_TOOL_ROUNDS) {
            return await end(
              'error',
              encodeRecord(
                'error',
                { reason: `The agent asked for more than ${MAX_TOOL_ROUNDS} tool rounds.` },
                true,
              ),
            );
          }
          message.toolCalls.push(...out.calls.map((c) => ({ ...c, round, status: 'pending' as const })));
          void outputs.return?.()?.catch(() => {});
          // Still `streaming`: the answer goes on when the results come (§7).
          return await end('streaming', encodeRecord('tool_calls', { tool_calls: out.calls }, true));
        }
      }
    } catch (error) {
      if (ending) return;
      // An AgentError's reason and hint are the agent's own words; any other error gives its
      // name only, since a model's error message may quote the conversation.
      if (error instanceof AgentError) {
        log({
          level: 'warn',
          msg: 'agent_failed',
          error: error.name,
          code: error.code,
          ...(error.hint && { hint: error.hint }),
        });
        return await end('error', encodeRecord('error', { reason: error.reason }, true));
      }
      log({ level: 'warn', msg: 'agent_failed', error: error instanceof Error ? error.name : typeof error });
      await end('error', encodeRecord('error', { reason: 'The agent could not finish this answer.' }, true));
    }
  }
}

function identifiers(answer: LiveAnswer): string {
  return encodeRecord(
    'identifiers',
    { thread_id: answer.thread.id, question_answer_id: answer.message.id },
    true,
  );
}
