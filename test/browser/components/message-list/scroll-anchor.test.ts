import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import type { SetupWorker } from 'msw/browser';
import { test } from '../../../msw/test.js';
import { SERVICE_BASE } from '../../../msw/reference.js';
import { encodeRecord, STREAM_HEADERS } from '../../../msw/stream.js';
import { fixtureChat, settled } from '../../../helpers/chat-fixture.js';

const CHAT_URL = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;
const PARAGRAPH = 'A paragraph long enough to take a few lines in the panel, so the answer grows tall. ';

/**
 * A chat answered by a stream the test drives: `push` appends text, `end` closes the answer.
 * `opening` records follow stream_start (sources, steps).
 */
async function chatWithControlledAnswer(
  worker: SetupWorker,
  opening: Array<[string, Record<string, unknown>]> = [],
) {
  let push!: (text: string) => void;
  let end!: () => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const encoder = new TextEncoder();
      push = (text) => controller.enqueue(encoder.encode(encodeRecord('partial_answer', { text })));
      end = () => {
        controller.enqueue(
          encoder.encode(encodeRecord('identifiers', { thread_id: 'th_1', question_answer_id: 'qa' }, true)),
        );
        controller.close();
      };
      controller.enqueue(
        encoder.encode(encodeRecord('stream_start', { thread_id: 'th_1', question_answer_id: 'qa' })),
      );
      for (const [type, content] of opening) controller.enqueue(encoder.encode(encodeRecord(type, content)));
    },
  });
  // Before the reference backend (the test names it), which answers the rest.
  worker.use(http.post(CHAT_URL, () => new HttpResponse(body, { headers: STREAM_HEADERS })));
  const el = await fixtureChat();
  el.style.setProperty('--agent-chat-panel-height', '420px');
  const list = el.shadowRoot!.querySelector('agent-chat-message-list')!;
  const scroller = () => list.shadowRoot!.querySelector<HTMLElement>('.scroller')!;
  const jump = () =>
    Array.from(list.shadowRoot!.querySelectorAll('button')).find((b) => b.textContent === 'Jump to latest');
  const atBottom = () => scroller().scrollHeight - scroller().scrollTop - scroller().clientHeight < 2;
  const started = new Promise((resolve) =>
    el.addEventListener('agent-chat-answer-start', resolve, { once: true }),
  );
  const sending = el.send('tell me a lot');
  await started;
  /** The question stays at the top of the view (decision 787) until the reader follows the answer. */
  const follow = async () => {
    await expect.poll(jump).toBeDefined();
    jump()!.click();
    await settled(el);
  };
  return { el, push, end, sending, scroller, jump, atBottom, follow };
}

