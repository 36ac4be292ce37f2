/** Handoff, the transcript, the outbox (follow-ups, also across a reload, and offline sends), consent, open({query}). */
import { describe, expect, vi } from 'vitest';
import { test } from '../../msw/test.js';
import { ownerKeyOf } from '../../msw/reference.js';
import { DemoAgent, type Agent, type AgentInput } from '../../../service/index.js';
import { dumpAllIndexedDb, storedMemory } from '../../helpers/idb.js';
import {
  fixtureChat,
  messagesOf,
  nextAnswerEnd,
  settled,
  textareaOf,
  typeMessage,
} from '../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../src/components/agent-chat/agent-chat.js';

/** Buttons of the root's own shadow root (the agent bar, header), by accessible name. */
const rootButton = (el: AgentChat, name: string) =>
  Array.from(el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')).find(
    (b) => (b.getAttribute('aria-label') ?? b.textContent?.trim()) === name,
  );
const rootButtons = (el: AgentChat, name: string) =>
  Array.from(el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button')).filter(
    (b) => (b.getAttribute('aria-label') ?? b.textContent?.trim()) === name,
  );

/** An agent that flags its answer as uncertain (metadata.is_uncertain). */
/** Unsure about colours (the answer is flagged uncertain); the demo agent's answers otherwise. */
const unsureOfColours: Agent = {
  async *answer(input: AgentInput) {
    if (!/colour/i.test(input.message)) return yield* new DemoAgent().answer(input);
    yield { type: 'uncertain' };
    yield { type: 'text', text: 'Probably the blue one.' };
  },
};

describe('<agent-chat> handoff', () => {
  test('handoff="always" offers "Talk to a person", fires agent-chat-handoff with the Markdown transcript and opens https with it in the fragment only', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.handoff = 'always';
    el.handoffUrl = 'https://help.example/contact?team=web';
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    try {
      expect(rootButton(el, 'Talk to a person')).toBeUndefined();
      await el.send('How do I theme it?');
      await settled(el);
      const handoff = new Promise<GlobalEventHandlersEventMap['agent-chat-handoff']['detail']>((resolve) =>
        el.addEventListener('agent-chat-handoff', (e) => resolve(e.detail), { once: true }),
      );
      rootButton(el, 'Talk to a person')!.click();
      const detail = await handoff;
      expect(detail.threadId).toMatch(/^th_/);
      expect(detail.transcript).toMatch(/^# How do I theme it\?\n/);
      expect(detail.transcript).toContain('**You**\n\n> How do I theme it?');
      expect(detail.transcript).toContain('**Assistant**\n\n### Theming');
      expect(open).toHaveBeenCalledOnce();
      const url = new URL(open.mock.calls[0][0] as string);
      expect(url.origin + url.pathname).toBe('https://help.example/contact');
      expect(url.search).toBe('?team=web'); // the page's own query stays; the transcript never goes there
      expect(decodeURIComponent(url.hash)).toBe(`#transcript=${detail.transcript}`);
      // The service keeps that this thread asked for a person (the console's Handoff filter).
      await expect
        .poll(async () =>
          (
            await backend.service.storage.conversations.searchThreads(
              'proj_demo',
              { handoff: true },
              { limit: 5 },
            )
          ).map((t) => t.id),
        )
        .toEqual([detail.threadId]);
    } finally {
      open.mockRestore();
    }
  });

  test('a mailto: handoff-url gets a subject and the transcript as the body', async ({ backend }) => {
    const el = await fixtureChat();
    el.handoff = 'always';
    el.handoffUrl = 'mailto:help@example.com';
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    try {
      await el.send('How do I theme it?');
      await settled(el);
      rootButton(el, 'Talk to a person')!.click();
      const href = open.mock.calls[0][0] as string;
      expect(href.startsWith('mailto:help@example.com?subject=')).toBe(true);
      const params = new URLSearchParams(href.slice(href.indexOf('?')));
      expect(params.get('body')).toContain('> How do I theme it?');
      // The service hears of this handoff too.
      await expect
        .poll(() => backend.serviceRequests.filter((r) => r.url.endsWith('/agent/handoff/')).length)
        .toBe(1);
    } finally {
      open.mockRestore();
    }
  });

  describe('with an agent unsure of colours', () => {
    test.override('backendOptions', { agent: unsureOfColours });

    test('handoff="uncertainty" offers it under an uncertain answer only, with the uncertainty callout', async ({
      backend,
    }) => {
      const el = await fixtureChat();
      el.handoff = 'uncertainty';
      await el.send('How do I theme it?');
      await settled(el);
      expect(rootButton(el, 'Talk to a person')).toBeUndefined();

      // A new visitor: two widgets of one scope show one conversation (as two tabs do).
      await el.clearSession();
      el.remove();
      const other = await fixtureChat();
      other.handoff = 'uncertainty';
      await other.send('Which colour?');
      await settled(other);
      const answer = messagesOf(other).at(-1)!;
      expect(answer.shadowRoot!.querySelector('[role="note"]')!.textContent).toContain(
        "I'm not sure this answer is right",
      );
      expect(rootButton(other, 'Talk to a person')).toBeDefined();
      const { expect: chaiExpect } = await import('@open-wc/testing');
      await chaiExpect(other).to.be.accessible();
    });
  });

  test('handoff="downvote" offers it once the answer is marked Not helpful, and not after Helpful', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.handoff = 'downvote';
    await el.send('How do I theme it?');
    await settled(el);
    expect(rootButton(el, 'Talk to a person')).toBeUndefined();
    const answer = messagesOf(el).at(-1)!;
    const press = (name: string) =>
      answer.shadowRoot!.querySelector<HTMLButtonElement>(`button[aria-label="${name}"]`)!.click();
    press('Not helpful');
    await expect.poll(() => rootButton(el, 'Talk to a person')).toBeDefined();
    press('Helpful');
    await expect.poll(() => rootButton(el, 'Talk to a person')).toBeUndefined();
    // Both ratings reach the service, the last one last.
    const feedback = () => backend.serviceRequests.filter((r) => r.url.endsWith('/agent/feedback/'));
    await expect.poll(() => feedback().length).toBe(2);
    expect((await feedback()[1].json()).reaction).toBe('upvote');
  });
});

