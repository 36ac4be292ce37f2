import { describe, expect, it, vi } from 'vitest';
import { readChatStream, RecordSplitter, RECORD_SEPARATOR } from '../../../src/api/stream.js';
import type { StreamEvent } from '../../../src/api/types.js';
import { encodeRecord } from '../../../contract/records.js';

// The reference service's encoder: it escapes U+241E inside JSON strings, as a correct service must.
const record = encodeRecord;

const SAMPLE =
  record('stream_start', { thread_id: 'th_1', question_answer_id: 'qa_1' }) +
  record('agent_activity_update', {
    id: 'a1',
    name: 'search_knowledge_base',
    status: 'started',
    summary: null,
    num_results: null,
  }) +
  record('agent_activity_update', { id: 'a2', name: 42 }) +
  record('metadata', { is_uncertain: true }) +
  record('relevant_sources', {
    relevant_sources: [
      { title: 'Guide', subtitle: null, source_url: 'https://d.test/g', source_type: 'doc' },
    ],
  }) +
  record('partial_answer', { text: 'Grüße 👋 ' }) +
  record('mystery', { whatever: 1 }) +
  record('partial_answer', { text: '— “ok” ␞ inside text' }) +
  record('identifiers', { thread_id: 'th_1', question_answer_id: 'qa_1' }, true);

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(chunks: Uint8Array[]): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of readChatStream(streamOf(chunks))) events.push(event);
  return events;
}

const bytes = new TextEncoder().encode(SAMPLE);

/**
 * The idle timers the reader sets (its `check`), counted apart from any other: the unit files
 * share a worker (decision 504), and another file's late work may set a timer of its own while
 * this file's fake clock is installed.
 */
function readerTimers() {
  const set = globalThis.setTimeout;
  const clear = globalThis.clearTimeout;
  const pending = new Set<unknown>();
  let count = 0;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
    if (fn.name !== 'check') return set(fn, ms);
    count += 1;
    const id = set(() => {
      pending.delete(id);
      fn();
    }, ms);
    pending.add(id);
    return id;
  }) as typeof setTimeout);
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((id?: ReturnType<typeof setTimeout>) => {
    pending.delete(id);
    clear(id);
  }) as typeof clearTimeout);
  return { set: () => count, pending: () => pending.size };
}

