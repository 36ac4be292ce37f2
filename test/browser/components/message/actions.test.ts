/** An answer's actions: Copy answer, Helpful / Not helpful, Regenerate, and Retry on the latest failure. */
import { describe, expect, vi } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { SERVICE_BASE } from '../../../msw/reference.js';
import { buttonNamed, fixtureChat, messagesOf, settled } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent`;

async function answered(el: AgentChat) {
  await el.send('How do I theme it?');
  await settled(el);
  return messagesOf(el).at(-1)!;
}

describe('<agent-chat> message actions', () => {
  test('a refused Copy answer says so where it can be seen and heard', async ({ backend }) => {
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(
      new DOMException('denied', 'NotAllowedError'),
    );
    const el = await fixtureChat();
    const answer = await answered(el);
    const root = answer.shadowRoot!;

    buttonNamed(root, 'Copy answer')!.click();
    const status = () => root.querySelector<HTMLElement>('.actions [role="status"]')!;
    await expect.poll(() => status().textContent).toBe('Copy failed');
    expect(status().getBoundingClientRect().width).toBeGreaterThan(1);
    // The button keeps its name: nothing was copied.
    expect(buttonNamed(root, 'Copy answer')).toBeDefined();
    await chaiExpect(el).to.be.accessible();
    vi.restoreAllMocks();
  });

  test('Copy answer, Helpful / Not helpful with reasons (§8), agent-chat-feedback, axe clean', async ({
    backend,
  }) => {
    const write = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue();
    const el = await fixtureChat();
    const feedback: unknown[] = [];
    el.addEventListener('agent-chat-feedback', (e) => feedback.push(e.detail));
    const answer = await answered(el);
    const root = answer.shadowRoot!;

    buttonNamed(root, 'Copy answer')!.click();
    expect(write).toHaveBeenCalledWith(answer.message!.content);
    await expect.poll(() => root.querySelector('.actions [role="status"]')?.textContent).toBe('Copied');

    const helpful = buttonNamed(root, 'Helpful')!;
    expect(helpful.getAttribute('aria-pressed')).toBe('false');
    helpful.click();
    await expect
      .poll(() => feedback)
      .toEqual([{ questionAnswerId: answer.message!.questionAnswerId, reaction: 'upvote' }]);
    await answer.updateComplete;
    expect(buttonNamed(root, 'Helpful')!.getAttribute('aria-pressed')).toBe('true');

    buttonNamed(root, 'Not helpful')!.click();
    await answer.updateComplete;
    const form = root.querySelector('form')!;
    expect(form.getAttribute('aria-label')).toBe('What went wrong?');
    await chaiExpect(el).to.be.accessible();
    form.querySelector<HTMLInputElement>('input[name="incorrect"]')!.click();
    form.querySelector('textarea')!.value = 'The colour is wrong';
    buttonNamed(form, 'Send feedback')!.click();
    const feedbackRequests = () => backend.serviceRequests.filter((r) => r.url.endsWith('/feedback/'));
    await expect.poll(() => feedbackRequests().length).toBe(3);
    // One event per rating (decision 336): the reasons belong to the downvote already announced.
    // The downvote's event follows its answer, which can come after the reasons' request is sent.
    await expect.poll(() => feedback.length).toBe(2);
    expect(feedback).toEqual([
      { questionAnswerId: answer.message!.questionAnswerId, reaction: 'upvote' },
      { questionAnswerId: answer.message!.questionAnswerId, reaction: 'downvote' },
    ]);
    const sent = await Promise.all(feedbackRequests().map((r) => r.clone().json()));
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
    expect(buttonNamed(first.shadowRoot!, 'Regenerate')).toBeUndefined();
    const last = messagesOf(el).at(-1)!;
    const before = last.message!.id;
    buttonNamed(last.shadowRoot!, 'Regenerate')!.click();
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
    expect(buttonNamed(first.shadowRoot!, 'Retry')).toBeUndefined();
    expect(buttonNamed(second.shadowRoot!, 'Retry')).toBeDefined();
    expect(second.shadowRoot!.textContent).not.toMatch(/500|HTTP/);
    expect(errors.map((e) => e.status)).toEqual([500, 500]);
  });
});
