/** Code wider than the answer: its cut edge shows, and Wrap lines folds its long lines in. */
import { describe, expect } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE } from '../../../msw/reference.js';
import { STREAM_HEADERS, encodeRecord, streamBody } from '../../../msw/stream.js';
import {
  answerRoot,
  deepActiveElement,
  fixtureChat,
  messagesOf,
  settled,
} from '../../../helpers/chat-fixture.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
const LONG_LINE = `chat.addEventListener('agent-chat-answer-end', (event) => console.log(event.detail.outcome, event.detail.messageId));`;
const ANSWER = `Listen for the end of each answer:\n\n\`\`\`js\n${LONG_LINE}\n\`\`\`\n\nShort code needs nothing:\n\n\`\`\`bash\nnpm i agent-chat\n\`\`\`\n`;

/** The backgrounds drawn at the code's scrolled-off edges: [start side, end side]. */
function edgeShadows(pre: HTMLElement): string[] {
  return getComputedStyle(pre).backgroundAttachment.split(', ');
}

describe('<agent-chat-message> long code lines', () => {
  for (const [lang, name, copyName] of [
    ['en', 'Wrap lines', 'Copy code'],
    ['ar', 'التفاف الأسطر', 'نسخ الرمز'],
  ] as const)
    test(`a cut line shows its edge, and ${name} (a toggle) folds it into view (${lang}, ${lang === 'ar' ? 'right to left' : 'left to right'})`, async ({
      worker,
      backend,
    }) => {
      const records = [
        encodeRecord('stream_start', { thread_id: 'th_w', question_answer_id: 'qa_w' }),
        encodeRecord('partial_answer', { text: ANSWER }),
        encodeRecord('identifiers', { thread_id: 'th_w', question_answer_id: 'qa_w' }, true),
      ];
      worker.use(
        http.post(`${AGENT}/chat/`, () => new HttpResponse(streamBody(records), { headers: STREAM_HEADERS })),
      );
      const el = await fixtureChat();
      el.style.width = '400px';
      el.setAttribute('lang', lang);
      await expect
        .poll(() => el.shadowRoot!.querySelector('#panel')?.getAttribute('dir'))
        .toBe(lang === 'ar' ? 'rtl' : 'ltr');
      await el.send('Which events does it fire?');
      await settled(el);
      await Promise.all(messagesOf(el).map((m) => m.updateComplete));
      const [long, short] = Array.from(answerRoot(el).querySelectorAll<HTMLElement>('.code-block'));
      const pre = long.querySelector('pre')!;
      // The code is cut: more of it to the right (code reads left to right in every language).
      expect(getComputedStyle(pre).direction).toBe('ltr');
      expect(pre.scrollWidth).toBeGreaterThan(pre.clientWidth + 100);
      expect(pre.scrollLeft).toBe(0);
      // Two covers that scroll with the code over two shadows fixed to its box: the shadow shows
      // on each side that has more code, in any scrollbar style.
      expect(edgeShadows(pre)).toEqual(['local', 'local', 'scroll', 'scroll']);
      expect(getComputedStyle(pre).backgroundImage.match(/radial-gradient/g)).toHaveLength(2);

      // Only the block whose lines may not fit offers the toggle.
      const wrap = page.getByRole('button', { name });
      await expect.element(wrap).toBeVisible();
      expect(short.querySelector('.wrap')).toBeNull();
      await expect.element(wrap).toHaveAttribute('aria-pressed', 'false');
      pre.focus();
      await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
      // The toggle sits in the code's bar, reached by keyboard before Copy code and the code.
      expect(deepActiveElement()).toBe(page.getByRole('button', { name: copyName }).first().element());
      await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
      expect(deepActiveElement()).toBe(wrap.element());
      await userEvent.keyboard('{Enter}');
      await expect.element(wrap).toHaveAttribute('aria-pressed', 'true');
      expect(pre.scrollWidth).toBeLessThanOrEqual(pre.clientWidth);
      expect(pre.textContent).toBe(LONG_LINE);
      await chaiExpect(el).to.be.accessible();

      // A later render of the answer keeps the visitor's choice.
      const answer = messagesOf(el).at(-1)!;
      answer.message = { ...answer.message!, content: `${ANSWER}\nMore text.` };
      await answer.updateComplete;
      await expect.element(wrap).toHaveAttribute('aria-pressed', 'true');
      expect(pre.scrollWidth).toBeLessThanOrEqual(pre.clientWidth);

      await wrap.click();
      await expect.element(wrap).toHaveAttribute('aria-pressed', 'false');
      expect(pre.scrollWidth).toBeGreaterThan(pre.clientWidth + 100);
      await chaiExpect(el).to.be.accessible();
    });
});
