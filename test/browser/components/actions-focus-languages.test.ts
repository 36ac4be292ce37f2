/** Message actions (Copy, feedback, Regenerate, Retry), layers and focus, and languages. */
import { describe, expect, vi } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { page, userEvent } from 'vitest/browser';
import { http, HttpResponse } from 'msw';
import { test } from '../../msw/test.js';
import { SERVICE_BASE } from '../../msw/reference.js';
import { STREAM_HEADERS, answerRecords, streamBody } from '../../msw/stream.js';
import {
  deepActiveElement,
  fixtureChat,
  messagesOf,
  settled,
  threadListToggle,
  threadListOf,
} from '../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent`;

function button(root: Element | ShadowRoot, name: string): HTMLButtonElement | undefined {
  return Array.from(root.querySelectorAll<HTMLButtonElement>('button')).find(
    (b) => b.getAttribute('aria-label') === name || b.textContent?.trim() === name,
  );
}

async function answered(el: AgentChat) {
  await el.send('How do I theme it?');
  await settled(el);
  return messagesOf(el).at(-1)!;
}

describe('<agent-chat> message actions', () => {
  test('Copy answer, Helpful / Not helpful with reasons (§8), agent-chat-feedback, axe clean', async ({
    backend,
  }) => {
    const write = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue();
    const el = await fixtureChat();
    const feedback: unknown[] = [];
    el.addEventListener('agent-chat-feedback', (e) => feedback.push(e.detail));
    const answer = await answered(el);
    const root = answer.shadowRoot!;

    button(root, 'Copy answer')!.click();
    expect(write).toHaveBeenCalledWith(answer.message!.content);
    await expect.poll(() => root.querySelector('.actions [role="status"]')?.textContent).toBe('Copied');

    const helpful = button(root, 'Helpful')!;
    expect(helpful.getAttribute('aria-pressed')).toBe('false');
    helpful.click();
    await expect
      .poll(() => feedback)
      .toEqual([{ questionAnswerId: answer.message!.questionAnswerId, reaction: 'upvote' }]);
    await answer.updateComplete;
    expect(button(root, 'Helpful')!.getAttribute('aria-pressed')).toBe('true');

    button(root, 'Not helpful')!.click();
    await answer.updateComplete;
    const form = root.querySelector('form')!;
    expect(form.getAttribute('aria-label')).toBe('What went wrong?');
    await chaiExpect(el).to.be.accessible();
    form.querySelector<HTMLInputElement>('input[name="incorrect"]')!.click();
    form.querySelector('textarea')!.value = 'The colour is wrong';
    button(form, 'Send feedback')!.click();
    await expect.poll(() => feedback.length).toBe(3);
    const sent = await Promise.all(
      backend.serviceRequests.filter((r) => r.url.endsWith('/feedback/')).map((r) => r.clone().json()),
    );
    expect(sent.at(-1)).toEqual({
      question_answer_id: answer.message!.questionAnswerId,
      reaction: 'downvote',
      comment: { incorrect: true, irrelevant: false, unaddressed: false, issue: 'The colour is wrong' },
    });
    await expect
      .poll(() => root.querySelector('.actions [role="status"]')?.textContent)
      .toBe('Thanks for your feedback!');
  });

  test('Regenerate only on the last answer; it asks again and replaces it', async ({ backend }) => {
    const el = await fixtureChat();
    const first = await answered(el);
    await answered(el);
    expect(button(first.shadowRoot!, 'Regenerate')).toBeUndefined();
    const last = messagesOf(el).at(-1)!;
    const before = last.message!.id;
    button(last.shadowRoot!, 'Regenerate')!.click();
    await expect.poll(() => messagesOf(el).at(-1)?.message?.id).not.toBe(before);
    await expect.poll(() => messagesOf(el).at(-1)?.message?.status).toBe('complete');
    expect(messagesOf(el)).toHaveLength(4);
    expect(backend.chatRequests()).toHaveLength(3);
  });

  test('only the latest failure offers Retry, in plain words without status codes', async ({
    worker,
    backend,
  }) => {
    worker.use(http.post(`${AGENT}/chat/`, () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    const el = await fixtureChat();
    const errors: Array<{ status?: number }> = [];
    el.addEventListener('agent-chat-error', (e) => errors.push(e.detail));
    await el.send('first');
    await el.send('second');
    await settled(el);
    const [first, second] = messagesOf(el);
    expect(first.shadowRoot!.querySelector('[role="alert"]')!.textContent).toBe(
      'Something went wrong. Please try again.',
    );
    expect(button(first.shadowRoot!, 'Retry')).toBeUndefined();
    expect(button(second.shadowRoot!, 'Retry')).toBeDefined();
    expect(second.shadowRoot!.textContent).not.toMatch(/500|HTTP/);
    expect(errors.map((e) => e.status)).toEqual([500, 500]);
  });
});

describe('<agent-chat> layers and focus', () => {
  test('the drawer takes focus, Escape closes it first (focus back on its toggle), then the panel', async ({
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['One', 'Two']);
    const el = await fixtureChat({ mode: 'launcher', ownerKey: 'key-alice' });
    await el.open();
    threadListToggle(el).click();
    // Focus moves in at once, while the list still loads, and stays inside when the threads arrive.
    await expect.poll(() => threadListOf(el).shadowRoot!.contains(deepActiveElement())).toBe(true);
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelectorAll('button.open').length).toBe(2);
    await settled(el);
    expect(threadListOf(el).shadowRoot!.contains(deepActiveElement())).toBe(true);
    await chaiExpect(el).to.be.accessible();

    await userEvent.keyboard('{Escape}');
    await expect.poll(() => threadListToggle(el).getAttribute('aria-expanded')).toBe('false');
    expect(deepActiveElement()).toBe(threadListToggle(el));
    expect(el.opened).toBe(true);

    await userEvent.keyboard('{Escape}');
    await expect.poll(() => el.opened).toBe(false);
  });

  test('Escape in a delete confirmation cancels it and leaves the drawer open', async ({ backend }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Keep me']);
    const el = await fixtureChat({ mode: 'launcher', ownerKey: 'key-alice' });
    await el.open();
    threadListToggle(el).click();
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelectorAll('button.open').length).toBe(1);
    button(threadListOf(el).shadowRoot!, 'Delete Keep me')!.click();
    await threadListOf(el).updateComplete;
    expect(threadListOf(el).shadowRoot!.querySelector('[role="group"]')).not.toBeNull();
    await userEvent.keyboard('{Escape}');
    await threadListOf(el).updateComplete;
    expect(threadListOf(el).shadowRoot!.querySelector('[role="group"]')).toBeNull();
    expect(threadListToggle(el).getAttribute('aria-expanded')).toBe('true');
    expect(el.opened).toBe(true);
  });

  test('the launcher keeps its name and shows another icon while open', async ({ backend }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    const launcher = () => el.shadowRoot!.querySelector('.launcher')!;
    const closedIcon = launcher().querySelector('path')!.getAttribute('d');
    await el.open();
    expect(launcher().getAttribute('aria-label')).toBe('Open chat');
    expect(launcher().getAttribute('aria-expanded')).toBe('true');
    expect(launcher().querySelector('path')!.getAttribute('d')).not.toBe(closedIcon);
  });
});

