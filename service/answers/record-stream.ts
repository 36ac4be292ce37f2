import { encodeRecord } from '../../contract/records.js';

/**
 * How long a stream with a reader may stay silent before it sends a `keepalive` record (decision
 * 586): well under the shortest idle timeout of a common proxy or load balancer (30 s; nginx's and
 * an AWS ALB's are 60 s), so a model that thinks before its first token does not get the
 * connection cut.
 */
export const KEEPALIVE_MS = 15_000;

/** A record of a type no client acts on (§4: unknown types are ignored), framed once. */
const KEEPALIVE = new TextEncoder().encode(encodeRecord('keepalive', {}));

/** Where the bytes of a record stream go, in order; `end` once, after the last. */
export interface RecordSink {
  write(bytes: Uint8Array): void;
  end(): void;
}

const DIRECT = new WeakMap<Response, RecordStream>();

/**
 * A streamed answer's bytes, from the moment it is created, for whoever reads it: the Response's
 * web stream (any Fetch host), or a Node host that takes it with `takeRecordStream` and writes
 * each piece straight to its socket. The web stream costs per piece (a queue, a read promise, a
 * chunk handed across) and at creation; at a thousand answers streaming ten pieces a second each,
 * that was a tenth of the service's CPU. Until a reader comes, pieces wait here, so none is lost
 * however late it comes.
 */
export class RecordStream {
  private waiting: Uint8Array[] = [];
  private ended = false;
  private sink: RecordSink | null = null;
  private gone = false;
  /** When the reader last got a piece, and the one timer that checks the silence since. */
  private lastWrite = 0;
  private keepAliveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Whether the reader may still have this stream, and when it was last asked (`guard`). */
  private holds: { ask: () => Promise<boolean>; everyMs: number; now: () => number; askedAt: number } | null =
    null;
  /** Pieces written while `holds` is being asked: they go out once it says yes. */
  private held: Uint8Array[] | null = null;

  /**
   * `onCancel`: the reader left before the end (its client disconnected). `keepAliveMs`: the
   * longest silence a reader gets before a `keepalive` record; 0 sends none.
   */
  constructor(
    private readonly onCancel: () => void,
    private readonly keepAliveMs = 0,
  ) {}

  write(bytes: Uint8Array): void {
    if (this.gone || this.ended) return;
    if (this.held) this.held.push(bytes);
    else if (this.holds && this.holds.now() - this.holds.askedAt >= this.holds.everyMs) this.ask(bytes);
    else this.deliver(bytes);
  }

  private deliver(bytes: Uint8Array): void {
    if (this.sink) {
      this.sink.write(bytes);
      this.lastWrite = Date.now();
    } else this.waiting.push(bytes);
  }

  end(): void {
    if (this.gone || this.ended) return;
    this.ended = true;
    clearTimeout(this.keepAliveTimer);
    if (!this.held) this.sink?.end();
  }

  /**
   * Asks `ask` again at the first piece `everyMs` after the last ask (or after this call), and
   * holds that piece and any after it until it answers: yes sends them on; no ends the reader's
   * stream there, as a dropped connection ends, and tells the source the reader left (decision
   * 684). On the stream itself, not a web stream around its Response: a Node host keeps writing
   * it straight to the socket, and between asks a piece costs one comparison. `ask` must not reject.
   */
  guard(ask: () => Promise<boolean>, everyMs: number, now: () => number): void {
    this.holds = { ask, everyMs, now, askedAt: now() };
  }

  private ask(first: Uint8Array): void {
    const holds = this.holds!;
    holds.askedAt = holds.now();
    this.held = [first];
    void holds.ask().then((yes) => {
      const held = this.held ?? [];
      this.held = null;
      if (this.gone) return;
      if (!yes) return this.shut();
      for (const bytes of held) this.deliver(bytes);
      if (this.ended) this.sink?.end();
    });
  }

  /** The reader may no longer have it: it gets nothing more and its stream ends. */
  private shut(): void {
    const sink = this.sink;
    this.cancel();
    this.gone = true;
    this.sink = null;
    this.waiting = [];
    sink?.end();
  }

  /** Hands what waits, then every later piece, to `sink`. */
  pipe(sink: RecordSink): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const bytes of waiting) sink.write(bytes);
    // An end that came while the guard asks is the ask's to send, after what it holds.
    if (this.ended && !this.held) sink.end();
    else {
      this.sink = sink;
      this.lastWrite = Date.now();
      if (this.keepAliveMs > 0 && !this.ended) this.keepAlive(this.keepAliveMs);
    }
  }

  /**
   * One timer per stream that sleeps for the silence left, not one set and cleared on each of an
   * answer's writes (ten a second): it sends a keep-alive only when nothing else went out.
   */
  private keepAlive(ms: number): void {
    this.keepAliveTimer = setTimeout(() => {
      const left = this.lastWrite + this.keepAliveMs - Date.now();
      if (left <= 0) this.write(KEEPALIVE);
      if (!this.ended && !this.gone) this.keepAlive(left > 0 ? left : this.keepAliveMs);
    }, ms);
    // A stream's timer never holds a process open: the stream ends with its answer or its reader.
    (this.keepAliveTimer as { unref?: () => void }).unref?.();
  }

  /** The reader is gone: nothing more is written, and the source is told once. */
  cancel(): void {
    if (this.gone || this.ended) return;
    this.gone = true;
    clearTimeout(this.keepAliveTimer);
    this.sink = null;
    this.waiting = [];
    this.onCancel();
  }

  response(headers: Record<string, string>): Response {
    let piped = false;
    // highWaterMark 0: pull runs only when someone reads, so a host that takes the direct path
    // (and never reads the web stream) leaves it untouched.
    const body = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          if (piped) return;
          piped = true;
          this.pipe({ write: (bytes) => controller.enqueue(bytes), end: () => controller.close() });
        },
        cancel: () => this.cancel(),
      },
      { highWaterMark: 0 },
    );
    const response = new Response(body, { headers });
    DIRECT.set(response, this);
    return response;
  }
}

/** The record stream behind a Response made by `RecordStream.response`, left for its host to take. */
export const recordStreamOf = (response: Response): RecordStream | undefined => DIRECT.get(response);

/**
 * The record stream behind a Response made by `RecordStream.response`, for a host that writes
 * it directly; undefined for any other Response. Taking it is once: its web stream must then be
 * left unread.
 */
export function takeRecordStream(response: Response): RecordStream | undefined {
  const stream = DIRECT.get(response);
  DIRECT.delete(response);
  return stream;
}
