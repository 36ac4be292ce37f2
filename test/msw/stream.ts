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
