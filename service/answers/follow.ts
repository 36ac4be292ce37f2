import { RECORD_SEPARATOR, encodeRecord } from '../../contract/records.js';
import type { Clock } from '../kernel/clock.js';
import { randomId } from '../kernel/ids.js';
import type { ConversationStore, MessageRecord, ThreadMeta } from '../storage/types.js';
import type { Signal } from './fleet.js';
import { RecordStream } from './record-stream.js';
import { storedEnd } from './replay.js';

/** How long a reattach waits for the generating instance to start streaming to it, before it asks the store. */
const WATCH_TIMEOUT_MS = 2_000;
/** How long a cancel sent to another instance waits for the answer to be stored as stopped. */
const CANCEL_WAIT_MS = 1_500;

const encoder = new TextEncoder();

/** A stream this instance relays from the instance that generates the answer. */
interface Watch {
  answerId: string;
  /** Index of the next record the client needs; -1 until the host's snapshot came. */
  next: number;
  send(text: string): void;
  close(): void;
  /** Ends the stream from the store (the host no longer generates it, or never answered). */
  fallBack(): void;
  /** Whether records came since the last look (silence is judged between looks). */
  heard: boolean;
}

/**
 * What the store says of a followed answer's host after a silence: `alive`, keep waiting;
 * `over`, the answer ended (its host's death was just recorded, if it was that).
 */
export type HostCheck = (answerId: string) => Promise<'alive' | 'over'>;

/** The signals a follower hears back from the instances it asked. */
export type FollowerSignal = Extract<Signal, { kind: 'snap' | 'recs' | 'gone' | 'ended' | 'lost' }>;

/**
 * What this instance asks of the instances that generate answers: it follows their answers for
 * its own clients (a reattach that reached it), and waits for the cancels it sends them.
 */
export class Following {
  private readonly watches = new Map<string, Watch>();
  private readonly cancelWaits = new Map<string, Set<() => void>>();

  constructor(
    private readonly conversations: ConversationStore,
    private readonly clock: Clock,
    private readonly publish: (signal: Signal) => void,
    /**
     * Asks the store about a host that went silent; how often a silent watch asks; the longest
     * silence of a relayed stream before a keep-alive record (0: none).
     */
    private readonly silence: { check: HostCheck; everyMs: number; keepAliveMs: number },
  ) {}

  /** Relays an answer another instance generates: its snapshot, then its records as they come. */
  follow(message: MessageRecord, thread: ThreadMeta, host: string): RecordStream {
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
      this.publish({ kind: 'unwatch', answerId: message.id, watchId });
    }, this.silence.keepAliveMs);
    const send = (text: string) => {
      if (open) records.write(encoder.encode(text));
    };
    const close = () => {
      if (!open) return;
      leave();
      records.end();
    };
    const fallBack = () => {
      if (!open) return;
      clearTimeout(timer);
      this.watches.delete(watchId);
      void this.conversations.getMessage(message.id).then(
        (found) => {
          send(storedEnd(found?.message ?? message, thread, this.clock.now()).join(''));
          close();
        },
        () => close(),
      );
    };
    const watch: Watch = { answerId: message.id, next: -1, send, close, fallBack, heard: false };
    send(encodeRecord('stream_start', { thread_id: thread.id, question_answer_id: message.id }));
    // A host that goes silent (it may have died after its last heartbeat) is looked up in the
    // store: while its lease runs the watch waits; once the store has the answer's end, so has
    // the stream. The store, not a guess, decides what the visitor is told.
    const look = () => {
      if (!open) return;
      if (watch.heard) {
        watch.heard = false;
        timer = setTimeout(look, this.silence.everyMs);
        return;
      }
      void this.silence.check(message.id).then(
        (state) =>
          state === 'over' ? this.over(watch) : open && (timer = setTimeout(look, this.silence.everyMs)),
        () => open && (timer = setTimeout(look, this.silence.everyMs)),
      );
    };
    timer = setTimeout(look, WATCH_TIMEOUT_MS);
    this.watches.set(watchId, watch);
    this.publish({ kind: 'watch', answerId: message.id, watchId, host });
    return records;
  }

  /** Resolves once the answer's host says it is stored, or after a bound. */
  awaitEnd(answerId: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const waits = this.cancelWaits.get(answerId) ?? new Set();
      const done = () => {
        clearTimeout(timer);
        waits.delete(done);
        if (!waits.size) this.cancelWaits.delete(answerId);
        resolve();
      };
      const timer = setTimeout(done, CANCEL_WAIT_MS);
      waits.add(done);
      this.cancelWaits.set(answerId, waits);
    });
  }

  /**
   * The answer is over in the store while the host said nothing more: a stream that has not
   * started relaying ends from the store; one that has ends unfinished, and its client's
   * reattach (§9) reads the stored end, so no text is sent twice.
   */
  private over(watch: Watch): void {
    if (watch.next === -1) watch.fallBack();
    else watch.close();
  }

  hear(signal: FollowerSignal): void {
    switch (signal.kind) {
      case 'snap': {
        const watch = this.watches.get(signal.watchId);
        if (!watch || watch.next !== -1) return;
        watch.next = signal.seq;
        watch.heard = true;
        watch.send(signal.records);
        return;
      }
      case 'recs':
        for (const watch of this.watches.values())
          if (watch.answerId === signal.answerId && watch.next !== -1) {
            watch.heard = true;
            relay(watch, signal);
          }
        return;
      case 'gone':
        this.watches.get(signal.watchId)?.fallBack();
        return;
      case 'ended':
        for (const done of Array.from(this.cancelWaits.get(signal.answerId) ?? [])) done();
        // Its host's last records went out before this; a watch still open missed them, or the
        // answer was ended for a dead host (the reaper says so): the store has the end.
        for (const watch of Array.from(this.watches.values()))
          if (watch.answerId === signal.answerId) this.over(watch);
        return;
      case 'lost':
        // Records may be missing: followed streams end unfinished and their clients reattach.
        this.closeAll();
    }
  }

  /** Every followed stream ends (shutdown, or lost signals). */
  closeAll(): void {
    // A copy: closing a watch removes it from the map.
    for (const watch of Array.from(this.watches.values())) watch.close();
  }
}

/** The records of a `recs` signal the watch has not sent yet. */
function relay(watch: Watch, signal: Extract<Signal, { kind: 'recs' }>): void {
  // A gap (signals were lost): end the stream unfinished; the client reattaches (§9).
  if (signal.first > watch.next) {
    watch.close();
    return;
  }
  const records = signal.records.split(RECORD_SEPARATOR).slice(0, -1);
  const fresh = records.slice(watch.next - signal.first);
  watch.next = signal.first + records.length;
  if (fresh.length) watch.send(fresh.map((r) => r + RECORD_SEPARATOR).join(''));
  if (signal.last) watch.close();
}
