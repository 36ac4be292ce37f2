/**
 * A public visitor's Conversations by keyboard (wire contract §2b: no site server, sessions
 * without owner, no history on the service): where focus goes and where Tab goes from there.
 */
import { fixture, html } from '@open-wc/testing';
import { expect as chaiExpect } from '@open-wc/testing';
import { afterEach, describe, expect, onTestFinished, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import type { ReferenceBackend } from '../../../msw/reference.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, publicSessionRoutes } from '../../../msw/reference.js';
import {
  deepActiveElement,
  fixtureChat,
  messagesOf,
  openThreadList,
  settled,
  threadListOf,
  threadListTitles,
  threadListToggle,
  openConversationsByKeyboard,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import type { ChatMessage } from '../../../../src/chat/types.js';
import { dumpAllIndexedDb, holdDevice, storedMemory } from '../../../helpers/idb.js';
import he from '../../../../src/i18n/locales/he.js';
import type { Agent } from '../../../../service/index.js';

const NOT_KEPT = 'Your conversations here will be kept on this device only.';

/**
 * A page of a public integration: `base-url`, no session endpoint; a button before it and one
 * after. Inline, two on one page stand for two tabs of the site (a page shows one floating panel).
 */
async function publicPage(mode: 'launcher' | 'inline' = 'launcher'): Promise<AgentChat> {
  const el = await fixture<AgentChat>(
    html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} base-url=${SERVICE_BASE} mode=${mode}></agent-chat>`,
  );
  const button = (text: string) =>
    Object.assign(document.createElement('button'), { type: 'button', textContent: text });
  el.before(button('Before the chat'));
  el.after(button('After the chat'));
  return el;
}

/** What a screen reader would name the focused element: its aria-label, else its words. */
function focusedName(): string {
  const active = deepActiveElement();
  // A thread's button reads its title, then its preview: the title names it.
  return active?.getAttribute('aria-label') ?? active?.textContent?.trim().split('\n')[0] ?? '';
}

/** The names Tab (or Shift+Tab) lands on, `count` presses from where the focus is. */
async function tabStops(count: number, back = false): Promise<string[]> {
  const stops: string[] = [];
  for (let i = 0; i < count; i++) {
    await userEvent.keyboard(back ? '{Shift>}{Tab}{/Shift}' : '{Tab}');
    stops.push(focusedName());
  }
  return stops;
}

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe("<agent-chat> a public visitor's Conversations", () => {
  test('with nothing kept yet, in the floating panel: focus goes to the words that say where conversations are kept, and Tab goes round the panel, never to the page', async () => {
    const el = await publicPage();
    await el.open();

    await openConversationsByKeyboard();
    const words = page.getByText(NOT_KEPT);
    await expect.element(words).toBeVisible();
    await expect.poll(() => deepActiveElement()).toBe(words.element());
    // The conversation it covers is out of reach and the words are no control, so Tab goes on
    // with the panel's first control: the header's, in order, and round again; never to the page.
    expect(await tabStops(5)).toEqual([
      'Conversations',
      'New conversation',
      'Close chat',
      'Conversations',
      'New conversation',
    ]);
    expect(await tabStops(2, true)).toEqual(['Conversations', 'Close chat']);
    await chaiExpect(el).to.be.accessible();

    // Escape closes the list, and the conversation is reachable again.
    await userEvent.keyboard('{Escape}');
    await expect.element(page.getByRole('region', { name: 'Conversations' })).not.toBeInTheDocument();
    expect(focusedName()).toBe('Conversations');
  });

  test('on a phone (a modal panel) the same path stays inside, for a public visitor and a signed-in one alike', async ({
    backend,
  }) => {
    await page.viewport(390, 844);
    const visitor = await publicPage();
    await visitor.open();
    await openConversationsByKeyboard();
    await expect.poll(() => focusedName()).toBe(NOT_KEPT);
    expect(await tabStops(4)).toEqual(['Conversations', 'New conversation', 'Close chat', 'Conversations']);
    await visitor.close();
    visitor.remove();

    // A signed-in visitor's list over the conversation: past its last Delete, back to the top.
    backend.signIn('alice');
    await backend.seed('alice', ['Only thread']);
    const owned = await fixtureChat({ mode: 'launcher', ownerKey: 'key-alice' });
    await owned.open();
    await openConversationsByKeyboard();
    await expect.poll(() => threadListTitles(owned)).toEqual(['Only thread']);
    // On the thread, whether it came before the list opened or while it loaded (decision 515).
    await expect.poll(() => focusedName()).toBe('Only thread');
    expect(await tabStops(3)).toEqual(['Rename Only thread', 'Delete Only thread', 'Conversations']);
    expect(await tabStops(1, true)).toEqual(['Delete Only thread']);
  });

  test('right to left, in the dark theme: the same words have the focus, read right to left, and axe finds nothing', async () => {
    const el = await publicPage();
    el.setAttribute('lang', 'he');
    el.setAttribute('theme', 'dark');
    await vi.waitFor(() => {
      if (el.shadowRoot!.querySelector('#panel')?.getAttribute('lang') !== 'he')
        throw new Error('language not loaded yet');
    });
    await el.open();
    await openConversationsByKeyboard(he.conversations);
    const words = page.getByText(he.noHistoryKept);
    await expect.element(words).toBeVisible();
    await expect.poll(() => deepActiveElement()).toBe(words.element());
    expect((words.element() as HTMLElement).matches(':dir(rtl)')).toBe(true);
    expect(getComputedStyle(words.element()).outlineStyle).toBe('solid');
    expect(await tabStops(2)).toEqual([he.conversations, he.newConversation]);
    await chaiExpect(el).to.be.accessible();
  });
});

/** A reload, as far as the widget can tell: the element goes, a new one on the same page hydrates. */
async function reload(el: AgentChat): Promise<AgentChat> {
  el.remove();
  const next = await publicPage();
  await settled(next);
  return next;
}

/** The question, sent from the composer as a visitor would, and its answer ended. */
async function ask(el: AgentChat, question: string): Promise<void> {
  const before = messagesOf(el).length;
  await userEvent.fill(page.getByRole('textbox', { name: 'Message' }), question);
  await userEvent.click(page.getByRole('button', { name: 'Send' }));
  await expect.poll(() => messagesOf(el).length).toBe(before + 2);
  await expect.poll(() => messagesOf(el).at(-1)?.message?.status, { timeout: 10_000 }).toBe('complete');
}

/**
 * The records of the kept threads not on screen, by thread id (decisions 518, 521): each names
 * its chunks; the thread on screen is the head's, its chunks named there.
 */
async function keptOnDevice(): Promise<string[]> {
  return (await dumpAllIndexedDb()).filter((key) => key.includes(':ui:t:'));
}

const QUESTIONS = ['How do I theme it?', 'Can it speak German?', 'Where are my files kept?'];

/**
 * A public visitor's three conversations, asked from the composer, kept on the device, and the
 * page reloaded. Each test below starts here: one scenario for all of it made some 60 browser
 * actions and four answers, up to 10 s of the 15 s limit on a loaded machine.
 */
async function threeKeptThenReload(backend: ReferenceBackend): Promise<AgentChat> {
  const el = await publicPage();
  await el.open();
  for (const [i, question] of QUESTIONS.entries()) {
    if (i) await userEvent.click(page.getByRole('button', { name: 'New conversation' }));
    await ask(el, question);
  }
  await expect.poll(keptOnDevice).toHaveLength(2);
  expect(backend.chatRequests()).toHaveLength(3);
  return reload(el);
}

describe("<agent-chat> a public visitor's past conversations, kept on their device (decision 518)", () => {
  test('three conversations come back after a reload, newest first, from the device; Tab stays in the list over the conversation', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    const el = await threeKeptThenReload(backend);
    const before = backend.serviceRequests.length;
    await openConversationsByKeyboard();
    await expect.poll(() => threadListTitles(el)).toEqual([...QUESTIONS].reverse());
    // The list and its rows come from the device: the service is not asked (it would answer 403).
    expect(backend.serviceRequests.length).toBe(before);
    await chaiExpect(el).to.be.accessible();
    // The list covers the conversation the reload brought back: Tab goes round the header and
    // the rows, twice over, and never reaches the page (decision 501).
    const stops = await tabStops(24);
    expect(stops.filter((name) => name === 'Conversations').length).toBeGreaterThanOrEqual(2);
    expect(stops).toContain('Where are my files kept?');
    expect(stops).not.toContain('After the chat');
    expect(stops).not.toContain('Before the chat');
  });

  test('after a reload the oldest opens from the device at once and goes on with its thread; Delete forgets one on this device', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    let el = await threeKeptThenReload(backend);
    const before = backend.serviceRequests.length;
    await openConversationsByKeyboard();
    await expect.poll(() => threadListTitles(el)).toEqual([...QUESTIONS].reverse());
    const ids = [...threadListOf(el).shadowRoot!.querySelectorAll<HTMLElement>('li[data-id]')].map(
      (li) => li.dataset.id,
    );

    // The oldest opens at once from the device, and a question in it carries its thread.
    await userEvent.click(page.getByRole('button', { name: /^How do I theme it\?/ }));
    await expect
      .poll(() => messagesOf(el).map((m) => m.message?.content.slice(0, 18)))
      .toEqual(['How do I theme it?', 'Style the widget f']);
    expect(backend.serviceRequests.length).toBe(before);
    await ask(el, 'And in dark mode?');
    const continued = await backend.chatRequests().at(-1)!.clone().json();
    expect(continued.thread_id).toBe(ids[2]);
    expect(messagesOf(el)).toHaveLength(4);

    // Continued, it is the newest; deleted, it is gone from the list and from the device.
    await openConversationsByKeyboard();
    await expect.poll(() => threadListTitles(el)[0]).toBe('How do I theme it?');
    await userEvent.click(page.getByRole('button', { name: 'Delete Can it speak German?' }));
    const confirm = page.getByRole('group', {
      name: 'Delete “Can it speak German?” from this device? This cannot be undone.',
    });
    await expect.element(confirm).toBeVisible();
    await userEvent.click(confirm.getByRole('button', { name: 'Delete' }));
    await expect.poll(() => threadListTitles(el)).toEqual(['How do I theme it?', 'Where are my files kept?']);
    // The one on screen is the head's; the other names its chunks; the deleted one's are gone.
    await expect.poll(keptOnDevice).toHaveLength(1);
    // The list was open: the reload shows it open, from the device.
    el = await reload(el);
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['How do I theme it?', 'Where are my files kept?']);
  });
});

/**
 * Every record the widgets write to IndexedDB from now on, by key, with its size as JSON: what a
 * visitor's device pays for each write.
 */
function countWrites() {
  const writes: { key: string; bytes: number }[] = [];
  const put = IDBObjectStore.prototype.put;
  const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (
    this: IDBObjectStore,
    value: unknown,
    key?: IDBValidKey,
  ) {
    writes.push({
      key: typeof key === 'string' ? key : JSON.stringify(key),
      bytes: JSON.stringify(value).length,
    });
    return put.call(this, value, key);
  });
  return { writes, restore: () => spy.mockRestore() };
}

/** `el`'s question, sent by the page's send(), and its answer (the `count`th) ended and on the device. */
async function answered(el: AgentChat, question: string, count: number): Promise<void> {
  await el.send(question);
  await expect.poll(() => messagesOf(el).at(-1)?.message?.status, { timeout: 10_000 }).toBe('complete');
  const ended = (m: ChatMessage) => m.role === 'assistant' && m.status === 'complete';
  await expect.poll(async () => (await storedMemory())?.messages.filter(ended).length).toBe(count);
}

/** The rows of `el`'s Conversations list, by their buttons' names (the title, then the preview). */
const rowsOf = (el: AgentChat) =>
  page.elementLocator(threadListOf(el)).getByRole('button', { name: /^(How|Can|Where)/ });

describe("<agent-chat> a public visitor's kept conversations across tabs and answers (decisions 521, 522)", () => {
  test('an answer in a 40-message conversation writes its chunk and the list, never the conversation again', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    const el = await publicPage();
    await el.open();
    for (let i = 1; i < 20; i += 1) await answered(el, `How about question ${i}?`, i);
    const counted = countWrites();
    try {
      await answered(el, 'How about the last one?', 20);
      // The answer's end is written once the list has its row bumped: wait for the writes to stop.
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      counted.restore();
    }
    const thread = JSON.stringify((await storedMemory())!.messages).length;
    const bytes = counted.writes.reduce((sum, w) => sum + w.bytes, 0);
    expect(counted.writes.filter((w) => w.key.includes(':ui:t:'))).toEqual([]);
    // The question, the answer as it streamed, its end: each in the last chunk (8 messages), with the head.
    expect(bytes).toBeLessThan(thread);
    console.log(
      'FIGURE',
      bytes,
      thread,
      JSON.stringify(counted.writes.map((w) => [w.key.slice(-12), w.bytes])),
    );
  });

  test('right to left, dark, on a phone: a kept row reads from the right, its Rename and Delete at its left end, and axe finds nothing', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    await page.viewport(390, 844);
    const el = await publicPage();
    el.setAttribute('lang', 'he');
    el.setAttribute('theme', 'dark');
    await vi.waitFor(() => {
      if (el.shadowRoot!.querySelector('#panel')?.getAttribute('lang') !== 'he')
        throw new Error('language not loaded yet');
    });
    await el.open();
    await answered(el, 'איך משנים את הצבעים?', 1);
    el.newConversation();
    // A title in English in a Hebrew list: its question mark stays at its end.
    const title = 'Where are my files kept?';
    await answered(el, title, 1);
    await openConversationsByKeyboard(he.conversations);
    await expect.poll(() => threadListTitles(el)).toEqual([title, 'איך משנים את הצבעים?']);
    const row = page.getByRole('button', { name: new RegExp(`^${title.replace('?', '\\?')}`) });
    const rename = page.getByRole('button', { name: he.renameThread.replace('{title}', title) });
    const remove = page.getByRole('button', { name: he.deleteThread.replace('{title}', title) });
    await expect.element(remove).toBeVisible();
    const [rowBox, renameBox, removeBox] = [row, rename, remove].map((l) =>
      l.element().getBoundingClientRect(),
    );
    expect(removeBox.right).toBeLessThanOrEqual(renameBox.left + 1);
    expect(renameBox.right).toBeLessThanOrEqual(rowBox.left + 1);
    expect(rowBox.right).toBeGreaterThan(380);
    const first = threadListOf(el).shadowRoot!.querySelector('.title')!;
    expect([threadListOf(el).matches(':dir(rtl)'), first.matches(':dir(ltr)')]).toEqual([true, true]);
    await chaiExpect(el).to.be.accessible();
  });

  test("a second tab's Conversations, open, shows the row as the first tab's answer ends", async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    const first = await publicPage('inline');
    // A second tab of the site: the same scope, its own element and channel.
    const second = await publicPage('inline');
    await openThreadList(second);
    await expect.element(page.elementLocator(threadListOf(second)).getByText(NOT_KEPT)).toBeVisible();
    await answered(first, 'How do I theme it?', 1);
    await expect.element(rowsOf(second)).toHaveAccessibleName(/^How do I theme it\?/);
  });

  test('two tabs ending answers in two new conversations at once both keep their row, in both lists and after a reload', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    const tabs = [await publicPage('inline'), await publicPage('inline')];
    const both = ['Can it speak German?', 'How do I theme it?'];
    // The device's list, told to the tabs as it is written: waited for as said, not read again and again.
    const written = deviceWrites((head) => sameTitles(head.threads, both));
    // Both ask before either hears of the other: two threads, their answers ending together.
    await Promise.all([tabs[0].send('How do I theme it?'), tabs[1].send('Can it speak German?')]);
    await written;
    expect((await storedMemory())?.threads.map((t) => t.title).sort()).toEqual(both);
    for (const tab of tabs) {
      await openThreadList(tab);
      await rendered(await listRoot(tab), () => sameTitles(threadListTitles(tab), both));
    }
    tabs[1].remove();
    const again = await reload(tabs[0]);
    await again.open();
    await openThreadList(again);
    await rendered(await listRoot(again), () => sameTitles(threadListTitles(again), both));
    const conversation = again.shadowRoot!.querySelector('agent-chat-message-list')!.shadowRoot!;
    // Each opens from the device with its own question and answer.
    for (const question of both) {
      await userEvent.click(rowsOf(again).filter({ hasText: question }));
      await rendered(conversation, () => messagesOf(again)[0]?.message?.content === question);
      await settled(again);
      expect(messagesOf(again)).toHaveLength(2);
      // The list closes as the chosen thread opens, a moment after its messages show: open it
      // again only once it has closed, or the toggle's click lands before the close.
      await rendered(
        again.shadowRoot!,
        () => threadListToggle(again).getAttribute('aria-expanded') === 'false',
      );
      await openThreadList(again);
    }
  });
});

/** What `el`'s Conversations list renders into, once its element (a part loaded on first use) is defined and drawn. */
async function listRoot(el: AgentChat): Promise<ShadowRoot> {
  await customElements.whenDefined('agent-chat-thread-list');
  await threadListOf(el).updateComplete;
  return threadListOf(el).shadowRoot!;
}

/** Whether `rows` are titled `titles`, in any order. */
const sameTitles = (rows: readonly (string | { title: string })[] | undefined, titles: readonly string[]) =>
  JSON.stringify((rows ?? []).map((row) => (typeof row === 'string' ? row : row.title)).sort()) ===
  JSON.stringify([...titles].sort());

/**
 * Resolves once `done()` holds for what `root` shows: checked now, then at each change under it
 * (a MutationObserver, no timer), so a loaded machine makes it later, never wrong. The test's own
 * timeout is the only ceiling.
 */
function rendered(root: Node, done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (!done()) return;
      observer.disconnect();
      resolve();
    });
    observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
    if (done()) {
      observer.disconnect();
      resolve();
    }
  });
}

/**
 * The first write of the device memory whose head satisfies `done`, as every widget of the origin
 * hears of it: the message its writer posts on their channel once the write has landed.
 */
function deviceWrites(done: (head: { threads?: { title: string }[] }) => boolean): Promise<void> {
  const channel = new BroadcastChannel('agent-chat.ui-state');
  return new Promise((resolve) => {
    channel.onmessage = (event: MessageEvent<{ head?: { threads?: { title: string }[] } }>) => {
      if (!event.data?.head || !done(event.data.head)) return;
      channel.close();
      resolve();
    };
  });
}

describe("<agent-chat> a public visitor's tab closed mid-answer while another tab answers (decisions 521, 522)", () => {
  /** An answer about German takes a while (long enough for its tab to close mid-answer); any other ends at once. */
  const agent: Agent = {
    async *answer({ message, signal }) {
      if (!message.includes('German')) return yield { type: 'text', text: `Answer to ${message}` };
      yield { type: 'text', text: 'Ja, it speaks German, ' };
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)));
      });
      yield { type: 'text', text: 'and 14 other languages.' };
    },
  };
  test.override('backendOptions', { agent });

  test('two tabs race in two new conversations and one closes mid-answer: after a reload each conversation opens whole, and the device keeps nothing its list does not show', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    const tabs = [await publicPage('inline'), await publicPage('inline')];
    // Both ask before either hears of the other; the first one's answer ends, the second's streams.
    void tabs[1].send('Can it speak German?');
    void tabs[0].send('How do I theme it?');
    const answerTo = (el: AgentChat, question: string) => {
      const messages = messagesOf(el).map((m) => m.message);
      const at = messages.findIndex((m) => m?.content === question);
      return at < 0 ? undefined : messages[at + 1];
    };
    await expect
      .poll(() => answerTo(tabs[1], 'Can it speak German?')?.content ?? '', { timeout: 10_000 })
      .toContain('Ja');
    await expect
      .poll(async () => (await storedMemory())?.threads.map((t) => t.title))
      .toContain('How do I theme it?');
    // The second tab closes mid-answer.
    tabs[1].remove();
    const again = await reload(tabs[0]);
    await again.open();
    await openThreadList(again);
    const both = ['Can it speak German?', 'How do I theme it?'];
    // The answer its tab left is taken up again and ends: its conversation is kept too.
    await expect.poll(() => threadListTitles(again).sort(), { timeout: 10_000 }).toEqual(both);
    const ids = () =>
      [...threadListOf(again).shadowRoot!.querySelectorAll<HTMLElement>('li[data-id]')].map(
        (li) => li.dataset.id,
      );
    // Every record on the device is a row's (none left behind by the closed tab).
    await expect
      .poll(async () =>
        (await keptOnDevice()).every((key) => ids().some((id) => key.endsWith(`:ui:t:${id}`))),
      )
      .toBe(true);
    for (const question of both) {
      await userEvent.click(rowsOf(again).filter({ hasText: question }));
      // With the rows beside it: a failure says whether the chosen row left the list (its
      // thread not on the device) or stayed while the conversation did not change.
      await expect
        .poll(() => ({ shown: messagesOf(again)[0]?.message?.content, rows: threadListTitles(again) }))
        .toMatchObject({ shown: question });
      await expect
        .poll(() => messagesOf(again).map((m) => m.message?.status), { timeout: 10_000 })
        .toEqual(['sent', 'complete']);
      await expect.poll(() => threadListToggle(again).getAttribute('aria-expanded')).toBe('false');
      await openThreadList(again);
    }
    expect(answerTo(again, 'How do I theme it?')?.content).toBe('Answer to How do I theme it?');
  });
});

describe('<agent-chat> a conversation chosen while the device still reads it (decision 659)', () => {
  /**
   * Two kept conversations, the page reloaded (inline, the list beside the conversation, so the
   * message box stays in reach), the list open and the device held: the older one chosen now
   * waits on screen for its read, as on a slow device. Returns the chosen thread's id.
   */
  async function chosenWhileHeld(backend: ReferenceBackend) {
    // Wider than the container query's 560px: the list sits beside the conversation.
    const wide = async () => Object.assign(await publicPage('inline'), { style: 'width: 900px' });
    let el = await wide();
    await ask(el, 'How do I theme it?');
    await userEvent.click(page.getByRole('button', { name: 'New conversation' }));
    await ask(el, 'Can it speak German?');
    await expect.poll(keptOnDevice).toHaveLength(1);
    el.remove();
    el = await wide();
    await settled(el);
    await userEvent.click(page.getByRole('button', { name: 'Conversations' }));
    await expect.poll(() => threadListTitles(el)).toEqual(['Can it speak German?', 'How do I theme it?']);
    const older = threadListOf(el).shadowRoot!.querySelectorAll<HTMLElement>('li[data-id]')[1].dataset.id;
    const requests = backend.chatRequests().length;
    const release = await holdDevice();
    onTestFinished(release);
    await userEvent.click(page.getByRole('button', { name: /^How do I theme it\?/ }));
    return { el, older, requests, release };
  }

  test('a question sent at once goes to the chosen conversation, not to the one still on screen', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    const { el, older, requests, release } = await chosenWhileHeld(backend);
    await userEvent.fill(page.getByRole('textbox', { name: 'Message' }), 'And in dark mode?');
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    // It waits for the chosen conversation, in the box, sent nowhere yet.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(backend.chatRequests().length).toBe(requests);
    await expect.element(page.getByRole('textbox', { name: 'Message' })).toHaveValue('And in dark mode?');
    release();
    await expect
      .poll(() => messagesOf(el).map((m) => m.message?.content.slice(0, 18)), { timeout: 10_000 })
      .toEqual(['How do I theme it?', 'Style the widget f', 'And in dark mode?', expect.any(String)]);
    await expect.poll(() => messagesOf(el).at(-1)?.message?.status, { timeout: 10_000 }).toBe('complete');
    const sent = backend.chatRequests().slice(requests);
    expect(sent).toHaveLength(1);
    expect((await sent[0].clone().json()).thread_id).toBe(older);
  });

  test('words typed meanwhile stay in the message box once the chosen conversation shows', async ({
    worker,
    backend,
  }) => {
    worker.use(...publicSessionRoutes(backend));
    const { el, release } = await chosenWhileHeld(backend);
    const box = page.getByRole('textbox', { name: 'Message' });
    await userEvent.fill(box, 'And in dark mode?');
    release();
    await expect.poll(() => messagesOf(el)[0]?.message?.content).toBe('How do I theme it?');
    await settled(el);
    await expect.element(box).toHaveValue('And in dark mode?');
    // The conversation shown before keeps no copy of them.
    await userEvent.click(page.getByRole('button', { name: /^Can it speak German\?/ }));
    await expect.poll(() => messagesOf(el)[0]?.message?.content).toBe('Can it speak German?');
    await expect.element(box).toHaveValue('');
  });
});
