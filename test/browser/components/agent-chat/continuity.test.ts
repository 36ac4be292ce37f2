import { describe, expect } from 'vitest';
import { http } from 'msw';
import { test } from '../../../msw/test.js';
import { cutAfter } from '../../../msw/stream.js';
import { SERVICE_BASE, ownerKeyOf, type ReferenceBackend } from '../../../msw/reference.js';
import { DemoAgent } from '../../../../service/index.js';
import {
  fixtureChat,
  lastAnswerText,
  messagesOf,
  nextAnswerEnd,
  settled,
  threadListOf,
  threadListTitles,
  threadListToggle,
} from '../../../helpers/chat-fixture.js';
import { storedMemory } from '../../../helpers/idb.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

const ALICE = ownerKeyOf('alice');
const CHAT = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;
const QUESTION = 'How do I theme it?';

/** Alice's threads, straight from the service (with the token the widget was given). */
async function threadsOnService(backend: ReferenceBackend): Promise<{ id: string }[]> {
  const response = await backend.service.handle(
    new Request(`${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/threads/`, {
      headers: { Authorization: `Bearer ${backend.issuedTokens[0]}` },
    }),
  );
  return (await response.json()).threads;
}

const answerOf = (el: AgentChat) =>
  messagesOf(el)
    .filter((m) => m.message?.role === 'assistant')
    .at(-1)?.message;
const reattachRequests = (backend: ReferenceBackend) =>
  backend.serviceRequests.filter((r) => /\/answers\/[^/]+\/stream\/$/.test(r.url));

describe('<agent-chat> continuity (§9)', () => {
  // A demo agent that takes a while, so there is an answer in progress to come back to.
  test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 20 }) }));

  test('a page reload in mid-answer reattaches to the same answer, which continues and shows once, without asking again', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat({ ownerKey: ALICE });
    void el.send(QUESTION);
    await expect.poll(() => answerOf(el)?.content.length ?? 0, { timeout: 5000 }).toBeGreaterThan(40);
    const cutAt = answerOf(el)!.content;
    const qa = answerOf(el)!.questionAnswerId;
    expect(qa).toBeTruthy();
    await el.updateComplete;
    // The page goes away (pagehide writes what is on screen); the service keeps generating.
    dispatchEvent(new PageTransitionEvent('pagehide'));
    await expect.poll(async () => (await storedMemory())?.messages.at(-1)?.questionAnswerId).toBe(qa);
    el.remove();

    const again = await fixtureChat({ ownerKey: ALICE });
    const ended = nextAnswerEnd(again);
    expect((await ended).outcome).toBe('complete');
    await settled(again);
    const answer = answerOf(again)!;
    expect(answer.questionAnswerId).toBe(qa);
    expect(answer.content.startsWith(cutAt)).toBe(true);
    expect(answer.content.length).toBeGreaterThan(cutAt.length);
    // Shown once: the opening appears a single time, and there is one question and one answer.
    expect(lastAnswerText(again).match(/Style the widget from your page/g)).toHaveLength(1);
    expect(answer.content.match(/```css/g)).toHaveLength(1);
    expect(messagesOf(again).map((m) => m.message?.role)).toEqual(['user', 'assistant']);
    expect(backend.chatRequests()).toHaveLength(1);
    expect(reattachRequests(backend).length).toBeGreaterThanOrEqual(1);
    // The service agrees: the stored answer is the one on screen.
    expect(await threadsOnService(backend)).toHaveLength(1);
  });

  test('a dropped connection in mid-answer reattaches automatically and the text continues where it was', async ({
    worker,
    backend,
  }) => {
    backend.signIn('alice');
    let broken = false;
    let chats = 0;
    worker.use(
      http.post(CHAT, async ({ request }) => {
        chats++;
        const response = await backend.service.handle(request);
        if (broken) return response;
        broken = true;
        return cutAfter(response, 4);
      }),
    );
    const el = await fixtureChat({ ownerKey: ALICE });
    const ended = nextAnswerEnd(el);
    await el.send(QUESTION);
    expect((await ended).outcome).toBe('complete');
    await settled(el);
    expect(chats).toBe(1);
    expect(reattachRequests(backend)).toHaveLength(1);
    const answer = answerOf(el)!;
    expect(answer.status).toBe('complete');
    expect(answer.content.match(/```css/g)).toHaveLength(1);
    expect(answer.content).toMatch(/^Style the widget from your page/);
  });

  test("Stop calls the reference service's cancel and the answer is stored as stopped", async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat({ ownerKey: ALICE });
    const ended = nextAnswerEnd(el);
    void el.send(QUESTION);
    await expect.poll(() => answerOf(el)?.content.length ?? 0, { timeout: 5000 }).toBeGreaterThan(10);
    el.shadowRoot!.querySelector('agent-chat-composer')!.dispatchEvent(
      new CustomEvent('agent-chat-composer-stop', { bubbles: true }),
    );
    expect((await ended).outcome).toBe('aborted');
    await expect.poll(() => backend.serviceRequests.filter((r) => r.url.endsWith('/cancel/')).length).toBe(1);
  });

  test('the steps line shows live while streaming, keeps its summary after, and comes back when the thread is resumed', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const el = await fixtureChat({ ownerKey: ALICE });
    const ended = nextAnswerEnd(el);
    void el.send(QUESTION);
    const root = () =>
      messagesOf(el)
        .filter((m) => m.message?.role === 'assistant')
        .at(-1)?.shadowRoot;
    await expect
      .poll(() => root()?.querySelector('.steps-toggle')?.textContent ?? '', { timeout: 5000 })
      .toMatch(/Found \d+ articles?/);
    await ended;
    await settled(el);
    // The finished answer keeps its one-line summary; the steps open behind it.
    const toggle = root()!.querySelector<HTMLButtonElement>('.steps-toggle')!;
    expect(toggle.textContent).toMatch(/Found \d+ articles?/);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(root()!.querySelector('.steps')).toBeNull();
    toggle.click();
    await settled(el);
    expect(root()!.querySelector('.steps')!.textContent).toMatch(/Found \d+ articles?/);

    // Resumed from the service on another device: the steps come back with the answer.
    const threadId = (await threadsOnService(backend))[0].id;
    el.remove();
    const other = await fixtureChat({ ownerKey: ALICE });
    other.newConversation();
    // As the visitor does: "Conversations", then the thread.
    threadListToggle(other).click();
    await expect.poll(() => threadListTitles(other)).toHaveLength(1);
    const opened = new Promise<string | null>((resolve) =>
      other.addEventListener('agent-chat-thread-change', (e) => resolve(e.detail.threadId), { once: true }),
    );
    threadListOf(other).shadowRoot!.querySelector<HTMLButtonElement>('button.open')!.click();
    expect(await opened).toBe(threadId);
    await settled(other);
    const resumed = messagesOf(other)
      .filter((m) => m.message?.role === 'assistant')
      .at(-1)!;
    expect(resumed.message!.activity?.map((a) => a.status)).toEqual(['completed']);
    const show = resumed.shadowRoot!.querySelector<HTMLButtonElement>('.steps-toggle')!;
    expect(show.textContent).toMatch(/Found \d+ articles?/);
    show.click();
    await resumed.updateComplete;
    expect(resumed.shadowRoot!.querySelector('.steps')!.textContent).toMatch(/Found \d+ articles?/);
  });
});
