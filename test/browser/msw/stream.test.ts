/**
 * cutAfter, the dropped connection of the reattach tests: the page gets every byte the service
 * sent before the drop, then a network error, whatever the page's pace.
 */
import { describe, expect } from 'vitest';
import { http } from 'msw';
import { test } from '../../msw/test.js';
import { SERVICE_BASE } from '../../msw/reference.js';
import { cutAfter, streamBody } from '../../msw/stream.js';

const CUT = `${SERVICE_BASE}/agent/v1/cut/`;
const PARTS = Array.from({ length: 8 }, (_, i) => `part ${i + 1}|`);

/** The body as the page reads it, `pause` ms between reads, and how it ended. */
async function readAll(pause: number): Promise<{ text: string; ended: string }> {
  const reader = (await fetch(CUT)).body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, ended: 'done' };
      text += decoder.decode(value, { stream: true });
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  } catch (error) {
    return { text, ended: String(error) };
  }
}

describe('cutAfter', () => {
  test('the page reads the first chunks whole, then a network error; the service was told first', async ({
    worker,
  }) => {
    let drops = 0;
    worker.use(http.get(CUT, () => cutAfter(new Response(streamBody(PARTS)), 4, () => drops++)));
    // Errored where msw hands the body on, the error overtook the chunks: 0 of 200 such reads
    // had all four, some had none.
    for (const pause of [0, 0, 1, 5, 0, 20]) {
      expect(await readAll(pause)).toEqual({
        text: PARTS.slice(0, 4).join(''),
        ended: 'TypeError: network error',
      });
    }
    expect(drops).toBe(6);
  });

  test('a body shorter than the cut ends as it is, with no error', async ({ worker }) => {
    worker.use(http.get(CUT, () => cutAfter(new Response(streamBody(PARTS.slice(0, 2))), 4)));
    expect(await readAll(0)).toEqual({ text: PARTS.slice(0, 2).join(''), ended: 'done' });
  });
});