describe('<agent-chat> transcript, queue, consent, open', () => {
  test('exportTranscript() returns the Markdown that "Download conversation" saves', async ({ backend }) => {
    const el = await fixtureChat();
    await el.send('How do I theme it?');
    await settled(el);
    const markdown = await el.exportTranscript();
    expect(markdown).toContain('> How do I theme it?');
    const saved: Blob[] = [];
    const create = vi
      .spyOn(URL, 'createObjectURL')
      .mockImplementation((blob) => (saved.push(blob as Blob), 'blob:test'));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    try {
      // A secondary action: it lives in the header's "More" menu.
      expect(rootButton(el, 'Download conversation')).toBeUndefined();
      rootButton(el, 'More')!.click();
      await el.updateComplete;
      rootButton(el, 'Download conversation')!.click();
      expect(await saved[0].text()).toBe(markdown);
      expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe('conversation.md');
    } finally {
      create.mockRestore();
      click.mockRestore();
    }
  });

  describe('with a demo agent that writes a word every 10 ms', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 10 }) }));

    test('a follow-up sent while an answer streams shows "Queued" (removable) and is sent once after the answer', async ({
      backend,
    }) => {
      backend.signIn('alice');
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      const first = nextAnswerEnd(el);
      void el.send('How do I theme it?');
      await expect
        .poll(() => el.shadowRoot!.querySelector('agent-chat-composer')!.shadowRoot!.querySelector('.stop'))
        .toBeTruthy();
      await typeMessage(el, 'And events?');
      textareaOf(el).dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }),
      );
      await el.send('A third one');
      await settled(el);
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).toContain('And events?');
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).toContain('Queued');
      // The visitor changes their mind about the third one.
      rootButtons(el, 'Remove queued message')[1].click();
      await settled(el);
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).not.toContain('A third one');
      await first;
      const second = nextAnswerEnd(el);
      await second;
      await settled(el);
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => b.message)).toEqual(['How do I theme it?', 'And events?']);
      expect(el.shadowRoot!.querySelector('.outbox')).toBeNull();
      expect(messagesOf(el).map((m) => m.message?.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    });
  });

  test('with consent-required nothing reaches IndexedDB until grantConsent(); revokeConsent() wipes it', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const opens = vi.spyOn(indexedDB, 'open');
    try {
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice'), consentRequired: true });
      await el.send('How do I theme it?');
      await settled(el);
      dispatchEvent(new PageTransitionEvent('pagehide'));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(opens).not.toHaveBeenCalled();
      opens.mockRestore();
      expect(await dumpAllIndexedDb()).toEqual([]);

      await el.grantConsent();
      await expect.poll(async () => (await dumpAllIndexedDb()).join('\n')).toContain('How do I theme it?');

      await el.revokeConsent();
      await typeMessage(el, 'a draft after revoking');
      dispatchEvent(new PageTransitionEvent('pagehide'));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await dumpAllIndexedDb()).toEqual([]);
    } finally {
      opens.mockRestore();
    }
  });

  test('open({query}) fills the question in; open({query, submit: true}) sends it', async ({ backend }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open({ query: 'How do I install it?' });
    expect(el.opened).toBe(true);
    expect(textareaOf(el).value).toBe('How do I install it?');
    expect(backend.chatRequests()).toHaveLength(0);
    const ended = nextAnswerEnd(el);
    await el.open({ query: 'How do I theme it?', submit: true });
    await ended;
    expect((await backend.chatRequests()[0].clone().json()).message).toBe('How do I theme it?');
  });
});

