/**
 * What a screen reader hears of an answer through the chat's one polite live region (decision
 * 712): that the chat is thinking, once, when a question is sent; that it waits for the
 * visitor when a tool asks for approval; the finished answer once; nothing per token.
 */
import { describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import { DemoAgent } from '../../../../service/index.js';
import { answerRoot, fixtureChat, nextAnswerEnd } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

/** Every text the chat's polite live region took, in order. */
function heard(el: AgentChat): string[] {
  const region = el.shadowRoot!.querySelector('[role="status"][aria-live="polite"]')!;
  const said: string[] = [];
  new MutationObserver(() => {
    const text = region.textContent?.trim() ?? '';
    if (text && text !== said.at(-1)) said.push(text);
  }).observe(region, { childList: true, subtree: true, characterData: true });
  return said;
}

describe('<agent-chat> an answer as a screen reader hears it', () => {
  test.override('backendOptions', () => ({ agent: new DemoAgent({ wordDelayMs: 25 }) }));

  test('"Thinking…" once when the question goes, then the finished answer once', async ({ backend }) => {
    const el = await fixtureChat();
    const said = heard(el);
    const ended = nextAnswerEnd(el);
    void el.send('events');
    await expect.poll(() => said).toEqual(['Thinking…']);
    await ended;
    await expect.poll(() => said.length).toBe(2);
    expect(said[1]).toMatch(/^Every event is named agent-chat/);
  });

  test('a tool that waits for Allow or Deny is said, with what it will do', async ({ backend }) => {
    const el = await fixtureChat();
    el.tools = [
      {
        name: 'open_page',
        displayName: 'Open a page',
        description: 'Opens a page of the site by name.',
        parameters: { type: 'object', properties: { page: { type: 'string' } }, required: ['page'] },
        needsApproval: true,
        describe: ({ page }) => `Open the ${String(page)} page`,
        execute: vi.fn(async () => ({ opened: true })),
      },
    ];
    const said = heard(el);
    void el.send('Open the pricing page');
    await vi.waitFor(() => {
      if (!answerRoot(el).querySelector('[role="group"][aria-label="Open a page"]'))
        throw new Error('no card');
    });
    await expect.poll(() => said.at(-1)).toBe('Open the pricing page: Waiting for your approval');
    el.newConversation();
  });
});
