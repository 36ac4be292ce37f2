import { encodeRecord } from '../../contract/records.js';
import type { Signal } from './fleet.js';
import type { Listener, LiveAnswer } from './live-answer.js';
import { RecordStream } from './record-stream.js';
import { snapshot } from './replay.js';

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

/**
 * Sends what live answers emit to the streams attached to them on this instance and, as `recs`
 * signals, to the instances that follow them: coalesced per tick, in one order for everyone.
 */
export class FanOut {
  private readonly dirty = new Set<LiveAnswer>();
  private scheduled = false;

  constructor(
    private readonly publish: (signal: Signal) => void,
    /** Runs after every tick's flush (the batched saves ride on the same tick). */
    private readonly afterTick: () => void,
    /** The longest silence of an attached stream before a keep-alive record (0: none). */
    private readonly keepAliveMs = 0,
  ) {}

  /**
   * A stream of a live answer. With `replay`, what it has so far comes first (reattach); a
   * closed connection only removes its listener.
   */
  attach(answer: LiveAnswer, replay: boolean): RecordStream {
    let listener: Listener | undefined;
    const records = new RecordStream(() => {
      if (listener) answer.listeners.delete(listener);
    }, this.keepAliveMs);
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

  /** Queues a record (or, with `text`, a piece of the answer's text) for the next tick. */
  emit(answer: LiveAnswer, record: string | null, text = ''): void {
    if (record === null) answer.pendingText += text;
    else {
      if (answer.pendingText) frameText(answer);
      answer.pending.push(record);
    }
    this.dirty.add(answer);
    if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(() => this.tick(), TICK_MS);
    }
  }

  /** The last record goes out at once, with whatever waited before it. */
  emitLast(answer: LiveAnswer, record: string): void {
    this.emit(answer, record);
    this.dirty.delete(answer);
    this.flush(answer);
  }

  /** Sends what an answer emitted since the last flush: one chunk per listener, one signal for watchers. */
  flush(answer: LiveAnswer): void {
    if (answer.pendingText) frameText(answer);
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
      this.publish({ kind: 'recs', answerId: answer.message.id, first, last, records: text });
  }

  private tick(): void {
    this.scheduled = false;
    for (const answer of this.dirty) this.flush(answer);
    this.dirty.clear();
    this.afterTick();
  }
}

function frameText(answer: LiveAnswer): void {
  answer.pending.push(encodeRecord('partial_answer', { text: answer.pendingText }));
  answer.pendingText = '';
}
