/** The start screen: composed for the whole panel, a greeting of at most two lines, a signed-in visitor's latest conversations. */
import { afterEach, describe, expect } from 'vitest';
import { page } from 'vitest/browser';
import { expect as chaiExpect, fixture, html } from '@open-wc/testing';
import { ifDefined } from 'lit/directives/if-defined.js';
import { test } from '../../../msw/test.js';
import {
  INTEGRATION_ID,
  PROJECT_ID,
  SERVICE_BASE,
  SESSION_ENDPOINT,
  ownerKeyOf,
} from '../../../msw/reference.js';
import { messagesOf, settled } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const PROMPTS = 'How do I theme it?|Can I use it with React?|Where are my conversations?';

async function launcher(
  options: { ownerKey?: string; greeting?: string; prompts?: string } = {},
): Promise<AgentChat> {
  const el =
    await fixture<AgentChat>(html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT}
    base-url=${SERVICE_BASE} owner-key=${ifDefined(options.ownerKey)} heading="Acme Support" subheading="We usually answer right away"
    greeting=${ifDefined(options.greeting)} prompts=${options.prompts ?? PROMPTS}></agent-chat>`);
  await el.open();
  await settled(el);
  return el;
}

const listRoot = (el: AgentChat) => el.shadowRoot!.querySelector('agent-chat-message-list')!.shadowRoot!;
const latestThreadTitles = (el: AgentChat) =>
  Array.from(listRoot(el).querySelectorAll('.latest .latest-title')).map((t) => t.textContent);

/**
 * The share of the panel that shows nothing: its height less the union of what is drawn across
 * it (header, the start screen's blocks, composer, disclaimer). The blocks span the panel's
 * width, so their vertical extents are what counts.
 */
function emptyShare(el: AgentChat): number {
  const panel = el.shadowRoot!.querySelector('.panel')!.getBoundingClientRect();
  const blocks = [
    el.shadowRoot!.querySelector('header')!,
    ...Array.from(listRoot(el).querySelectorAll('.start > *')),
    el.shadowRoot!.querySelector('agent-chat-composer')!,
    el.shadowRoot!.querySelector('.disclaimer'),
  ].filter((b): b is Element => b !== null);
  const spans = blocks
    .map((b) => b.getBoundingClientRect())
    .map((r) => [Math.max(r.top, panel.top), Math.min(r.bottom, panel.bottom)] as const)
    .filter(([top, bottom]) => bottom > top)
    .sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let reach = panel.top;
  for (const [top, bottom] of spans) {
    if (bottom <= reach) continue;
    covered += bottom - Math.max(top, reach);
    reach = bottom;
  }
  return 1 - covered / panel.height;
}

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe('<agent-chat> start screen', () => {
  for (const [size, width, height] of [
    ['a 400×640 floating panel', 1280, 800],
    ['a 390×844 phone', 390, 844],
  ] as const) {
    test(`fills ${size}: at most a quarter of it empty, for an anonymous and a signed-in visitor`, async ({
      backend,
    }) => {
      backend.signIn('alice');
      await backend.seed('alice', [
        'Which frameworks are supported?',
        'How do I theme it?',
        'Where are my conversations?',
      ]);
      await page.viewport(width, height);

      const anonymous = await launcher({ ownerKey: '-' });
      const panel = anonymous.shadowRoot!.querySelector('.panel')!.getBoundingClientRect();
      // The runner may scale its frame a little; the panel's shape is what the sizes say.
      expect(panel.width / panel.height).toBeCloseTo(width === 390 ? 390 / 844 : 400 / 640, 2);
      expect(emptyShare(anonymous)).toBeLessThanOrEqual(0.25);
      await chaiExpect(anonymous).to.be.accessible();
      anonymous.remove();

      const signedIn = await launcher({ ownerKey: ownerKeyOf('alice') });
      await expect.poll(() => latestThreadTitles(signedIn).length).toBe(2);
      expect(emptyShare(signedIn)).toBeLessThanOrEqual(0.25);
      await chaiExpect(signedIn).to.be.accessible();
    });
  }

  for (const [size, width, height] of [
    ['a 400×640 floating panel', 1280, 800],
    ['a 390×844 phone', 390, 844],
  ] as const) {
    test(`the README's own element (no prompts, no greeting) on ${size}: a compact greeting just above the composer, the rest plain`, async ({
      backend,
    }) => {
      await page.viewport(width, height);
      const el = await fixture<AgentChat>(
        html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} session-endpoint=${SESSION_ENDPOINT} base-url=${SERVICE_BASE}></agent-chat>`,
      );
      await el.open();
      await settled(el);
      const start = listRoot(el).querySelector('.start')!;
      const hero = start.querySelector<HTMLElement>('.hero')!;
      const greeting = start.querySelector<HTMLElement>('.greeting')!;
      expect(greeting.textContent).toBe('Hi! How can I help?');
      // No tinted band: the start screen paints nothing but the greeting's line.
      expect(getComputedStyle(hero).backgroundImage).toBe('none');
      expect(getComputedStyle(hero).backgroundColor).toBe('rgba(0, 0, 0, 0)');
      expect(hero.getBoundingClientRect().height).toBeLessThanOrEqual(40);
      // Next to the composer, where the visitor's eyes go to type.
      const composer = el.shadowRoot!.querySelector('agent-chat-composer')!.getBoundingClientRect();
      expect(composer.top - greeting.getBoundingClientRect().bottom).toBeGreaterThanOrEqual(0);
      expect(composer.top - greeting.getBoundingClientRect().bottom).toBeLessThanOrEqual(40);
      // The panel above it shows nothing: the greeting's line is all the start screen draws.
      const panel = el.shadowRoot!.querySelector('.panel')!.getBoundingClientRect();
      expect(hero.getBoundingClientRect().height / panel.height).toBeLessThan(0.07);
      await chaiExpect(el).to.be.accessible();

      // With prompts the band is back and fills the room the prompts leave.
      el.setAttribute('prompts', PROMPTS);
      await settled(el);
      expect(getComputedStyle(hero).backgroundImage).toMatch(/^linear-gradient/);
      expect(emptyShare(el)).toBeLessThanOrEqual(0.25);
    });
  }

  test('a long greeting stops at two lines; all of it stays in the text and the tooltip', async ({
    backend,
  }) => {
    await page.viewport(390, 844);
    const greeting =
      'Welcome to Acme! Ask me anything about installing, theming, securing or extending the widget on your own site.';
    const el = await launcher({ greeting });
    const shown = listRoot(el).querySelector<HTMLElement>('.greeting')!;
    const lineHeight = parseFloat(getComputedStyle(shown).lineHeight);
    expect(shown.getBoundingClientRect().height).toBeLessThanOrEqual(2 * lineHeight + 1);
    expect(shown.scrollHeight).toBeGreaterThan(2 * lineHeight + 1); // it really was longer
    expect(shown.textContent).toBe(greeting);
    expect(shown.title).toBe(greeting);
  });

  test('a signed-in visitor sees their latest conversations with a preview, and one click resumes one', async ({
    backend,
  }) => {
    backend.signIn('alice');
    await backend.seed('alice', [
      'Which frameworks are supported?',
      'How do I theme it?',
      'Where are my conversations?',
    ]);
    const el = await launcher({ ownerKey: ownerKeyOf('alice'), prompts: 'How do I theme it?' });
    // Beside fewer than three prompts, three conversations, newest first.
    await expect
      .poll(() => latestThreadTitles(el))
      .toEqual(['Where are my conversations?', 'How do I theme it?', 'Which frameworks are supported?']);
    const list = listRoot(el).querySelector('.latest')!;
    expect(list.getAttribute('aria-labelledby')).toBe('latest-label');
    expect(listRoot(el).querySelector('#latest-label')!.textContent).toBe('Recent conversations');
    const theming = Array.from(list.querySelectorAll('button')).find((b) =>
      b.textContent?.includes('How do I theme it?'),
    )!;
    expect(theming.querySelector('.latest-meta')!.textContent).toMatch(/^Style the widget from your page/);
    theming.click();
    await expect
      .poll(() => messagesOf(el).map((m) => m.message?.content.slice(0, 18)))
      .toEqual(['How do I theme it?', 'Style the widget f']);
  });

  test('an anonymous visitor gets no conversations and no request for them', async ({ backend }) => {
    const el = await launcher({ ownerKey: '-' });
    await settled(el);
    expect(listRoot(el).querySelector('.latest')).toBeNull();
    expect(backend.serviceRequests.filter((r) => r.url.includes('/threads/'))).toEqual([]);
    expect(backend.sessionRequests).toEqual([]);
  });
});
