/** Details a visitor notices: Copy code says Copied, the feedback form and its thanks, drawer rows with previews under date groups. */
import { afterEach, describe, expect, vi } from 'vitest';
import { page } from 'vitest/browser';
import { expect as chaiExpect } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { test } from '../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE, ownerKeyOf } from '../../msw/reference.js';
import { STREAM_HEADERS, encodeRecord, streamBody } from '../../msw/stream.js';
import {
  fixtureChat,
  messagesOf,
  settled,
  threadListToggle,
  threadListOf,
} from '../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
const answerRoot = (el: AgentChat) =>
  messagesOf(el)
    .filter((m) => m.message?.role === 'assistant')
    .at(-1)!.shadowRoot!;
const visible = (element: Element) => getComputedStyle(element).display !== 'none';

afterEach(() => vi.restoreAllMocks());

describe('<agent-chat> Copy code', () => {
  test('the button itself says Copied for a moment, then Copy code again', async ({ worker, backend }) => {
    const records = [
      encodeRecord('stream_start', { thread_id: 'th_c', question_answer_id: 'qa_c' }),
      encodeRecord('partial_answer', { text: 'Install it:\n\n```bash\nnpm i agent-chat\n```\n' }),
      encodeRecord('identifiers', { thread_id: 'th_c', question_answer_id: 'qa_c' }, true),
    ];
    worker.use(
      http.post(`${AGENT}/chat/`, () => new HttpResponse(streamBody(records), { headers: STREAM_HEADERS })),
    );
    vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue();
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const el = await fixtureChat();
      await el.send('How do I install it?');
      await settled(el);
      const copy = answerRoot(el).querySelector<HTMLButtonElement>('button.copy')!;
      const label = copy.querySelector('.copy-label')!;
      const copied = copy.querySelector('.copied')!;
      expect([visible(label), visible(copied)]).toEqual([true, false]);
      copy.click();
      await vi.waitFor(() => expect(copy.hasAttribute('data-copied')).toBe(true));
      expect([visible(label), visible(copied)]).toEqual([false, true]);
      expect(copy.textContent!.replace('✓', '').trim()).toMatch(/Copied$/);
      vi.advanceTimersByTime(2000);
      expect([visible(label), visible(copied)]).toEqual([true, false]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('<agent-chat> feedback', () => {
  test('Not helpful opens a styled form of reason chips; sending it closes it with a thanks the visitor can see', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    const root = answerRoot(el);
    root.querySelector<HTMLButtonElement>('button[aria-label="Not helpful"]')!.click();
    await settled(el);
    const form = root.querySelector('form.reasons')!;
    const chips = Array.from(form.querySelectorAll<HTMLLabelElement>('label.chip'));
    expect(chips.map((c) => c.textContent!.trim())).toEqual([
      'Incorrect',
      'Not relevant',
      "Didn't answer my question",
    ]);
    // A chip is a pill with a real checkbox inside; checking it marks the pill.
    expect(getComputedStyle(chips[0]).borderRadius).toBe('999px');
    const before = getComputedStyle(chips[0]).borderColor;
    chips[0].querySelector('input')!.click();
    expect(getComputedStyle(chips[0]).borderColor).not.toBe(before);
    await chaiExpect(el).to.be.accessible();
    Array.from(form.querySelectorAll('button'))
      .find((b) => b.textContent === 'Send feedback')!
      .click();
    await settled(el);
    expect(root.querySelector('form.reasons')).toBeNull();
    const thanks = root.querySelector<HTMLElement>('.actions [role="status"]')!;
    expect(thanks.textContent).toBe('Thanks for your feedback!');
    expect(thanks.classList.contains('visually-hidden')).toBe(false);
    expect(thanks.getBoundingClientRect().width).toBeGreaterThan(50);
    // Both went: the downvote at once, then again with its reasons (§8). Waiting for them keeps
    // this test's requests out of the next one's backend.
    await expect
      .poll(() => backend.serviceRequests.filter((r) => r.url.endsWith('/feedback/')).length)
      .toBe(2);
  });

  test('Cancel closes the form without sending reasons', async ({ backend }) => {
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    const root = answerRoot(el);
    root.querySelector<HTMLButtonElement>('button[aria-label="Not helpful"]')!.click();
    await settled(el);
    Array.from(root.querySelectorAll('form button'))
      .find((b) => b.textContent === 'Cancel')!
      .dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await settled(el);
    expect(root.querySelector('form.reasons')).toBeNull();
    // The downvote itself went at once (§8); no second one with reasons followed.
    const about = answerRoot(el).host as unknown as { message: { questionAnswerId: string } };
    const mine = async () => {
      const bodies = await Promise.all(
        backend.serviceRequests.filter((r) => r.url.endsWith('/feedback/')).map((r) => r.clone().json()),
      );
      return bodies.filter((b) => b.question_answer_id === about.message.questionAnswerId);
    };
    await expect.poll(async () => (await mine()).length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await mine()).map((b) => b.comment ?? null)).toEqual([null]);
  });
});

describe('<agent-chat> the conversations drawer', () => {
  test('rows carry a preview of the latest answer and sit under Today, Yesterday, Previous 7 days, then months', async ({
    worker,
    backend,
  }) => {
    backend.signIn('alice');
    const now = Date.now();
    const day = 86_400_000;
    const at = (ago: number) => new Date(now - ago).toISOString();
    // Today, yesterday and three days ago by the calendar, counted from this midnight: a run just
    // after midnight must not put "a minute ago" into yesterday.
    const midnight = new Date(now).setHours(0, 0, 0, 0);
    const beforeMidnight = (ms: number) => new Date(midnight - ms).toISOString();
    const threads = [
      {
        id: 'th_1',
        title: 'How do I theme it?',
        created_at: at(0),
        updated_at: at(0),
        preview: 'Set CSS custom properties on the element.',
      },
      {
        id: 'th_2',
        title: 'How do I theme it?',
        created_at: beforeMidnight(7_200_000),
        updated_at: beforeMidnight(3_600_000),
        preview: 'Use the dark theme attribute.',
      },
      {
        id: 'th_3',
        title: 'Which frameworks?',
        created_at: beforeMidnight(3 * day),
        updated_at: beforeMidnight(2 * day + 3_600_000),
        preview: 'React, Vue and Svelte.',
      },
      { id: 'th_4', title: 'Old question', created_at: at(40 * day), updated_at: at(40 * day), preview: '' },
      { id: 'th_5', title: 'Older question', created_at: at(400 * day), updated_at: at(400 * day) },
    ];
    worker.use(http.get(`${AGENT}/threads/`, () => HttpResponse.json({ threads, next_cursor: null })));
    await page.viewport(1280, 800);
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    threadListToggle(el).click();
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelectorAll('button.open').length).toBe(5);
    const root = threadListOf(el).shadowRoot!;
    const month = (ago: number, year: boolean) =>
      new Intl.DateTimeFormat('en', { month: 'long', year: year ? 'numeric' : undefined }).format(
        new Date(now - ago),
      );
    const groups = Array.from(root.querySelectorAll('h3.group')).map((h) => h.textContent);
    const sameYear = (ago: number) => new Date(now - ago).getFullYear() === new Date(now).getFullYear();
    expect(groups.slice(0, 3)).toEqual(['Today', 'Yesterday', 'Previous 7 days']);
    expect(groups.slice(-2)).toEqual([month(40 * day, !sameYear(40 * day)), month(400 * day, true)]);
    // Each group is a list named by its heading.
    for (const list of Array.from(root.querySelectorAll('ul')))
      expect(root.getElementById(list.getAttribute('aria-labelledby')!)?.classList.contains('group')).toBe(
        true,
      );
    const rows = Array.from(root.querySelectorAll('button.open')).map((b) => [
      b.querySelector('.title')!.textContent,
      (b.querySelector('.preview') ?? b.querySelector('.time'))!.textContent,
    ]);
    expect(rows.slice(0, 3)).toEqual([
      ['How do I theme it?', 'Set CSS custom properties on the element.'],
      ['How do I theme it?', 'Use the dark theme attribute.'],
      ['Which frameworks?', 'React, Vue and Svelte.'],
    ]);
    // Without a preview a row keeps its time.
    expect(root.querySelectorAll('button.open')[4].querySelector('.time')!.textContent).toMatch(/year/i);
    await chaiExpect(el).to.be.accessible();
  });
});
