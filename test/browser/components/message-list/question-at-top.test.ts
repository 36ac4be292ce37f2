import { describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { http, HttpResponse } from 'msw';
import type { SetupWorker } from 'msw/browser';
import { test } from '../../../msw/test.js';
import { SERVICE_BASE } from '../../../msw/reference.js';
import { encodeRecord, STREAM_HEADERS } from '../../../msw/stream.js';
import { deepActiveElement, fixtureChat, settled, textareaOf } from '../../../helpers/chat-fixture.js';

const CHAT_URL = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;
const PARAGRAPH = 'A paragraph long enough to take a few lines in the panel, so the answer grows tall. ';

interface Answer {
  push: (text: string) => void;
  end: () => void;
}

/** Every question is answered by a stream the test drives, in the order they were asked. */
function controlledAnswers(worker: SetupWorker): Answer[] {
  const answers: Answer[] = [];
  worker.use(
    http.post(CHAT_URL, () => {
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          const send = (type: string, content: Record<string, unknown>, last = false) =>
            controller.enqueue(encoder.encode(encodeRecord(type, content, last)));
          answers.push({
            push: (text) => send('partial_answer', { text }),
            end: () => {
              send('identifiers', { thread_id: 'th_1', question_answer_id: `qa${answers.length}` }, true);
              controller.close();
            },
          });
          send('stream_start', { thread_id: 'th_1', question_answer_id: `qa${answers.length}` });
        },
      });
      return new HttpResponse(body, { headers: STREAM_HEADERS });
    }),
  );
  return answers;
}

async function chat(worker: SetupWorker, height = '420px', width?: string) {
  const answers = controlledAnswers(worker);
  const el = await fixtureChat();
  if (width) {
    el.style.display = 'block';
    el.style.width = width;
  }
  el.style.setProperty('--agent-chat-panel-height', height);
  const list = el.shadowRoot!.querySelector('agent-chat-message-list')!;
  const scroller = () => list.shadowRoot!.querySelector<HTMLElement>('.scroller')!;
  const jump = page.getByRole('button', { name: 'Jump to latest' });
  const questions = () => page.getByRole('article', { name: 'You' }).elements();
  /** Where the latest question's top is, from the top of the view. */
  const questionTop = () =>
    questions().at(-1)!.getBoundingClientRect().top - scroller().getBoundingClientRect().top;
  const atBottom = () => scroller().scrollHeight - scroller().scrollTop - scroller().clientHeight < 2;
  /** Asks as a visitor does: types in the message box and presses Enter. */
  const ask = async (text: string) => {
    const asked = answers.length;
    await userEvent.click(page.getByRole('textbox', { name: 'Message' }));
    await userEvent.keyboard(`${text}{Enter}`);
    await expect.poll(() => answers.length).toBe(asked + 1);
    await settled(el);
    return answers[asked];
  };
  return { el, scroller, jump, questions, questionTop, atBottom, ask };
}

/** Waits until the content stops growing (the answer's actions are in place). */
async function still(scroller: () => HTMLElement) {
  let before = -1;
  await expect
    .poll(async () => {
      const now = scroller().scrollHeight;
      await new Promise(requestAnimationFrame);
      const same = now === before && scroller().scrollHeight === now;
      before = now;
      return same;
    })
    .toBe(true);
}