describe('<agent-chat> queued follow-ups across a reload', () => {
  describe('with a demo agent that writes a word every 10 ms', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 10 }) }));

    test('a queued follow-up survives a reload in mid-answer and is sent once the reattached answer ends', async ({
      backend,
    }) => {
      backend.signIn('alice');
      const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      void el.send('How do I theme it?');
      await expect.poll(() => messagesOf(el).at(-1)?.message?.questionAnswerId).toBeTruthy();
      await el.send('And events?');
      dispatchEvent(new PageTransitionEvent('pagehide'));
      await expect
        .poll(async () => (await storedMemory())?.outbox.map((q) => q.text))
        .toEqual(['And events?']);
      el.remove();

      const again = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
      expect(again.shadowRoot!.querySelector('.outbox')!.textContent).toContain('And events?');
      await expect.poll(() => messagesOf(again).length, { timeout: 8000 }).toBe(4);
      await expect.poll(() => messagesOf(again).at(-1)?.message?.status, { timeout: 8000 }).toBe('complete');
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => b.message)).toEqual(['How do I theme it?', 'And events?']);
    });
  });
});

describe('<agent-chat> outbox', () => {
  test('a message sent offline waits in the outbox ("Waiting for a connection"), is sent once when back online, and can be removed', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const onLine = vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    const realFetch = window.fetch;
    // The network is gone: every request fails as fetch does offline.
    const fetchSpy = vi
      .spyOn(window, 'fetch')
      .mockImplementation(() => Promise.reject(new TypeError('Failed to fetch')));
    try {
      dispatchEvent(new Event('offline'));
      await el.send('Sent while offline');
      await el.send('Also offline, then removed');
      await settled(el);
      // Nothing went: the conversation is empty, the outbox holds both, in order.
      expect(messagesOf(el)).toHaveLength(0);
      const bar = el.shadowRoot!.querySelector('[part="agent-bar"]')!;
      expect(bar.querySelector('[role="status"]')!.textContent).toContain('Waiting for a connection');
      expect(Array.from(bar.querySelectorAll('.outbox li'), (li) => li.textContent)).toEqual([
        expect.stringContaining('Sent while offline'),
        expect.stringContaining('Also offline, then removed'),
      ]);
      rootButtons(el, 'Remove queued message')[1].click();
      await settled(el);
      expect(el.shadowRoot!.querySelector('.outbox')!.textContent).not.toContain('Also offline');
      const { expect: chaiExpect } = await import('@open-wc/testing');
      await chaiExpect(el).to.be.accessible();

      // Back online: sent once, even if the event fires twice.
      fetchSpy.mockImplementation((input, init) => realFetch(input, init));
      onLine.mockReturnValue(true);
      const ended = nextAnswerEnd(el);
      dispatchEvent(new Event('online'));
      dispatchEvent(new Event('online'));
      expect((await ended).outcome).toBe('complete');
      await settled(el);
      const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
      expect(bodies.map((b) => b.message)).toEqual(['Sent while offline']);
      expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
      expect(el.shadowRoot!.querySelector('.outbox')).toBeNull();
    } finally {
      fetchSpy.mockRestore();
      onLine.mockRestore();
    }
  });
});