describe('<agent-chat> languages', () => {
  test('follows the nearest page lang, lays Arabic out right to left, and strings override any text', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const panel = () => el.shadowRoot!.querySelector('#panel')!;
    el.setAttribute('lang', 'de');
    await expect.poll(() => threadListToggle(el) ?? button(el.shadowRoot!, 'Unterhaltungen')).toBeDefined();
    await expect.poll(() => button(el.shadowRoot!, 'Unterhaltungen')).toBeDefined();
    await expect.element(page.getByRole('textbox', { name: 'Nachricht' })).toBeInTheDocument();
    expect(panel().getAttribute('dir')).toBe('ltr');

    el.setAttribute('lang', 'ar');
    await expect.poll(() => panel().getAttribute('dir')).toBe('rtl');
    await chaiExpect(el).to.be.accessible();

    el.strings = { send: 'Ask' };
    el.removeAttribute('lang');
    await expect.element(page.getByRole('button', { name: 'Ask' })).toBeInTheDocument();
    await expect.element(page.getByRole('button', { name: 'Conversations' })).toBeInTheDocument();
  });

  test('answers speak the widget language too: code blocks, actions and the live region', async ({
    worker,
    backend,
  }) => {
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () =>
          new HttpResponse(streamBody(answerRecords('th_de', ['So:\n```js\nx()\n```\n'])), {
            headers: STREAM_HEADERS,
          }),
      ),
    );
    const el = await fixtureChat();
    el.setAttribute('lang', 'de');
    await expect.element(page.getByRole('textbox', { name: 'Nachricht' })).toBeInTheDocument();
    await el.send('Wie?');
    await settled(el);
    await expect.element(page.getByRole('button', { name: 'Code kopieren' })).toBeInTheDocument();
    await expect.element(page.getByRole('button', { name: 'Antwort kopieren' })).toBeInTheDocument();
    el.setAttribute('lang', 'fr');
    await expect.element(page.getByRole('button', { name: 'Copier le code' })).toBeInTheDocument();
  });
});
