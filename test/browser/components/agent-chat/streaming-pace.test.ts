import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { SERVICE_BASE } from '../../../msw/reference.js';
import { answerRecords, STREAM_HEADERS } from '../../../msw/stream.js';
import { fixtureChat, lastAnswerText, messagesOf } from '../../../helpers/chat-fixture.js';

const CHAT_URL = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;

/** 16 KB of paragraphs, each naming its number, as 160 deltas of 100 characters. */
const deltas = Array.from(
  { length: 160 },
  (_, i) => `Paragraph ${String(i + 1).padStart(3, '0')} ${'x'.repeat(82)}\n\n`,
);

describe('<agent-chat> publishes a streaming answer less often as it grows (decision 405)', () => {
  test('an answer past 10 KB that is still streaming shows its latest text, and the whole answer once it ends', async ({
    worker,
    backend,
  }) => {
    let release!: () => void;
    const rest = new Promise<void>((resolve) => (release = resolve));
    const records = answerRecords('th_1', deltas);
    worker.use(
      http.post(CHAT_URL, () => {
        const encoder = new TextEncoder();
        let index = 0;
        // Everything but the end record, then the end once the test releases it.
        const stream = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (index === records.length - 1) await rest;
            if (index >= records.length) return controller.close();
            controller.enqueue(encoder.encode(records[index++]));
          },
        });
        return new HttpResponse(stream, { headers: STREAM_HEADERS });
      }),
    );
    const el = await fixtureChat();
    void el.send('Tell me everything');
    // The last delta shows while the answer still streams: publishes go on at the long interval.
    await expect.poll(() => lastAnswerText(el), { timeout: 10_000 }).toContain('Paragraph 160');
    const answer = () => messagesOf(el).find((m) => m.message?.role === 'assistant')!;
    expect(answer().message!.status).toBe('streaming');
    expect(lastAnswerText(el)).toContain('Paragraph 001');
    release();
    await expect.poll(() => answer().message?.status).toBe('complete');
    expect(answer().message!.content).toBe(deltas.join(''));
  });
});
