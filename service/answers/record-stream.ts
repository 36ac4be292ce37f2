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

  /** `onCancel`: the reader left before the end (its client disconnected). */
  constructor(private readonly onCancel: () => void) {}

  write(bytes: Uint8Array): void {
    if (this.gone || this.ended) return;
    if (this.sink) this.sink.write(bytes);
    else this.waiting.push(bytes);
  }

  end(): void {
    if (this.gone || this.ended) return;
    this.ended = true;
    this.sink?.end();
  }

  /** Hands what waits, then every later piece, to `sink`. */
  pipe(sink: RecordSink): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const bytes of waiting) sink.write(bytes);
    if (this.ended) sink.end();
    else this.sink = sink;
  }

  /** The reader is gone: nothing more is written, and the source is told once. */
  cancel(): void {
    if (this.gone || this.ended) return;
    this.gone = true;
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
