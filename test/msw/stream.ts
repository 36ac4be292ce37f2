import { encodeRecord } from '../../contract/records.js';

export { encodeRecord };

/**
 * Builds chat stream bodies the way the wire contract (§4) frames them, with control over
 * chunking and pacing so streaming tests are deterministic.
 */

export function answerRecords(
  threadId: string,
  deltas: string[],
  options: { end?: 'ok' | 'error' | 'none' } = {},
): string[] {
  const records = [
    encodeRecord('stream_start', { thread_id: threadId }),
    ...deltas.map((text) => encodeRecord('partial_answer', { text })),
  ];
  if (options.end === 'error') records.push(encodeRecord('error', { reason: 'The agent failed.' }, true));
  else if (options.end !== 'none')
    records.push(
      encodeRecord('identifiers', { thread_id: threadId, question_answer_id: `qa_${threadId}` }, true),
    );
  return records;
}

/**
 * A body that sends `parts` one by one. With `holdAfter` set it stops after that many parts
 * and stays open, as a slow model would, until the client goes away.
 */
export function streamBody(
  parts: string[],
  options: { holdAfter?: number } = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (options.holdAfter !== undefined && index >= options.holdAfter) return new Promise<void>(() => {});
      if (index >= parts.length) return controller.close();
      controller.enqueue(encoder.encode(parts[index++]));
    },
  });
}

export const STREAM_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8' };

/** Names a response of cutAfter's, for the page's fetch (`pageSideDrops`); `cut`: those it cut. */
const CUT = 'X-Test-Network-Drop';
const cut = new Set<string>();

/**
 * `response` as it arrives until its network drops after `chunks` chunks (the stream errors; the
 * service behind it keeps generating). `dropped` runs first, to take the rest of the network with
 * it. The service writes once per 100 ms tick, so four chunks are a few words into an answer.
 *
 * The body msw hands on ends normally after those chunks, and the page's fetch errors it there.
 * Errored here, it would reach the page through msw's service worker, which drops what it still
 * holds at an error: the page got any part of the chunks, at times none, not even the record
 * that names the answer to reattach to.
 */
export function cutAfter(response: Response, chunks: number, dropped: () => void = () => {}): Response {
  const reader = response.body!.getReader();
  let read = 0;
  const id = crypto.randomUUID();
  const headers = new Headers(response.headers);
  headers.set(CUT, id);
  return new Response(
    new ReadableStream({
      async pull(controller) {
        if (read++ === chunks) {
          dropped();
          cut.add(id);
          return controller.close();
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
    }),
    { status: response.status, headers },
  );
}

/**
 * The page's side of cutAfter: a cut response's body, as the page's fetch reads it, errors with
 * a network error where msw's body ended, after every byte before it. A read-ahead of none: the
 * error is made only once the reader asks past the last chunk, so no chunk is dropped with it.
 * Returns the page's own fetch back.
 */
export function pageSideDrops(): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    const id = response.headers.get(CUT);
    if (!id || !response.body) return response;
    const reader = response.body.getReader();
    const headers = new Headers(response.headers);
    headers.delete(CUT);
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (!done) controller.enqueue(value);
          else if (cut.delete(id)) controller.error(new TypeError('network error'));
          else controller.close();
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
  return () => {
    globalThis.fetch = original;
  };
}
