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

/**
 * `response` as it arrives until its network drops after `chunks` chunks (the stream errors; the
 * service behind it keeps generating). `dropped` runs first, to take the rest of the network with
 * it. The service writes once per 100 ms tick, so four chunks are a few words into an answer.
 */
export function cutAfter(response: Response, chunks: number, dropped: () => void = () => {}): Response {
  const reader = response.body!.getReader();
  let read = 0;
  return new Response(
    new ReadableStream({
      async pull(controller) {
        if (read++ === chunks) {
          dropped();
          return controller.error(new TypeError('network error'));
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
    }),
    { status: response.status, headers: response.headers },
  );
}
