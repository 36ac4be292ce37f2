import { describe, expect, it } from 'vitest';
import { fixture, html } from '@open-wc/testing';
import { ContextProvider } from '@lit/context';
import '../../../../src/define.js';
import type { ChatMessage, ConversationSnapshot } from '../../../../src/chat/types.js';
import type { AgentChatMessageList } from '../../../../src/components/message-list/message-list.js';
import { conversationContext } from '../../../../src/context/index.js';

const ANSWER = `## Step\n\nUse **bold**, \`code\` and a [link](https://x.test).\n\n- one\n- two\n\n\`\`\`js\nconst a = 1;\n\`\`\`\n`;

function thread(count: number, prefix = 'm'): ChatMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    role: i % 2 ? 'assistant' : 'user',
    content: i % 2 ? `${ANSWER}Answer ${i}.` : `Question ${i}?`,
    sources: [],
    status: 'complete',
  }));
}

async function showThread(messages: ChatMessage[]) {
  const host = await fixture<HTMLDivElement>(
    html`<div style="height: 600px; display: flex; flex-direction: column"></div>`,
  );
  const provider = new ContextProvider(host, {
    context: conversationContext,
    initialValue: { threadId: 't', messages, streaming: false } satisfies ConversationSnapshot,
  });
  const list = document.createElement('agent-chat-message-list') as AgentChatMessageList;
  host.append(list);
  await list.updateComplete;
  const rendered = () =>
    [...list.shadowRoot!.querySelectorAll('agent-chat-message')].map((m) => m.message!.id);
  return { list, provider, rendered };
}

describe('<agent-chat-message-list> with a long cached thread', () => {
  it('renders the newest messages first and the older ones later, in order', async () => {
    const messages = thread(500);
    const { rendered } = await showThread(messages);
    const first = rendered();
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThanOrEqual(6);
    expect(first.at(-1)).toBe('m499');
    await expect.poll(() => rendered().length, { timeout: 20_000 }).toBe(500);
    expect(rendered()).toEqual(messages.map((m) => m.id));
  });

  it('fills the panel with its first batch, so no gap shows above while older ones come', async () => {
    const { list, rendered } = await showThread(thread(500));
    // Before any idle time: the first batch alone, each message rendered.
    const shown = [...list.shadowRoot!.querySelectorAll('agent-chat-message')];
    await Promise.all(shown.map((m) => m.updateComplete));
    expect(rendered().length).toBeLessThan(500);
    const scroller = list.shadowRoot!.querySelector<HTMLElement>('.scroller')!;
    expect(scroller.clientHeight).toBeGreaterThan(400);
    // Laid out for real: until a frame decides what is on screen, content-visibility sizes
    // messages by their placeholder.
    await new Promise(requestAnimationFrame);
    await new Promise(requestAnimationFrame);
    const extent = shown.at(-1)!.getBoundingClientRect().bottom - shown[0].getBoundingClientRect().top;
    expect(extent).toBeGreaterThanOrEqual(scroller.clientHeight);
  });

  it('starts again from the newest end when another thread is shown', async () => {
    const { provider, list, rendered } = await showThread(thread(300));
    await expect.poll(() => rendered().length, { timeout: 20_000 }).toBe(300);
    provider.setValue({ threadId: 'u', messages: thread(200, 'n'), streaming: false });
    await list.updateComplete;
    expect(rendered().length).toBeLessThanOrEqual(6);
    expect(rendered().at(-1)).toBe('n199');
    await expect.poll(() => rendered().length, { timeout: 20_000 }).toBe(200);
  });

  it('renders a new message at once even while older ones are still coming', async () => {
    const messages = thread(400);
    const { provider, list, rendered } = await showThread(messages);
    const next: ChatMessage = {
      id: 'new',
      role: 'user',
      content: 'One more?',
      sources: [],
      status: 'complete',
    };
    provider.setValue({ threadId: 't', messages: [...messages, next], streaming: false });
    await list.updateComplete;
    expect(rendered().at(-1)).toBe('new');
    expect(rendered().length).toBeLessThan(401);
  });
});