describe('<agent-chat-message-list> a question sent goes to the top of the view', () => {
  test('the answer streams below it without moving the view, Jump to latest appears when it runs past, and the message box keeps the focus', async ({
    worker,
    backend,
  }) => {
    const { el, scroller, jump, questionTop, atBottom, ask } = await chat(worker);
    const first = await ask('tell me a lot');
    for (let i = 0; i < 8; i += 1) first.push(`${PARAGRAPH.repeat(3)}\n\n`);
    first.end();
    await expect.element(jump).toBeVisible();
    await jump.click();
    await still(scroller);
    await expect.poll(atBottom).toBe(true);

    const second = await ask('and then?');
    // The question's top at the view's top, below the list's padding.
    const padding = parseFloat(getComputedStyle(scroller()).paddingTop);
    await expect.poll(() => Math.abs(questionTop() - padding)).toBeLessThan(2);
    expect(deepActiveElement()).toBe(textareaOf(el));
    expect(jump.elements()).toHaveLength(0);
    const held = scroller().scrollTop;

    second.push(`${PARAGRAPH}\n\n`);
    await settled(el);
    await new Promise(requestAnimationFrame);
    expect(scroller().scrollTop).toBe(held);
    expect(jump.elements()).toHaveLength(0);

    for (let i = 0; i < 8; i += 1) second.push(`${PARAGRAPH.repeat(3)}\n\n`);
    await expect.element(jump).toBeVisible();
    expect(scroller().scrollTop).toBe(held);
    expect(Math.abs(questionTop() - padding)).toBeLessThan(2);

    // Jump to latest follows the answer again.
    await jump.click();
    for (let i = 0; i < 3; i += 1) second.push(`${PARAGRAPH.repeat(3)}\n\n`);
    await settled(el);
    await expect.poll(atBottom).toBe(true);
    second.end();
  });

  test('a short answer leaves the room below it until the next question, and the view stays where it was', async ({
    worker,
    backend,
  }) => {
    const { el, scroller, jump, questionTop, ask } = await chat(worker);
    const first = await ask('tell me a lot');
    for (let i = 0; i < 8; i += 1) first.push(`${PARAGRAPH.repeat(3)}\n\n`);
    first.end();
    await jump.click();
    await still(scroller);

    const second = await ask('short?');
    second.push('Yes.');
    second.end();
    await settled(el);
    await still(scroller);
    const padding = parseFloat(getComputedStyle(scroller()).paddingTop);
    expect(Math.abs(questionTop() - padding)).toBeLessThan(2);
    expect(jump.elements()).toHaveLength(0);

    const third = await ask('one more');
    await expect.poll(() => Math.abs(questionTop() - padding)).toBeLessThan(2);
    third.end();
  });

  test('a new conversation leaves no room from the last one', async ({ worker, backend }) => {
    const { el, scroller, jump, ask } = await chat(worker);
    const first = await ask('tell me a lot');
    for (let i = 0; i < 8; i += 1) first.push(`${PARAGRAPH.repeat(3)}\n\n`);
    first.end();
    await jump.click();
    await still(scroller);
    const second = await ask('short?');
    second.push('Yes.');
    second.end();
    await still(scroller);
    const room = () => scroller().querySelector<HTMLElement>('.room')!.offsetHeight;
    expect(room()).toBeGreaterThan(100);

    await page.getByRole('button', { name: 'New conversation' }).click();
    await settled(el);
    expect(room()).toBe(0);
    expect(scroller().scrollHeight).toBe(scroller().clientHeight);
  });

  test('the feedback form asked for under a held short answer comes into view whole', async ({
    worker,
    backend,
  }) => {
    const { el, scroller, jump, ask } = await chat(worker);
    const first = await ask('tell me a lot');
    for (let i = 0; i < 8; i += 1) first.push(`${PARAGRAPH.repeat(3)}\n\n`);
    first.end();
    await jump.click();
    await still(scroller);
    const second = await ask('short?');
    second.push('Yes.');
    second.end();
    await still(scroller);

    await page.getByRole('button', { name: 'Not helpful' }).last().click();
    const form = page.getByRole('form', { name: 'What went wrong?' });
    await expect.element(form).toBeVisible();
    await settled(el);
    await expect
      .poll(() => form.element().getBoundingClientRect().bottom - scroller().getBoundingClientRect().bottom)
      .toBeLessThanOrEqual(1);
  });

  test('a reader who scrolled up while the answer streams is not moved', async ({ worker, backend }) => {
    const { el, scroller, jump, ask } = await chat(worker);
    const first = await ask('tell me a lot');
    for (let i = 0; i < 8; i += 1) first.push(`${PARAGRAPH.repeat(3)}\n\n`);
    first.end();
    await jump.click();
    await still(scroller);

    const second = await ask('and then?');
    await settled(el);
    scroller().scrollTop = 40;
    scroller().dispatchEvent(new Event('scroll'));
    await settled(el);
    for (let i = 0; i < 8; i += 1) second.push(`${PARAGRAPH.repeat(3)}\n\n`);
    await expect.element(jump).toBeVisible();
    expect(scroller().scrollTop).toBe(40);
    second.end();
  });

  test('on a landscape phone a question taller than half the view ends at its middle, so the answer has the other half', async ({
    worker,
    backend,
  }) => {
    const { scroller, questions, ask } = await chat(worker, '300px', '844px');
    const first = await ask('hello');
    first.push(`${PARAGRAPH.repeat(3)}`);
    first.end();
    await still(scroller);
    const second = await ask(PARAGRAPH.repeat(6));
    await expect
      .poll(() => {
        const bottom = questions().at(-1)!.getBoundingClientRect().bottom;
        const view = scroller().getBoundingClientRect();
        return Math.abs(bottom - view.top - scroller().clientHeight / 2);
      })
      .toBeLessThan(2);
    second.end();
  });
});
