import { describe, expect, it } from 'vitest';
import { fixture, html } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import '../../../../src/define.js';
import type { ApiClient } from '../../../../src/api/api-client.js';
import { readChatStream } from '../../../../src/api/stream.js';
import { Conversation } from '../../../../src/chat/conversation.js';
import type { ChatMessage } from '../../../../src/chat/types.js';
import type { AgentChatMessage } from '../../../../src/components/message/message.js';
import { test } from '../../../msw/test.js';
import { SERVICE_BASE } from '../../../msw/reference.js';
import { STREAM_HEADERS, encodeRecord } from '../../../msw/stream.js';
import { fixtureChat, lastAnswerText, messagesOf, settled } from '../../../helpers/chat-fixture.js';

/** A realistic answer: a heading, inline marks, a list with bold, a code fence and a table. */
const ANSWER = `### Theming the widget

The \`<agent-chat>\` element reads **design tokens** from the page, so a theme needs _no build step_. See the [reference](https://docs.example.com/theming).

1. Set \`--agent-chat-color-accent\` on the element.
2. Pick **light**, **dark** or **auto** with \`theme\`.
3. Check the contrast with the *reduced motion* setting on.

\`\`\`css
agent-chat {
  --agent-chat-color-accent: #0b57d0;
  --agent-chat-radius: 16px;
}
\`\`\`

| Token | Default | Used for |
|---|---|---|
| accent | #1d4ed8 | **buttons** |
| radius | 12px | panels |

That is all: reload and the new colours show.`;

/** The answer as a model streams it: deltas of a few words, cut anywhere. */
function deltasOf(text: string, size = 14): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

const DELTAS = deltasOf(ANSWER);
const QA = 'qa_exact';
const START = encodeRecord('stream_start', { thread_id: 'th_exact', question_answer_id: QA });
const RECORDS = [START, ...DELTAS.map((text) => encodeRecord('partial_answer', { text }))];
const END = encodeRecord('identifiers', { thread_id: 'th_exact', question_answer_id: QA }, true);
const encoder = new TextEncoder();
const BYTES = RECORDS.map((r) => encoder.encode(r));

/** Byte offsets to drop the connection at: after every record, and in the middle of every record. */
function dropPoints(): { at: number; label: string }[] {
  const points: { at: number; label: string }[] = [];
  let offset = 0;
  BYTES.forEach((bytes, i) => {
    points.push({ at: offset + Math.floor(bytes.length / 2), label: `in the middle of record ${i}` });
    offset += bytes.length;
    points.push({ at: offset, label: `after record ${i}` });
  });
  return points;
}

/**
 * The first connection: the records up to `at` bytes (a record per chunk), then a reset, once
 * `received` resolves. Through msw's service worker the reset discards whatever the page has not
 * read yet (a stream's error empties its queue): a page slow to read, as on a loaded machine,
 * got none of the records and saw a question that never started, so over msw the reset waits
 * until the page has them.
 */
function droppedBody(at: number, received: () => Promise<void> = async () => {}): ReadableStream<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let left = at;
  for (const bytes of BYTES) {
    if (left <= 0) break;
    chunks.push(bytes.slice(0, Math.min(left, bytes.length)));
    left -= bytes.length;
  }
  return new ReadableStream({
    async pull(controller) {
      const next = chunks.shift();
      if (next) return controller.enqueue(next);
      await received();
      controller.error(new TypeError('network error'));
    },
  });
}

/**
 * §9's replay: stream_start, one partial_answer with the whole text so far (the service went on
 * generating: two deltas past what was sent before the drop), then the live rest and the end.
 */
function replayBody(at: number): ReadableStream<Uint8Array> {
  let sent = 0;
  let offset = 0;
  for (const bytes of BYTES) {
    if (offset + bytes.length > at) break;
    offset += bytes.length;
    sent += 1;
  }
  const soFar = Math.min(DELTAS.length, Math.max(0, sent - 1) + 2);
  const records = [
    START,
    encodeRecord('partial_answer', { text: DELTAS.slice(0, soFar).join('') }),
    ...DELTAS.slice(soFar).map((text) => encodeRecord('partial_answer', { text })),
    END,
  ];
  return new ReadableStream({
    pull(controller) {
      const next = records.shift();
      if (next) controller.enqueue(encoder.encode(next));
      else controller.close();
    },
  });
}

function api(at: number): ApiClient {
  return {
    chat: (_request, options) => readChatStream(droppedBody(at), options?.signal),
    reattach: (_id, options) => readChatStream(replayBody(at), options?.signal),
    listThreads: async () => ({ threads: [], next_cursor: null }),
    getThread: async () => {
      throw new Error('unused');
    },
    deleteThread: async () => {},
    cancelAnswer: async () => {},
    renameThread: async () => {
      throw new Error('unused');
    },
    sendFeedback: async () => {},
    reportHandoff: async () => {},
    uploadFile: async () => {
      throw new Error('unused');
    },
    fileBlob: async () => {
      throw new Error('unused');
    },
  };
}

