import { describe, expect, onTestFinished, vi } from 'vitest';
import { http } from 'msw';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { ownerKeyOf, SERVICE_BASE, type ReferenceBackend } from '../../../msw/reference.js';
import { DemoAgent, type Agent } from '../../../../service/index.js';
import {
  fixtureChat,
  lastAnswerText,
  messagesOf,
  nextAnswerEnd,
  settled,
  threadListTitles,
  threadListToggle,
  textareaOf,
  threadListOf,
  typeMessage,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import { CLAIM_MS } from '../../../../src/chat/outbox.js';
import { INTEGRATION_ID, PROJECT_ID } from '../../../msw/reference.js';
import { storedMemory } from '../../../helpers/idb.js';
import { createStore, get, set } from 'idb-keyval';

const QUESTION = 'How do I theme it?';
const reattaches = (backend: ReferenceBackend) =>
  backend.serviceRequests.filter((r) => r.url.includes('/answers/') && r.url.endsWith('/stream/'));
const answerOf = (el: AgentChat) =>
  messagesOf(el)
    .filter((m) => m.message?.role === 'assistant')
    .at(-1)?.message;

/**
 * Two tabs of one site and owner, as the device sees them: two widgets of the same scope, each
 * with its own session, its own store and its own BroadcastChannel, sharing IndexedDB. An
 * anonymous visitor unless `owner` is given. The service (the `backend` fixture) answers before
 * the tabs open: a signed-in start screen loads its own list at once, and that request (and the
 * session it mints, which the first send then shares) must not go out before the handlers do.
 */
async function twoTabs(backend: ReferenceBackend, owner: string | null = null) {
  backend.signIn(owner);
  const first = await fixtureChat({ ownerKey: ownerKeyOf(owner) });
  const second = await fixtureChat({ ownerKey: ownerKeyOf(owner) });
  await settled(first);
  await settled(second);
  return { first, second };
}

/** Two tabs; the first asks, and while its answer streams the second asks a follow-up. */
async function followUpWhileStreaming(backend: ReferenceBackend) {
  const tabs = await twoTabs(backend);
  void tabs.first.send(QUESTION);
  await expect.poll(() => answerOf(tabs.second)?.status).toBe('streaming');
  await tabs.second.send('And events?');
  return tabs;
}

describe('<agent-chat> in two tabs', () => {
  // Slow enough that an answer is still streaming when the other tab looks.
  test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 15 }) }));

  test('an answer streamed in one tab shows in the other within 1 s, while it streams, with no request of the other', async ({
    backend,
  }) => {
    const { first, second } = await twoTabs(backend);
    const ended = nextAnswerEnd(first);
    const started = performance.now();
    void first.send(QUESTION);
    // The question and the answer as it grows, followed through the device.
    await expect
      .poll(() => messagesOf(second).map((m) => m.message?.role), { timeout: 1000 })
      .toEqual(['user', 'assistant']);
    expect(performance.now() - started).toBeLessThan(1000);
    await expect.poll(() => answerOf(second)?.status).toBe('streaming');
    expect(
      second
        .shadowRoot!.querySelector('agent-chat-composer')!
        .shadowRoot!.querySelector('button[aria-label="Stop"]'),
    ).not.toBeNull();
    await ended;
    await expect.poll(() => answerOf(second)?.status, { timeout: 1000 }).toBe('complete');
    await settled(second);
    expect(lastAnswerText(second)).toBe(lastAnswerText(first));
    expect(answerOf(second)?.content).toBe(answerOf(first)?.content);
    // One chat request (the first tab's) and no reattach: the second tab asked nothing for it.
    expect(backend.chatRequests()).toHaveLength(1);
    expect(reattaches(backend)).toHaveLength(0);
  });

  for (const owner of [null, 'alice'] as const)
    for (const mode of ['inline', 'launcher'] as const)
      test(`both panels open on the start screen (${mode}, ${owner ? 'the same owner-key' : 'anonymous'}): a question asked and answered in one shows in the other within 5 s`, async ({
        backend,
      }) => {
        backend.signIn(owner);
        const first = await fixtureChat({ ownerKey: ownerKeyOf(owner), mode });
        const second = await fixtureChat({ ownerKey: ownerKeyOf(owner), mode });
        if (mode === 'launcher') await Promise.all([first.open(), second.open()]);
        await settled(first);
        await settled(second);
        expect(messagesOf(second)).toHaveLength(0);
        await first.send(QUESTION);
        await settled(first);
        const answered = performance.now();
        await expect.poll(() => answerOf(second)?.status, { timeout: 5000 }).toBe('complete');
        expect(performance.now() - answered).toBeLessThan(5000);
        await settled(second);
        expect(lastAnswerText(second)).toBe(lastAnswerText(first));
      });

  test('a follow-up asked in the other tab while the answer streams is queued and sent once, by the tab that streams', async ({
    backend,
  }) => {
    const { first, second } = await followUpWhileStreaming(backend);
    await expect.poll(() => messagesOf(first).length, { timeout: 8000 }).toBe(4);
    await expect.poll(() => answerOf(first)?.status, { timeout: 8000 }).toBe('complete');
    await expect.poll(() => messagesOf(second).length).toBe(4);
    const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
    expect(bodies.map((b) => b.message)).toEqual([QUESTION, 'And events?']);
  });

  test('a question asked offline, which the other tab shows queued, is sent once when the browser is back online', async ({
    backend,
  }) => {
    const { first, second } = await twoTabs(backend);
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    try {
      dispatchEvent(new Event('offline'));
      await first.send('Sent while offline');
      const queued = (el: AgentChat) => el.shadowRoot!.querySelector('.outbox')?.textContent ?? '';
      await expect.poll(() => queued(second)).toContain('Sent while offline');
      // Back online: both tabs hear it at once, as every tab of a laptop that wakes up does.
      onLine.mockReturnValue(true);
      dispatchEvent(new Event('online'));
      await expect.poll(() => answerOf(first)?.status, { timeout: 8000 }).toBe('complete');
      await expect.poll(() => answerOf(second)?.status, { timeout: 8000 }).toBe('complete');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => b.message)).toEqual(['Sent while offline']);
      expect(messagesOf(first)).toHaveLength(2);
      expect(messagesOf(second)).toHaveLength(2);
    } finally {
      onLine.mockRestore();
    }
  });

  describe('without Web Locks (a page on plain http at a host other than localhost: decision 660)', () => {
    /**
     * Two tabs without `navigator.locks`; the first asks from its message box while the browser
     * is offline and the second shows the question queued; `meanwhile` runs then, before the
     * browser is back online in both tabs at once.
     */
    async function askedOffline(backend: ReferenceBackend, meanwhile: () => Promise<void> = async () => {}) {
      const locks = vi.spyOn(navigator, 'locks', 'get').mockReturnValue(undefined as unknown as LockManager);
      onTestFinished(() => locks.mockRestore());
      const tabs = await twoTabs(backend);
      const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
      onTestFinished(() => onLine.mockRestore());
      dispatchEvent(new Event('offline'));
      const first = page.elementLocator(tabs.first);
      await userEvent.fill(first.getByRole('textbox', { name: 'Message' }), 'Sent while offline');
      await userEvent.click(first.getByRole('button', { name: 'Send' }));
      const queued = (el: AgentChat) => el.shadowRoot!.querySelector('.outbox')?.textContent ?? '';
      await expect.poll(() => queued(tabs.second)).toContain('Sent while offline');
      await meanwhile();
      onLine.mockReturnValue(true);
      dispatchEvent(new Event('online'));
      return tabs;
    }

    const asked = async (backend: ReferenceBackend) =>
      (await Promise.all(backend.chatRequests().map((r) => r.clone().json()))).map((b) => b.message);

    test('a question asked offline is sent once when the browser is back online', async ({ backend }) => {
      const { first, second } = await askedOffline(backend);
      await expect.poll(() => answerOf(first)?.status, { timeout: 8000 }).toBe('complete');
      await expect.poll(() => answerOf(second)?.status, { timeout: 8000 }).toBe('complete');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await asked(backend)).toEqual(['Sent while offline']);
      expect(messagesOf(first)).toHaveLength(2);
      expect(messagesOf(second)).toHaveLength(2);
    });

    test('a tab that claimed it and went away before sending: another sends it, once, after the claim lapsed', async ({
      backend,
    }) => {
      let lapses = 0;
      // The device as a third tab left it: the question claimed a moment ago, not sent.
      const { first, second } = await askedOffline(backend, async () => {
        await expect.poll(async () => (await storedMemory())?.outbox.length).toBe(1);
        const [question] = (await storedMemory())!.outbox;
        lapses = Date.now() + CLAIM_MS - 1000;
        const claim = { [question.id]: { by: 'a tab gone', until: lapses } };
        await set(`${PROJECT_ID}:${INTEGRATION_ID}:ui:claim`, claim, createStore('agent-chat', 'ui-state'));
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(backend.chatRequests()).toHaveLength(0);
      await expect.poll(() => backend.chatRequests().length, { timeout: CLAIM_MS + 3000 }).toBe(1);
      // Not before the claim lapsed, and within one more claim's time after.
      expect(Date.now()).toBeGreaterThanOrEqual(lapses);
      await expect.poll(() => answerOf(first)?.status, { timeout: 8000 }).toBe('complete');
      await expect.poll(() => answerOf(second)?.status, { timeout: 8000 }).toBe('complete');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await asked(backend)).toEqual(['Sent while offline']);
    });

    test('a tab reloaded within its own claim is the same tab: back online, it sends the question at once', async ({
      backend,
    }) => {
      const locks = vi.spyOn(navigator, 'locks', 'get').mockReturnValue(undefined as unknown as LockManager);
      onTestFinished(() => locks.mockRestore());
      const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
      onTestFinished(() => onLine.mockRestore());
      let el = await fixtureChat();
      await settled(el);
      dispatchEvent(new Event('offline'));
      await userEvent.fill(
        page.elementLocator(el).getByRole('textbox', { name: 'Message' }),
        'Sent while offline',
      );
      await userEvent.click(page.elementLocator(el).getByRole('button', { name: 'Send' }));
      await expect.poll(async () => (await storedMemory())?.outbox.length).toBe(1);
      const reload = async () => {
        dispatchEvent(new PageTransitionEvent('pagehide'));
        el.remove();
        el = await fixtureChat();
        await settled(el);
      };
      // Reloaded offline: the load finds the question and claims it for this tab; it cannot go yet.
      await reload();
      const claims = createStore('agent-chat', 'ui-state');
      const key = `${PROJECT_ID}:${INTEGRATION_ID}:ui:claim`;
      await expect.poll(async () => Object.keys((await get(key, claims)) ?? {})).toHaveLength(1);
      const [{ until }] = Object.values((await get(key, claims)) as Record<string, { until: number }>);
      // Reloaded again within that claim, and the network is back.
      await reload();
      onLine.mockReturnValue(true);
      dispatchEvent(new Event('online'));
      // Sent while that claim holds: a tab that took it for another's waited for it to lapse.
      await expect
        .poll(() => backend.chatRequests().length, { timeout: Math.max(0, until - Date.now() - 250) })
        .toBe(1);
      expect(Date.now()).toBeLessThan(until);
      await expect.poll(() => answerOf(el)?.status, { timeout: 8000 }).toBe('complete');
      expect(await asked(backend)).toEqual(['Sent while offline']);
    });
  });

  describe('with an agent whose answer ends when the test says', () => {
    // Opened by the test; an answer that reaches it later goes straight through.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated: Agent = {
      async *answer() {
        yield { type: 'text', text: 'Theming with CSS custom properties: ' };
        await gate;
        yield { type: 'text', text: 'set --agent-chat-color-accent.' };
      },
    };
    test.override('backendOptions', { agent: gated });

    test("a follow-up asked in the other tab just before the answer ends (before that tab's write reaches the streaming one) is sent once", async ({
      backend,
    }) => {
      const { first, second } = await followUpWhileStreaming(backend);
      // The answer ends now, well before the second tab's outbox is written to the device.
      release();
      await expect.poll(() => backend.chatRequests().length, { timeout: 8000 }).toBe(2);
      await expect
        .poll(() => messagesOf(first).map((m) => m.message?.status), { timeout: 8000 })
        .toEqual(['sent', 'complete', 'sent', 'complete']);
      await expect.poll(() => messagesOf(second).length).toBe(4);
      // Exactly once, whichever tab sent it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => b.message)).toEqual([QUESTION, 'And events?']);
      expect(first.shadowRoot!.querySelector('.outbox')).toBeNull();
      expect(second.shadowRoot!.querySelector('.outbox')).toBeNull();
    });
  });

  test('a tab opened while another is still sending a question (a slow network) shows it sending, not "Not sent"', async ({
    backend,
    worker,
  }) => {
    // The service takes its time to answer the request: "Sending…" lasts, as on slow 3G.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    worker.use(
      http.post(`${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`, async () => {
        await gate;
      }),
    );
    backend.signIn(null);
    const first = await fixtureChat({ ownerKey: ownerKeyOf(null) });
    await settled(first);
    void first.send(QUESTION);
    await expect
      .poll(async () => (await storedMemory())?.messages?.map((m) => m.status))
      .toEqual(['sending']);
    const second = await fixtureChat({ ownerKey: ownerKeyOf(null) });
    await settled(second);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(messagesOf(second).map((m) => m.message?.status)).toEqual(['sending']);
    release();
    await expect.poll(() => answerOf(second)?.status, { timeout: 8000 }).toBe('complete');
    expect(backend.chatRequests()).toHaveLength(1);
  });

  test('a tab opened while another is sending a follow-up shows the end of the conversation, the question not held at its top', async ({
    backend,
    worker,
  }) => {
    backend.signIn(null);
    const first = await fixtureChat({ ownerKey: ownerKeyOf(null) });
    await settled(first);
    await first.send(QUESTION);
    // The follow-up's request takes its time: the first tab is still sending it.
    worker.use(
      http.post(
        `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/chat/`,
        () => new Promise<never>(() => {}),
      ),
    );
    void first.send('And events?');
    await expect
      .poll(async () => (await storedMemory())?.messages?.map((m) => m.status).at(-1))
      .toBe('sending');
    const second = await fixtureChat({ ownerKey: ownerKeyOf(null) });
    second.style.setProperty('--agent-chat-panel-height', '420px');
    await settled(second);
    await expect.poll(() => messagesOf(second).length).toBe(3);
    await settled(second);
    const list = second.shadowRoot!.querySelector('agent-chat-message-list')!;
    const scroller = list.shadowRoot!.querySelector<HTMLElement>('.scroller')!;
    const room = scroller.querySelector<HTMLElement>('.room')!;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(room.offsetHeight).toBe(0);
    expect(scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight).toBeLessThan(2);
  });

  test('the tab that streams goes away mid-answer: the other takes the answer over (§9) and shows it once', async ({
    backend,
  }) => {
    const { first, second } = await twoTabs(backend);
    void first.send(QUESTION);
    await expect.poll(() => answerOf(second)?.content.length ?? 0).toBeGreaterThan(20);
    first.remove();
    const ended = await nextAnswerEnd(second);
    expect(ended.outcome).toBe('complete');
    await settled(second);
    expect(lastAnswerText(second).match(/Style the widget from your page/g)).toHaveLength(1);
    expect(backend.chatRequests()).toHaveLength(1);
    expect(reattaches(backend)).toHaveLength(1);
  });

  describe('with an agent that answers at once', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 0 }) }));

    test('a thread renamed or deleted in one tab changes in the other', async ({ backend }) => {
      const { first, second } = await twoTabs(backend, 'alice');
      const [, theme] = await backend.seed('alice', ['Billing question', 'Theme question']);
      threadListToggle(first).click();
      await expect.poll(() => threadListTitles(first)).toEqual(['Theme question', 'Billing question']);
      await expect.poll(() => threadListTitles(second)).toEqual(['Theme question', 'Billing question']);
      const before = backend.serviceRequests.length;

      const rename = Array.from(threadListOf(first).shadowRoot!.querySelectorAll<HTMLElement>('button')).find(
        (b) => b.getAttribute('aria-label') === 'Rename Billing question',
      )!;
      rename.click();
      await threadListOf(first).updateComplete;
      const field = Array.from(
        threadListOf(first).shadowRoot!.querySelectorAll<HTMLInputElement>('input'),
      ).find((i) => i.getAttribute('aria-label') === 'Conversation title')!;
      await userEvent.fill(field, 'Invoices');
      await userEvent.keyboard('{Enter}');
      await expect.poll(() => threadListTitles(first)).toEqual(['Theme question', 'Invoices']);
      await expect.poll(() => threadListTitles(second)).toEqual(['Theme question', 'Invoices']);
      threadListOf(first).dispatchEvent(
        new CustomEvent('agent-chat-thread-list-delete', {
          detail: { threadId: theme },
          bubbles: true,
          composed: true,
        }),
      );
      await expect.poll(() => threadListTitles(second)).toEqual(['Invoices']);
      // The first tab's two calls, nothing from the second.
      expect(backend.serviceRequests.slice(before).map((r) => r.method)).toEqual(['PATCH', 'DELETE']);
    });

    test('clearSession() in one tab wipes every tab: conversation, draft, list', async ({ backend }) => {
      const { first, second } = await twoTabs(backend);
      await first.send(QUESTION);
      await typeMessage(first, 'a private draft');
      await expect.poll(() => messagesOf(second).length).toBe(2);
      await expect.poll(() => textareaOf(second).value).toBe('a private draft');
      await first.clearSession();
      await expect.poll(() => messagesOf(second).length).toBe(0);
      await settled(second);
      expect(textareaOf(second).value).toBe('');
      expect(messagesOf(first)).toHaveLength(0);
    });

    test('an owner change in one tab wipes what every tab shows', async ({ backend }) => {
      const { first, second } = await twoTabs(backend, 'alice');
      await first.send('Alice private question');
      await expect.poll(() => messagesOf(second).length).toBe(2);
      backend.signIn('bob');
      first.ownerKey = ownerKeyOf('bob');
      await expect.poll(() => messagesOf(first).length).toBe(0);
      await expect.poll(() => messagesOf(second).length).toBe(0);
      // The site signed Bob in (every tab shares its cookies): the other tab shows Bob's
      // conversation once its own session says Bob is here, and never Alice's again.
      await first.send('Bob question');
      await expect
        .poll(() =>
          messagesOf(second)
            .map((m) => m.message?.content)
            .join(' '),
        )
        .toContain('Bob question');
      expect(
        messagesOf(second)
          .map((m) => m.message?.content)
          .join(' '),
      ).not.toContain('Alice');
    });
  });
});
