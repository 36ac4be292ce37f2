/** Thread list rows: a preview of the first answer (the title's answer), under date groups. */
import { afterEach, describe, expect, vi } from 'vitest';
import { page } from 'vitest/browser';
import { expect as chaiExpect } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE, ownerKeyOf } from '../../../msw/reference.js';
import {
  fixtureChat,
  recentConversations,
  threadListToggle,
  threadListOf,
} from '../../../helpers/chat-fixture.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
afterEach(() => vi.restoreAllMocks());

describe('<agent-chat> thread list rows', () => {
  test('rows carry the preview the service sends and sit under Today, Yesterday, Previous 7 days, then months', async ({
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

  test("a row pairs the title's question with its own answer, not a later one: in the drawer and in Recent conversations", async ({
    backend,
  }) => {
    backend.signIn('alice');
    // The follow-up has no article: its answer is "I couldn't find that in the docs".
    await backend.seed('alice', [
      ['How do I theme it?', 'Can it bake bread?'],
      'Which frameworks are supported?',
    ]);
    await page.viewport(1280, 800);
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    threadListToggle(el).click();
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelectorAll('button.open').length).toBe(2);
    const theming = Array.from(threadListOf(el).shadowRoot!.querySelectorAll('button.open')).find(
      (b) => b.querySelector('.title')!.textContent === 'How do I theme it?',
    )!;
    expect(theming.querySelector('.preview')!.textContent).toMatch(/^Style the widget from your page/);
    await chaiExpect(el).to.be.accessible();

    const start = await fixtureChat({ ownerKey: ownerKeyOf('alice'), mode: 'inline' });
    await expect.poll(() => recentConversations(start).length).toBe(2);
    const row = recentConversations(start).find(([title]) => title === 'How do I theme it?')!;
    expect(row[1]).toMatch(/^Style the widget from your page/);
    expect(row[1]).not.toMatch(/couldn.t find/i);
  });

  test("rows show and read a preview's words, not its markdown, and the title as the visitor typed it, in the drawer and in Recent conversations", async ({
    worker,
    backend,
  }) => {
    backend.signIn('alice');
    const at = new Date().toISOString();
    // A title is the visitor's question, plain text with their own stars in it; a preview is the
    // start of an answer, with its markdown.
    const threads = [
      {
        id: 'th_md',
        title: 'Is 2*3*4 the **accent**?',
        created_at: at,
        updated_at: at,
        preview: 'Set it on the element; see [the guide](https://docs.example.test/theme) &amp; _more_.',
      },
    ];
    worker.use(http.get(`${AGENT}/threads/`, () => HttpResponse.json({ threads, next_cursor: null })));
    await page.viewport(1280, 800);
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    const title = 'Is 2*3*4 the **accent**?';
    const preview = 'Set it on the element; see the guide & more.';
    await expect.poll(() => recentConversations(el)).toEqual([[title, preview]]);
    await expect.element(page.getByRole('button', { name: `${title} ${preview}` })).toBeVisible();

    threadListToggle(el).click();
    const list = page.getByRole('region', { name: 'Conversations' });
    await expect.element(list.getByRole('button', { name: `Delete ${title}` })).toBeVisible();
    await expect.element(list.getByRole('button', { name: `Rename ${title}` })).toBeVisible();
    const row = list.getByRole('button', { name: `${title} ${preview}` });
    await expect.element(row).toBeVisible();
    expect(row.element().querySelector('.preview')!.textContent).not.toMatch(/[*`#[\]_]|https:|&amp;/);
    await chaiExpect(el).to.be.accessible();
  });
});
