/**
 * The Conversations list's search from the keyboard and a screen reader (decisions 527, 528):
 * typing never moves the focus; the outcome of a query shows and is spoken once it settles;
 * Escape or "Clear search" empty it with the focus kept in the field; Arrow Down goes to the
 * first match; titles and previews match, accents aside; a search over a list the service pages
 * says what it has not searched.
 */
import { expect as chaiExpect } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { PROJECT_ID, SERVICE_BASE, ownerKeyOf, type ReferenceBackend } from '../../../msw/reference.js';
import type { SetupWorker } from 'msw/browser';
import {
  deepActiveElement,
  fixtureChat,
  openConversationsByKeyboard,
} from '../../../helpers/chat-fixture.js';
import { clearDeviceMemory } from '../../../../src/chat/device-memory-store.js';

const THREADS = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/threads/`;
const DAY = 86_400_000;

const list = () => page.getByRole('region', { name: 'Conversations' });
const toggle = () => page.getByRole('button', { name: 'Conversations', exact: true });
const searchbox = () => list().getByRole('searchbox', { name: 'Search conversations' });
const searchField = () => searchbox().element() as HTMLInputElement;
const outcome = () => list().getByRole('status').element() as HTMLElement;
const rowNames = () =>
  list()
    .getByRole('button')
    .elements()
    .filter((b) => b.classList.contains('open'))
    .map((b) => b.querySelector('.title')!.textContent);

function row(id: string, title: string, preview: string, daysAgo: number) {
  const at = new Date(Date.now() - daysAgo * DAY - 60_000).toISOString();
  return { id, title, preview, created_at: at, updated_at: at };
}

const THREE = [
  row('th_cafe', 'Café opening hours', 'We open at eight.', 0),
  row('th_theme', 'How do I theme it?', 'Set CSS custom properties on the element.', 1),
  row('th_billing', 'Billing question', 'Invoices are sent monthly.', 2),
];

/** The service's list, paged 20 at a time as the service pages it; counts the pages asked for. */
function serveThreads(worker: SetupWorker, threads: ReturnType<typeof row>[]) {
  const pages: string[] = [];
  worker.use(
    http.get(THREADS, ({ request }) => {
      const url = new URL(request.url);
      const from = Number(url.searchParams.get('cursor') ?? 0);
      pages.push(String(from));
      const next = from + 20 < threads.length ? String(from + 20) : null;
      return HttpResponse.json({ threads: threads.slice(from, from + 20), next_cursor: next });
    }),
    http.delete(`${THREADS}:id/`, () => new HttpResponse(null, { status: 204 })),
  );
  return pages;
}

/** Alice's floating panel, open, her Conversations opened over it from the keyboard. */
async function alicesConversations(backend: ReferenceBackend, lang?: string) {
  await clearDeviceMemory();
  backend.signIn('alice');
  const el = await fixtureChat({ mode: 'launcher', ownerKey: ownerKeyOf('alice') });
  if (lang) el.setAttribute('lang', lang);
  await el.open();
  await openConversationsByKeyboard();
  await expect.element(searchbox()).toBeVisible();
  return el;
}

/** Every text the status region held, in order, from now on. */
function spoken(region: HTMLElement): string[] {
  const said: string[] = [];
  const note = () => {
    const text = region.textContent!.replace(/\s+/g, ' ').trim();
    if (text && text !== said.at(-1)) said.push(text);
  };
  new MutationObserver(note).observe(region, { subtree: true, childList: true, characterData: true });
  return said;
}

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe('<agent-chat> the Conversations search, from the keyboard', () => {
  test('typing keeps the focus; "No conversations match" shows and is spoken once the query settles; Escape clears, then closes', async ({
    worker,
    backend,
  }) => {
    serveThreads(worker, THREE);
    const el = await alicesConversations(backend);
    await expect
      .poll(() => rowNames())
      .toEqual(['Café opening hours', 'How do I theme it?', 'Billing question']);
    // From the first thread back to the search: the list's first stop.
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    expect(deepActiveElement()).toBe(searchField());

    const said = spoken(outcome());
    await userEvent.keyboard('xyz');
    expect(deepActiveElement()).toBe(searchField());
    await expect.element(list().getByText('No conversations match “xyz”.')).toBeVisible();
    expect(deepActiveElement()).toBe(searchField());
    // Spoken once, for the query as it settled, not once per key.
    expect(said).toEqual(['No conversations match “xyz”.']);
    expect(searchField().getAttribute('aria-describedby')).toBe(outcome().id);
    await chaiExpect(el).to.be.accessible();

    await userEvent.keyboard('{Escape}');
    expect(searchField().value).toBe('');
    expect(deepActiveElement()).toBe(searchField());
    await expect.element(list()).toBeVisible();
    await expect.poll(() => rowNames()).toHaveLength(3);
    expect(outcome().textContent!.trim()).toBe('');
    await chaiExpect(el).to.be.accessible();

    // On an empty field Escape does what it did: the list over the conversation closes.
    await userEvent.keyboard('{Escape}');
    await expect.element(toggle()).toHaveAttribute('aria-expanded', 'false');
    await expect.poll(() => deepActiveElement()).toBe(toggle().element());
  });

  test('Arrow Down goes to the first match and Arrow Up back; "Clear search" empties the field and keeps the focus there', async ({
    worker,
    backend,
  }) => {
    serveThreads(worker, THREE);
    const el = await alicesConversations(backend);
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    // "es": in one title and in another row's preview.
    await userEvent.keyboard('es');
    await expect.poll(() => rowNames()).toEqual(['How do I theme it?', 'Billing question']);
    await expect.poll(() => outcome().textContent).toContain('Matching conversations: 2');
    await chaiExpect(el).to.be.accessible();

    await userEvent.keyboard('{ArrowDown}');
    expect(deepActiveElement()).toBe(
      list()
        .getByRole('button', { name: /^How do I theme it/ })
        .element(),
    );
    await userEvent.keyboard('{ArrowDown}');
    expect(deepActiveElement()).toBe(
      list()
        .getByRole('button', { name: /^Billing question/ })
        .element(),
    );
    await userEvent.keyboard('{ArrowUp}{ArrowUp}');
    expect(deepActiveElement()).toBe(searchField());

    // The field's own button, the next stop after it.
    await userEvent.keyboard('{Tab}');
    expect(deepActiveElement()).toBe(list().getByRole('button', { name: 'Clear search' }).element());
    await userEvent.keyboard('{Enter}');
    expect(searchField().value).toBe('');
    expect(deepActiveElement()).toBe(searchField());
    await expect.poll(() => rowNames()).toHaveLength(3);
    await expect.element(list().getByRole('button', { name: 'Clear search' })).not.toBeInTheDocument();
  });

  test('when the last match goes, the focus is in the search; closed and opened again, the list has forgotten it and the focus is on its first thread', async ({
    worker,
    backend,
  }) => {
    serveThreads(worker, THREE);
    await alicesConversations(backend);
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    await userEvent.keyboard('billing');
    await expect.poll(() => rowNames()).toEqual(['Billing question']);
    // Tab to the match's Delete (past Clear search, the row, its Rename), Enter, then confirm.
    await userEvent.keyboard('{Tab}{Tab}{Tab}{Tab}');
    expect(deepActiveElement()?.getAttribute('aria-label')).toBe('Delete Billing question');
    await userEvent.keyboard('{Enter}');
    await expect.element(list().getByRole('button', { name: 'Delete', exact: true })).toBeVisible();
    (list().getByRole('button', { name: 'Delete', exact: true }).element() as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    await expect.element(list().getByText('No conversations match “billing”.')).toBeVisible();
    await expect.poll(() => deepActiveElement()).toBe(searchField());

    // Closed with its toggle and opened again: the search is gone with it (decision 541), and
    // the focus goes to the first of the threads left, not a blank scroller.
    (toggle().element() as HTMLElement).click();
    await expect.element(toggle()).toHaveAttribute('aria-expanded', 'false');
    await openConversationsByKeyboard();
    expect(searchField().value).toBe('');
    await expect.poll(() => rowNames()).toEqual(['Café opening hours', 'How do I theme it?']);
    await expect.poll(() => deepActiveElement()?.getAttribute('data-thread')).toBe('th_cafe');
  });

  test('a closed list forgets its search: opened again after its toggle, a chosen thread or the panel closing, it shows every conversation', async ({
    worker,
    backend,
  }) => {
    serveThreads(worker, THREE);
    const el = await alicesConversations(backend);
    const searchFor = async (query: string) => {
      searchField().focus();
      await userEvent.keyboard(query);
      await expect.poll(() => rowNames()).toEqual(['Billing question']);
    };
    const everyConversation = async () => {
      await expect.element(searchbox()).toHaveValue('');
      await expect.element(list().getByRole('button', { name: 'Clear search' })).not.toBeInTheDocument();
      await expect
        .poll(() => rowNames())
        .toEqual(['Café opening hours', 'How do I theme it?', 'Billing question']);
    };

    await searchFor('billing');
    (toggle().element() as HTMLElement).click();
    await expect.element(toggle()).toHaveAttribute('aria-expanded', 'false');
    await openConversationsByKeyboard();
    await everyConversation();

    // A thread chosen from the search: the list over the conversation closes, the search with it.
    await searchFor('invoices');
    (
      list()
        .getByRole('button', { name: /^Billing question/ })
        .element() as HTMLElement
    ).click();
    await expect.element(toggle()).toHaveAttribute('aria-expanded', 'false');
    await openConversationsByKeyboard();
    await everyConversation();

    // The panel closed with the list open in it: opened again, the list is there, unfiltered.
    await searchFor('billing');
    await el.close();
    await el.open();
    await expect.element(list()).toBeVisible();
    await everyConversation();
  });
});

describe('<agent-chat> what the Conversations search matches', () => {
  test("a row's title and its preview, whatever the case and accents", async ({ worker, backend }) => {
    serveThreads(worker, THREE);
    await alicesConversations(backend);
    const box = searchField();
    await userEvent.fill(box, 'CAFE');
    await expect.poll(() => rowNames()).toEqual(['Café opening hours']);
    // Words of the preview, the answer to the title (decision 339).
    await userEvent.fill(box, 'custom properties');
    await expect.poll(() => rowNames()).toEqual(['How do I theme it?']);
    // One word from the title, one from the preview.
    await userEvent.fill(box, 'billing monthly');
    await expect.poll(() => rowNames()).toEqual(['Billing question']);
    await userEvent.fill(box, 'billing weekly');
    await expect.poll(() => rowNames()).toEqual([]);
  });

  test("a site's own words for no match, with or without the query", async ({ worker, backend }) => {
    serveThreads(worker, THREE);
    const el = await alicesConversations(backend);
    el.strings = { noMatches: 'Nothing found for {query}, sorry.' };
    await userEvent.fill(searchField(), 'zebra');
    await expect.element(list().getByText('Nothing found for zebra, sorry.')).toBeVisible();
    el.strings = { noMatches: 'Nothing found.' };
    await userEvent.fill(searchField(), 'zebras');
    await expect.poll(() => outcome().textContent!.trim()).toBe('Nothing found.');
  });

  test('over a list the service pages: five more pages once the query settles, then it says what it has not searched, and Show more searches on', async ({
    worker,
    backend,
  }) => {
    // 140 threads, seven pages; the only "needle" is on the seventh.
    const many = Array.from({ length: 139 }, (_, i) =>
      row(`th_${i}`, `Theme question ${i + 1}`, 'Use tokens.', i),
    );
    const pages = serveThreads(worker, [
      ...many,
      row('th_needle', 'Needle in the haystack', 'Found it.', 200),
    ]);
    const el = await alicesConversations(backend);
    await expect.poll(() => rowNames()).toHaveLength(20);
    await userEvent.keyboard('{Shift>}{Tab}{/Shift}');
    await userEvent.keyboard('needle');
    await expect.element(list().getByText('No conversations match “needle”.')).toBeVisible();
    await expect
      .element(list().getByText('Only the conversations loaded so far are searched.'))
      .toBeVisible();
    expect(pages).toEqual(['0', '20', '40', '60', '80', '100']);
    expect(deepActiveElement()).toBe(searchField());
    await chaiExpect(el).to.be.accessible();

    await userEvent.click(list().getByRole('button', { name: 'Show more' }));
    await expect.poll(() => rowNames()).toEqual(['Needle in the haystack']);
    await expect.poll(() => outcome().textContent).toContain('Matching conversations: 1');
    expect(outcome().textContent).not.toContain('Only the conversations loaded so far');
    expect(pages).toHaveLength(7);
  });
});
