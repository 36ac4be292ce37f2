/** Copy code: the button says Copied for a moment. */
import { afterEach, describe, expect, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE } from '../../../msw/reference.js';
import { STREAM_HEADERS, encodeRecord, streamBody } from '../../../msw/stream.js';
import { answerRoot, fixtureChat, settled } from '../../../helpers/chat-fixture.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
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
