import { describe, expect, vi } from 'vitest';
import { userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { DemoAgent, type Agent } from '../../../../service/index.js';
import {
  composerOf,
  deepActiveElement,
  fixtureChat,
  messagesOf,
  nextAnswerEnd,
  settled,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const answerOf = (el: AgentChat) =>
  messagesOf(el)
    .filter((m) => m.message?.role === 'assistant')
    .at(-1);
const actionNames = (el: AgentChat) =>
  Array.from(answerOf(el)?.shadowRoot?.querySelectorAll('.actions button') ?? []).map((b) =>
    b.getAttribute('aria-label'),
  );

describe('<agent-chat> Stop', () => {
  describe('with a demo agent that writes a word every 25 ms', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 25 }) }));

    test('Stop cancels the answer on the service (§9) and aborts its own request; the stopped answer keeps Copy answer and Regenerate', async ({
      backend,
    }) => {
      // What the widget asks of the network, in order, and the chat request's own signal.
      const seen: string[] = [];
      let chatSignal: AbortSignal | undefined;
      const realFetch = globalThis.fetch;
      const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        if (url.endsWith('/agent/chat/') && !chatSignal) {
          chatSignal = init?.signal ?? undefined;
          chatSignal?.addEventListener('abort', () => seen.push('chat aborted'));
        }
        if (url.endsWith('/cancel/')) seen.push('cancel');
        return realFetch(input, init);
      });
      try {
        const el = await fixtureChat();
        const ended = nextAnswerEnd(el);
        void el.send('How do I theme it?');
        await expect
          .poll(() => answerOf(el)?.message?.content.length ?? 0, { timeout: 5000 })
          .toBeGreaterThan(10);
        const stop =
          composerOf(el).shadowRoot!.querySelector<HTMLButtonElement>('button[aria-label="Stop"]')!;
        stop.click();
        expect((await ended).outcome).toBe('aborted');
        // Both, whichever reaches the network first (the cancel waits for the session token).
        await expect.poll(() => [...seen].sort()).toEqual(['cancel', 'chat aborted']);
        expect(chatSignal?.aborted).toBe(true);
        await expect
          .poll(() => backend.serviceRequests.filter((r) => r.url.endsWith('/cancel/')).length)
          .toBe(1);
        await settled(el);
        expect(answerOf(el)?.message?.status).toBe('stopped');
        expect(actionNames(el)).toEqual(['Copy answer', 'Regenerate']);

        // Regenerate asks the question again and replaces the stopped answer.
        const again = nextAnswerEnd(el);
        answerOf(el)!
          .shadowRoot!.querySelector<HTMLButtonElement>('button[aria-label="Regenerate"]')!
          .click();
        expect((await again).outcome).toBe('complete');
        await settled(el);
        expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
        const bodies = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
        expect(bodies.map((b) => b.message)).toEqual(['How do I theme it?', 'How do I theme it?']);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('with an agent that thinks for 3 s before its first word', () => {
    const slow: Agent = {
      async *answer() {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        yield { type: 'text', text: 'Too late.' };
      },
    };
    test.override('backendOptions', { agent: slow });

    test('a stopped answer with no text yet offers Regenerate only', async ({ backend }) => {
      const el = await fixtureChat();
      const ended = nextAnswerEnd(el);
      void el.send('How do I theme it?');
      await expect.poll(() => answerOf(el)?.message?.status).toBe('streaming');
      composerOf(el).shadowRoot!.querySelector<HTMLButtonElement>('button[aria-label="Stop"]')!.click();
      await ended;
      await settled(el);
      expect(answerOf(el)?.message?.content).toBe('');
      expect(actionNames(el)).toEqual(['Regenerate']);
    });
  });

  describe('with a slow answer (a word every 500 ms)', () => {
    test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 500 }) }));

    for (const how of ['mouse', 'keyboard'] as const)
      test(`Stop by ${how}: the request is aborted within 3 s and the focus stays on the composer's button, now Send`, async ({
        backend,
      }) => {
        let chatSignal: AbortSignal | undefined;
        const realFetch = globalThis.fetch;
        const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
          const url = String(input instanceof Request ? input.url : input);
          if (url.endsWith('/agent/chat/')) chatSignal = init?.signal ?? undefined;
          return realFetch(input, init);
        });
        try {
          const el = await fixtureChat();
          void el.send('How do I theme it?');
          await expect.poll(() => answerOf(el)?.message?.content.length ?? 0).toBeGreaterThan(0);
          const button = composerOf(el).shadowRoot!.querySelector<HTMLButtonElement>('[part="send-button"]')!;
          expect(button.getAttribute('aria-label')).toBe('Stop');
          const stoppedAt = performance.now();
          if (how === 'mouse') await userEvent.click(button);
          else {
            button.focus();
            await userEvent.keyboard('{Enter}');
          }
          await expect.poll(() => chatSignal?.aborted, { timeout: 3000 }).toBe(true);
          expect(performance.now() - stoppedAt).toBeLessThan(3000);
          await expect.poll(() => answerOf(el)?.message?.status).toBe('stopped');
          await settled(el);
          expect(deepActiveElement()).toBe(button);
          expect(button.getAttribute('aria-label')).toBe('Send');
          // The cancel (§9) waits for the session token, so it may reach the service after the abort.
          await expect
            .poll(() => backend.serviceRequests.filter((r) => r.url.endsWith('/cancel/')).length)
            .toBe(1);
        } finally {
          spy.mockRestore();
        }
      });
  });
});
