/**
 * WCAG 1.4.11: a text field's edge is the boundary of a control and reaches 3:1 against what it
 * is drawn on, in both themes; the dividers between parts are decoration and keep the border token.
 */
import { http, HttpResponse } from 'msw';
import { describe, expect } from 'vitest';
import { page } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE, ownerKeyOf } from '../../../msw/reference.js';
import {
  answerRoot,
  composerOf,
  fixtureChat,
  settled,
  textareaOf,
  threadListOf,
} from '../../../helpers/chat-fixture.js';

/** Any CSS colour as sRGB bytes, by painting it (computed colours may be `color(srgb …)`). */
function rgb(colour: string): [number, number, number] {
  const context = document.createElement('canvas').getContext('2d', { willReadFrequently: true })!;
  context.fillStyle = colour;
  context.fillRect(0, 0, 1, 1);
  const [r, g, b] = context.getImageData(0, 0, 1, 1).data;
  return [r, g, b];
}
function luminance(colour: string) {
  const [r, g, b] = rgb(colour).map((c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: string, b: string) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
/** The edge of `field` against its own fill and against the fill of what holds it. */
function edgeContrasts(field: Element, around: Element) {
  const edge = getComputedStyle(field).borderTopColor;
  return [
    contrast(edge, getComputedStyle(field).backgroundColor),
    contrast(edge, getComputedStyle(around).backgroundColor),
  ];
}

describe('<agent-chat> the edges of its text fields', () => {
  for (const theme of ['light', 'dark'] as const) {
    test(`${theme}: the message box's edge reaches 3:1; the divider above it stays the border token`, async ({
      backend,
    }) => {
      const el = await fixtureChat({ theme });
      const composer = composerOf(el);
      const field = textareaOf(el).closest('form')!;
      for (const ratio of edgeContrasts(field, composer)) expect(ratio).toBeGreaterThanOrEqual(3);
      // The area's divider is decoration (1.45:1 and 1.69:1): it keeps the lighter token.
      const divider = getComputedStyle(composer).borderTopColor;
      expect(contrast(divider, getComputedStyle(composer).backgroundColor)).toBeLessThan(3);
    });

    test(`${theme}: Not helpful's comment box and the Conversations search reach 3:1`, async ({
      backend,
      worker,
    }) => {
      const at = new Date().toISOString();
      const thread = { id: 'th_1', title: 'Billing', preview: 'Monthly.', created_at: at, updated_at: at };
      worker.use(
        http.get(`${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/threads/`, () =>
          HttpResponse.json({ threads: [thread], next_cursor: null }),
        ),
      );
      backend.signIn('alice');
      const el = await fixtureChat({ theme, ownerKey: ownerKeyOf('alice') });
      await el.send('How do I theme it?');
      await settled(el);
      const root = answerRoot(el);
      root.querySelector<HTMLButtonElement>('button[aria-label="Not helpful"]')!.click();
      await settled(el);
      const comment = root.querySelector('form.reasons textarea')!;
      for (const ratio of edgeContrasts(comment, comment.parentElement!))
        expect(ratio).toBeGreaterThanOrEqual(3);
      await page.getByRole('button', { name: 'Conversations', exact: true }).click();
      const searchbox = page.getByRole('searchbox', { name: 'Search conversations' });
      await expect.element(searchbox).toBeVisible();
      const search = searchbox.element();
      for (const ratio of edgeContrasts(search, threadListOf(el))) expect(ratio).toBeGreaterThanOrEqual(3);
    });
  }
});