describe('<agent-chat-message-list> scrolling', () => {
  test('follows a growing answer at the bottom once the reader took Jump to latest, and stays put when the reader scrolled up', async ({
    worker,
    backend,
  }) => {
    const { el, push, end, sending, scroller, jump, atBottom, follow } =
      await chatWithControlledAnswer(worker);
    for (let i = 0; i < 12; i += 1) push(`${PARAGRAPH.repeat(3)}\n\n`);
    await expect.poll(() => scroller().scrollHeight > scroller().clientHeight * 2).toBe(true);
    await follow();
    await expect.poll(atBottom).toBe(true);
    expect(jump()).toBeUndefined();

    scroller().scrollTop = 0;
    scroller().dispatchEvent(new Event('scroll'));
    await settled(el);
    for (let i = 0; i < 6; i += 1) push(`${PARAGRAPH.repeat(3)}\n\n`);
    await expect.poll(() => jump()).toBeDefined();
    expect(scroller().scrollTop).toBe(0);

    jump()!.click();
    await settled(el);
    expect(atBottom()).toBe(true);
    expect(jump()).toBeUndefined();
    end();
    await sending;
  });

  test('keeps a pinned reader at the end when the answer ends: its actions appear under it and a bar below the list', async ({
    worker,
    backend,
  }) => {
    // The steps line above the text changes as steps arrive; at the end the action row appears
    // under the answer and "Talk to a person" (handoff="always") above the composer.
    const steps: Array<[string, Record<string, unknown>]> = [
      'search_knowledge_base',
      'read_pages',
      'rank_results',
    ].map((name, i) => [
      'agent_activity_update',
      { id: `s${i}`, name, status: 'completed', summary: `${name} done`, num_results: 3 },
    ]);
    const { el, push, end, sending, scroller, jump, atBottom, follow } = await chatWithControlledAnswer(
      worker,
      [
        [
          'relevant_sources',
          {
            relevant_sources: [
              {
                title: 'Theming',
                subtitle: null,
                source_url: 'https://docs.example/theming',
                source_type: 'doc',
              },
            ],
          },
        ],
        ...steps,
      ],
    );
    el.handoff = 'always';
    for (let i = 0; i < 3; i += 1) push(`${PARAGRAPH.repeat(2)}\n\n`);
    await expect.poll(() => scroller().scrollHeight > scroller().clientHeight).toBe(true);
    await follow();
    await expect.poll(atBottom).toBe(true);
    const before = scroller().clientHeight;
    const content = scroller().scrollHeight;
    end();
    await sending;
    // "Talk to a person" now sits under the list, so the list itself got shorter, and the
    // answer's actions made its content taller.
    await expect.poll(() => scroller().clientHeight).toBeLessThan(before);
    await expect.poll(() => scroller().scrollHeight).toBeGreaterThan(content);
    await settled(el);
    await expect.poll(atBottom).toBe(true);
    expect(jump()).toBeUndefined();
  });
  test('keeps the latest in view when the panel gets shorter (a phone keyboard opening), and not when the reader scrolled up', async ({
    worker,
    backend,
  }) => {
    const { el, push, end, sending, scroller, atBottom, follow } = await chatWithControlledAnswer(worker);
    for (let i = 0; i < 8; i += 1) push(`${PARAGRAPH.repeat(3)}\n\n`);
    end();
    await sending;
    await follow();
    await expect.poll(atBottom).toBe(true);
    // The answer's actions and the bar below it are in place: nothing grows from here on.
    const height = () => scroller().scrollHeight;
    let before = -1;
    await expect
      .poll(async () => {
        const now = height();
        await new Promise(requestAnimationFrame);
        const still = now === before && height() === now;
        before = now;
        return still;
      })
      .toBe(true);

    // The visible viewport shrinks: the panel with it, the content stays as it was.
    el.style.setProperty('--agent-chat-panel-height', '240px');
    await expect.poll(() => scroller().clientHeight < 200).toBe(true);
    await expect.poll(atBottom).toBe(true);

    // Someone who scrolled up to reread stays where they were.
    scroller().scrollTop = 0;
    scroller().dispatchEvent(new Event('scroll'));
    await settled(el);
    el.style.setProperty('--agent-chat-panel-height', '420px');
    await expect.poll(() => scroller().clientHeight > 200).toBe(true);
    el.style.setProperty('--agent-chat-panel-height', '300px');
    await settled(el);
    expect(scroller().scrollTop).toBe(0);
  });
  test('keeps the latest in view when the phone turns: the text reflows wider, then the panel gets shorter', async ({
    worker,
    backend,
  }) => {
    const { el, push, end, sending, scroller, jump, atBottom, follow } =
      await chatWithControlledAnswer(worker);
    el.style.display = 'block';
    el.style.width = '390px';
    el.style.setProperty('--agent-chat-panel-height', '700px');
    for (let i = 0; i < 12; i += 1) push(`${PARAGRAPH.repeat(3)}\n\n`);
    await expect.poll(() => scroller().scrollHeight > scroller().clientHeight * 2).toBe(true);
    await follow();
    await expect.poll(atBottom).toBe(true);

    // A phone turned to landscape, as the browser does it: the page is wider at once (the
    // answer reflows shorter, and a layout in between clamps scrollTop, which fires a scroll
    // event), and the panel's height follows with the visual viewport's resize a moment later.
    el.style.width = '844px';
    void scroller().scrollTop;
    el.style.setProperty('--agent-chat-panel-height', '300px');
    await settled(el);
    await expect.poll(atBottom).toBe(true);
    expect(jump()).toBeUndefined();
    end();
    await sending;
  });
});