/** Resolves once `condition` holds, however long the page takes: the test's timeout is the ceiling. */
async function shown(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The rendered text of a message, without Lit's marker comments. */
const contentOf = (el: AgentChatMessage) =>
  el.shadowRoot!.querySelector('.content')!.innerHTML.replace(/<!--[^]*?-->/g, '');

describe('reattach after a drop anywhere (§9)', () => {
  it('ends with the DOM of a whole render, no interrupted mark, and an answer-end that agrees, for a drop at every record boundary and in the middle of every record', async () => {
    const whole = await fixture<AgentChatMessage>(
      html`<agent-chat-message .message=${{ id: 'w', role: 'assistant', content: ANSWER, sources: [], status: 'complete', questionAnswerId: QA } satisfies ChatMessage}></agent-chat-message>`,
    );
    const expected = contentOf(whole);
    expect(expected).toContain('<li>');
    const points = dropPoints();
    expect(points.length).toBeGreaterThan(2 * DELTAS.length);
    for (const { at, label } of points) {
      if (at < BYTES[0].length) continue; // before stream_start: see the next test
      const el = await fixture<AgentChatMessage>(html`<agent-chat-message></agent-chat-message>`);
      const ends: { outcome: string; text: string }[] = [];
      const seen: string[] = [];
      const conversation = new Conversation(
        () => api(at),
        {
          onChange: (snapshot) => {
            const answer = snapshot.messages.at(-1);
            if (answer?.role !== 'assistant') return;
            el.message = answer;
            seen.push(answer.status);
          },
          onAnswerEnd: ({ outcome, text }) => ends.push({ outcome, text }),
        },
        { reattachDelay: () => 0 },
      );
      await conversation.send('How do I theme it?');
      await el.updateComplete;
      const answer = conversation.snapshot.messages.at(-1)!;
      expect(answer.status, label).toBe('complete');
      expect(answer.content, label).toBe(ANSWER);
      expect(contentOf(el), label).toBe(expected);
      // The interrupted mark went with the completed answer; the event says what the screen says.
      expect(el.shadowRoot!.querySelector('[part="error"], [part="meta"]'), label).toBeNull();
      expect(ends, label).toEqual([{ outcome: 'complete', text: ANSWER }]);
      // The drop showed (the answer was interrupted, then reattached, never asked again).
      expect(seen, label).toContain('interrupted');
      el.remove();
    }
  });

  it('a drop before stream_start is complete fails the question, kept for Retry (there is no answer to reattach to)', async () => {
    const conversation = new Conversation(
      () => api(Math.floor(BYTES[0].length / 2)),
      { onChange: () => {} },
      { reattachDelay: () => 0 },
    );
    await conversation.send('How do I theme it?');
    expect(conversation.snapshot.messages.map((m) => [m.role, m.status, m.content])).toEqual([
      ['user', 'failed', 'How do I theme it?'],
    ]);
  });
});

describe('<agent-chat> reattach after a drop in the middle of a record', () => {
  test('the public events agree with the screen: one complete answer-end, the text of a whole render, no interrupted mark', async ({
    worker,
    backend,
  }) => {
    const AGENT = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent`;
    const list = DELTAS.length >> 1;
    const at = BYTES.slice(0, list).reduce((n, b) => n + b.length, 0) + 9;
    // The page has read the whole records before the drop: their text is the answer's.
    const before = DELTAS.slice(0, list - 1).join('');
    const received = () => shown(() => messagesOf(el).at(-1)?.message?.content === before);
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () => new HttpResponse(droppedBody(at, received), { headers: STREAM_HEADERS }),
      ),
      http.get(
        `${AGENT}/answers/${QA}/stream/`,
        () => new HttpResponse(replayBody(at), { headers: STREAM_HEADERS }),
      ),
    );
    const el = await fixtureChat();
    const events: string[] = [];
    el.addEventListener('agent-chat-answer-end', (e) => events.push(`end:${e.detail.outcome}`));
    el.addEventListener('agent-chat-error', (e) => events.push(`error:${e.detail.code}`));
    await el.send('How do I theme it?');
    await settled(el);
    expect(events).toEqual(['end:complete']);
    const whole = await fixture<AgentChatMessage>(
      html`<agent-chat-message .message=${{ id: 'w', role: 'assistant', content: ANSWER, sources: [], status: 'complete', questionAnswerId: QA } satisfies ChatMessage}></agent-chat-message>`,
    );
    const answer = messagesOf(el).at(-1)!;
    expect(contentOf(answer)).toBe(contentOf(whole));
    expect(lastAnswerText(el)).toContain('That is all');
    expect(answer.shadowRoot!.querySelector('[part="error"]')).toBeNull();
    expect(answer.shadowRoot!.querySelectorAll('li')).toHaveLength(3);
  });
});

/** A 3-item list in 16 deltas, as a model paces it. */
const LIST_ANSWER = `To theme it:

1. Set **--agent-chat-color-accent** on the element.
2. Pick *light*, *dark* or **auto** with \`theme\`.
3. Reload: the new colours show at once.

That is all.`;
const LIST_DELTAS = (() => {
  const size = Math.ceil(LIST_ANSWER.length / 16);
  return Array.from({ length: 16 }, (_, i) => LIST_ANSWER.slice(i * size, (i + 1) * size));
})();

/**
 * A service that follows §9 to the letter, on a clock: the answer gains a delta every 150 ms from
 * the question on; the first connection resets in the middle of the 7th delta's record; the
 * reattach sends stream_start, the sources, one partial_answer with all the text so far, then
 * the live deltas as they come, then the end.
 */
function pacedService(worker: { use: (...handlers: ReturnType<typeof http.get>[]) => void }) {
  const AGENT = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent`;
  const PACE = 150;
  const qa = 'qa_paced';
  const start = encodeRecord('stream_start', { thread_id: 'th_paced', question_answer_id: qa });
  const sources = encodeRecord('relevant_sources', {
    relevant_sources: [
      { title: 'Theming', subtitle: null, source_url: 'https://docs.example.com/t', source_type: 'docs' },
    ],
  });
  const end = encodeRecord('identifiers', { thread_id: 'th_paced', question_answer_id: qa }, true);
  let began = 0;
  const available = () => Math.min(LIST_DELTAS.length, Math.floor((performance.now() - began) / PACE));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const body = (produce: (send: (record: string) => void) => Promise<void>) =>
    new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          await produce((record) => controller.enqueue(encoder.encode(record)));
          controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
    });
  worker.use(
    http.post(`${AGENT}/chat/`, () => {
      began = performance.now();
      return new HttpResponse(
        body(async (send) => {
          send(start);
          send(sources);
          for (let i = 0; i < 7; i += 1) {
            await sleep(Math.max(0, began + (i + 1) * PACE - performance.now()));
            const record = encodeRecord('partial_answer', { text: LIST_DELTAS[i] });
            if (i < 6) send(record);
            else {
              send(record.slice(0, record.length >> 1));
              throw new TypeError('connection reset');
            }
          }
        }),
        { headers: STREAM_HEADERS },
      );
    }),
    http.get(
      `${AGENT}/answers/${qa}/stream/`,
      () =>
        new HttpResponse(
          body(async (send) => {
            send(start);
            send(sources);
            let sent = available();
            send(encodeRecord('partial_answer', { text: LIST_DELTAS.slice(0, sent).join('') }));
            while (sent < LIST_DELTAS.length) {
              await sleep(Math.max(0, began + (sent + 1) * PACE - performance.now()));
              send(encodeRecord('partial_answer', { text: LIST_DELTAS[sent] }));
              sent += 1;
            }
            send(end);
          }),
          { headers: STREAM_HEADERS },
        ),
    ),
  );
}

describe('<agent-chat> reattach to a service that follows §9 exactly, a delta every 150 ms', () => {
  test('a drop in the middle of the 7th delta: the reattach replaces the text, three items stay three, at every moment', async ({
    worker,
    backend,
  }) => {
    void backend;
    pacedService(worker);
    const el = await fixtureChat();
    const most = { items: 0, sources: 0 };
    const observe = () => {
      const answer = messagesOf(el).at(-1);
      if (answer?.message?.role !== 'assistant') return;
      most.items = Math.max(most.items, answer.shadowRoot!.querySelectorAll('.content li').length);
      most.sources = Math.max(most.sources, answer.message.sources.length);
    };
    const watching = setInterval(observe, 10);
    const seen: string[] = [];
    el.addEventListener('agent-chat-answer-end', (e) => seen.push(e.detail.outcome));
    try {
      await el.send('How do I theme it?');
      await expect.poll(() => seen, { timeout: 8000 }).toEqual(['complete']);
      await settled(el);
      observe();
    } finally {
      clearInterval(watching);
    }
    const answer = messagesOf(el).at(-1)!;
    expect(answer.message?.content).toBe(LIST_ANSWER);
    expect(answer.shadowRoot!.querySelectorAll('.content li')).toHaveLength(3);
    expect(most).toEqual({ items: 3, sources: 1 });
    const whole = await fixture<AgentChatMessage>(
      html`<agent-chat-message .message=${{ id: 'w', role: 'assistant', content: LIST_ANSWER, sources: [], status: 'complete' } satisfies ChatMessage}></agent-chat-message>`,
    );
    expect(contentOf(answer)).toBe(contentOf(whole));
  });
});
