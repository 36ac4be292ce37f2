/** "Talk to a person" (`handoff`, `handoff-url`): when it is offered, the event, the transcript it carries. */
import { describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import { DemoAgent, type Agent, type AgentInput } from '../../../../service/index.js';
import { buttonNamed, fixtureChat, messagesOf, settled } from '../../../helpers/chat-fixture.js';
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
      expect(buttonNamed(el.shadowRoot!, 'Talk to a person')).toBeUndefined();
      await el.send('How do I theme it?');
      await settled(el);
      const handoff = new Promise<GlobalEventHandlersEventMap['agent-chat-handoff']['detail']>((resolve) =>
        el.addEventListener('agent-chat-handoff', (e) => resolve(e.detail), { once: true }),
      );
      buttonNamed(el.shadowRoot!, 'Talk to a person')!.click();
      const detail = await handoff;
      expect(detail.threadId).toMatch(/^th_/);
      expect(detail.transcript).toMatch(/^# How do I theme it\?\n/);
      expect(detail.transcript).toContain('**You**\n\n> How do I theme it?');
      expect(detail.transcript).toContain('**Assistant**\n\nStyle the widget from your page');
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
      buttonNamed(el.shadowRoot!, 'Talk to a person')!.click();
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
      expect(buttonNamed(el.shadowRoot!, 'Talk to a person')).toBeUndefined();

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
      expect(buttonNamed(other.shadowRoot!, 'Talk to a person')).toBeDefined();
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
    expect(buttonNamed(el.shadowRoot!, 'Talk to a person')).toBeUndefined();
    const answer = messagesOf(el).at(-1)!;
    const press = (name: string) =>
      answer.shadowRoot!.querySelector<HTMLButtonElement>(`button[aria-label="${name}"]`)!.click();
    press('Not helpful');
    await expect.poll(() => buttonNamed(el.shadowRoot!, 'Talk to a person')).toBeDefined();
    press('Helpful');
    await expect.poll(() => buttonNamed(el.shadowRoot!, 'Talk to a person')).toBeUndefined();
    // Both ratings reach the service, the last one last.
    const feedback = () => backend.serviceRequests.filter((r) => r.url.endsWith('/agent/feedback/'));
    await expect.poll(() => feedback().length).toBe(2);
    expect((await feedback()[1].json()).reaction).toBe('upvote');
  });
});
