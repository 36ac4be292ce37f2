/**
 * A numbered list's numbers show whole: an answer's settled parts are painted inside their own
 * box (`content-visibility: auto` contains their paint), so a marker wider than the list's
 * inset lost its first digit ("10." read ".0."), and more so with text spacing (WCAG 1.4.12).
 */
import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { SERVICE_BASE } from '../../../msw/reference.js';
import { answerRecords, STREAM_HEADERS, streamBody } from '../../../msw/stream.js';
import { answerRoot, fixtureChat, settled } from '../../../helpers/chat-fixture.js';

const CHAT_URL = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;
const TWELVE = Array.from({ length: 12 }, (_, i) => `${i + 1}. Step number ${i + 1}`).join('\n');
/** WCAG 1.4.12's text spacing, as a visitor's stylesheet or bookmarklet sets it. */
const SPACING =
  '* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; }';

/** The left edge that clips `el`'s paint: the nearest box that contains or scrolls it. */
function clipLeft(el: Element): number {
  for (let box = el.parentElement; box; box = box.parentElement) {
    const style = getComputedStyle(box);
    if (
      style.overflowX !== 'visible' ||
      style.contentVisibility === 'auto' ||
      /paint|strict|content/.test(style.contain)
    )
      return box.getBoundingClientRect().left;
  }
  return 0;
}

describe('<agent-chat> numbered lists', () => {
  for (const spacing of [false, true])
    test(`the widest number of a 12-step list has room before its text${spacing ? ', with text spacing' : ''}`, async ({
      worker,
      backend,
    }) => {
      worker.use(
        http.post(
          CHAT_URL,
          () => new HttpResponse(streamBody(answerRecords('th_1', [TWELVE])), { headers: STREAM_HEADERS }),
        ),
      );
      const el = await fixtureChat();
      await el.send('list');
      await settled(el);
      const root = answerRoot(el);
      if (spacing) {
        const style = document.createElement('style');
        style.textContent = SPACING;
        root.append(style);
      }
      const last = root.querySelector('.content ol > li:last-child')!;
      // The marker's own text, in the item's font: "12. ".
      const probe = document.createElement('span');
      probe.style.cssText = 'position: absolute; white-space: pre; visibility: hidden';
      probe.textContent = '12. ';
      last.append(probe);
      const room = last.getBoundingClientRect().left - clipLeft(last);
      expect(room).toBeGreaterThanOrEqual(probe.getBoundingClientRect().width);
    });
});