describe('readChatStream', () => {
  it('yields typed events, drops malformed optional records and ignores unknown record types', async () => {
    expect(await collect([bytes])).toEqual([
      { type: 'start', threadId: 'th_1', questionAnswerId: 'qa_1' },
      {
        type: 'activity',
        activity: {
          id: 'a1',
          name: 'search_knowledge_base',
          status: 'started',
          summary: null,
          numResults: null,
        },
      },
      { type: 'metadata', uncertain: true },
      {
        type: 'sources',
        sources: [{ title: 'Guide', subtitle: null, source_url: 'https://d.test/g', source_type: 'doc' }],
      },
      { type: 'delta', text: 'Grüße 👋 ' },
      { type: 'delta', text: '— “ok” ␞ inside text' },
      { type: 'end', threadId: 'th_1', questionAnswerId: 'qa_1' },
    ]);
  });

  it('gives identical events for every split position of the byte stream', async () => {
    const expected = await collect([bytes]);
    expect(expected.at(-1)?.type).toBe('end');
    for (let cut = 1; cut < bytes.length; cut += 1) {
      expect(await collect([bytes.slice(0, cut), bytes.slice(cut)]), `cut at byte ${cut}`).toEqual(expected);
    }
  });

  it('gives identical events when every byte arrives alone', async () => {
    const single = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect(await collect(single)).toEqual(await collect([bytes]));
  });

  it('reports an interrupted answer when the stream ends without stream_end, keeping the deltas', async () => {
    const text =
      record('stream_start', { thread_id: 't' }) + record('partial_answer', { text: 'Half an ans' });
    const events = await collect([new TextEncoder().encode(text)]);
    expect(events.map((e) => e.type)).toEqual(['start', 'delta', 'interrupted']);
  });

  it('reports an interrupted answer on a record that is not valid JSON', async () => {
    const text =
      record('partial_answer', { text: 'kept' }) +
      '{"chunk": nope' +
      RECORD_SEPARATOR +
      record('partial_answer', { text: 'lost' });
    const events = await collect([new TextEncoder().encode(text)]);
    expect(events).toEqual([
      { type: 'delta', text: 'kept' },
      { type: 'interrupted', reason: 'a stream record was not valid JSON' },
    ]);
  });

  it('reports an interrupted answer when the last record has no separator and is cut short', async () => {
    const text = record('partial_answer', { text: 'a' }) + '{"chunk":{"type":"identif';
    const events = await collect([new TextEncoder().encode(text)]);
    expect(events.at(-1)?.type).toBe('interrupted');
  });

  it('ends on an error record, passing its reason', async () => {
    const text =
      record('partial_answer', { text: 'a' }) + record('error', { reason: 'model overloaded' }, true);
    expect((await collect([new TextEncoder().encode(text)])).at(-1)).toEqual({
      type: 'error',
      reason: 'model overloaded',
    });
  });

  it('accepts a final record without a trailing separator', async () => {
    const text =
      record('partial_answer', { text: 'a' }) +
      record('identifiers', { thread_id: 't', question_answer_id: 'q' }, true).slice(0, -1);
    expect((await collect([new TextEncoder().encode(text)])).at(-1)?.type).toBe('end');
  });

  it('reports a broken connection as interrupted, not as a thrown error', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(record('partial_answer', { text: 'so far' })));
      },
      pull(controller) {
        controller.error(new TypeError('network error'));
      },
    });
    const events: StreamEvent[] = [];
    for await (const event of readChatStream(body)) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['delta', 'interrupted']);
  });

  it('tolerates a stream_start without question_answer_id and ends a tool_calls pause with one terminal event', async () => {
    const text =
      record('stream_start', { thread_id: 't' }) +
      record('tool_calls', { tool_calls: [{ id: 'c1', name: 'open_page', arguments: { url: '/x' } }] }, true);
    expect(await collect([new TextEncoder().encode(text)])).toEqual([
      { type: 'start', threadId: 't' },
      { type: 'tool_calls', calls: [{ id: 'c1', name: 'open_page', arguments: { url: '/x' } }] },
      { type: 'end', threadId: null, questionAnswerId: null },
    ]);
  });

  it('interrupts on a stream_start without thread_id or a partial_answer without text', async () => {
    for (const bad of [record('stream_start', {}), record('partial_answer', { text: 7 })]) {
      expect((await collect([new TextEncoder().encode(bad)])).map((e) => e.type)).toEqual(['interrupted']);
    }
  });

  it('ends the answer as interrupted when a record outgrows the size limit, without waiting for its end', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new TextEncoder().encode(
            record('stream_start', { thread_id: 't' }) + record('partial_answer', { text: 'kept' }),
          ),
        );
      },
      pull(controller) {
        sent += 1;
        controller.enqueue(chunk); // a record with no separator, forever
      },
    });
    const events: StreamEvent[] = [];
    for await (const event of readChatStream(body, undefined, { maxRecordLength: 64 * 1024 }))
      events.push(event);
    expect(events).toEqual([
      { type: 'start', threadId: 't' },
      { type: 'delta', text: 'kept' },
      { type: 'interrupted', reason: 'a stream record exceeded the size limit' },
    ]);
    expect(sent).toBeLessThan(70);
  });

  it('splits a 16 MiB record arriving in 64 KiB chunks in linear time', async () => {
    const splitter = new RecordSplitter(32 * 1024 * 1024);
    const piece = 'y'.repeat(64 * 1024);
    let scanned = 0;
    const original = String.prototype.split;
    // Counts the characters handed to split: linear splitting scans each chunk once.
    String.prototype.split = function (this: string, ...args: Parameters<typeof original>) {
      scanned += this.length;
      return original.apply(this, args);
    } as typeof original;
    try {
      for (let i = 0; i < 256; i += 1) expect(splitter.push(piece)).toEqual([]);
      expect(splitter.push(`z${RECORD_SEPARATOR}`)).toEqual([piece.repeat(256) + 'z']);
    } finally {
      String.prototype.split = original;
    }
    expect(scanned).toBe(256 * piece.length + 2);
  });

  it('counts the idle timeout from the last bytes that arrived, not from the first read', async () => {
    vi.useFakeTimers();
    const timers = readerTimers();
    try {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      const events: StreamEvent[] = [];
      const done = (async () => {
        for await (const event of readChatStream(body, undefined, { idleTimeoutMs: 5_000 }))
          events.push(event);
      })();
      controller.enqueue(new TextEncoder().encode(record('stream_start', { thread_id: 't' })));
      await vi.advanceTimersByTimeAsync(3_000);
      controller.enqueue(new TextEncoder().encode(record('partial_answer', { text: 'late' })));
      // 5 s after the first bytes, but only 2 s after the last: still streaming.
      await vi.advanceTimersByTimeAsync(4_999);
      expect(events.map((e) => e.type)).toEqual(['start', 'delta']);
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(events.at(-1)).toEqual({ type: 'interrupted', reason: 'the stream sent nothing for 5 s' });
      expect(timers.set()).toBeGreaterThan(0);
      expect(timers.pending()).toBe(0);
    } finally {
      vi.restoreAllMocks();
      vi.useRealTimers();
    }
  });

  it('ends a stream that goes silent as interrupted after the idle timeout', async () => {
    vi.useFakeTimers();
    try {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(
            new TextEncoder().encode(
              record('stream_start', { thread_id: 't' }) + record('partial_answer', { text: 'so far' }),
            ),
          );
        },
        pull: () => new Promise(() => {}), // the service stops sending and never closes
      });
      const events: StreamEvent[] = [];
      const done = (async () => {
        for await (const event of readChatStream(body, undefined, { idleTimeoutMs: 5_000 }))
          events.push(event);
      })();
      await vi.advanceTimersByTimeAsync(4_999);
      expect(events.map((e) => e.type)).toEqual(['start', 'delta']);
      await vi.advanceTimersByTimeAsync(1);
      await done;
      expect(events.at(-1)).toEqual({ type: 'interrupted', reason: 'the stream sent nothing for 5 s' });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('keepalive records (decision 586)', () => {
  it('yields nothing for them, and they keep an answer whose model is still thinking from reading as silent', async () => {
    vi.useFakeTimers();
    try {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      const send = (text: string) => controller.enqueue(new TextEncoder().encode(text));
      const events: StreamEvent[] = [];
      const done = (async () => {
        for await (const event of readChatStream(body, undefined, { idleTimeoutMs: 5_000 }))
          events.push(event);
      })();
      send(record('stream_start', { thread_id: 't' }));
      // 20 s of thinking, a keep-alive every 4 s: four times the idle timeout, never 5 s silent.
      for (let i = 0; i < 5; i++) {
        await vi.advanceTimersByTimeAsync(4_000);
        send(record('keepalive', {}));
      }
      send(record('partial_answer', { text: 'Done.' }) + record('identifiers', { thread_id: 't' }, true));
      await done;
      expect(events.map((e) => e.type)).toEqual(['start', 'delta', 'end']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('relevant_sources, version 4', () => {
  it('keeps the section, drops one of the wrong type, and leaves the score to operators', async () => {
    const text =
      record('relevant_sources', {
        relevant_sources: [
          {
            title: 'Guide',
            subtitle: null,
            source_url: 'https://d.test/g#setup',
            source_type: 'documentation',
            section: 'Setup',
            score: 0.032,
          },
          {
            title: 'Old',
            subtitle: null,
            source_url: 'https://d.test/o',
            source_type: 'documentation',
            section: 7,
            score: 'high',
          },
          {
            title: 'Bare',
            subtitle: null,
            source_url: 'https://d.test/b',
            source_type: 'documentation',
            section: null,
            score: null,
          },
        ],
      }) + record('identifiers', { thread_id: 'th_1', question_answer_id: 'qa_1' }, true);
    const [event] = await collect([new TextEncoder().encode(text)]);
    expect(event).toEqual({
      type: 'sources',
      sources: [
        {
          title: 'Guide',
          subtitle: null,
          source_url: 'https://d.test/g#setup',
          source_type: 'documentation',
          section: 'Setup',
        },
        { title: 'Old', subtitle: null, source_url: 'https://d.test/o', source_type: 'documentation' },
        { title: 'Bare', subtitle: null, source_url: 'https://d.test/b', source_type: 'documentation' },
      ],
    });
  });
});
