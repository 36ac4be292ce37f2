import { describe, expect, vi } from 'vitest';
import { test } from '../../../msw/test.js';
import {
  answerRoot,
  fixtureChat,
  lastAnswerText,
  messagesOf,
  settled,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import type { ClientTool } from '../../../../src/public-types.js';

const openPage = (execute: ClientTool['execute'], needsApproval = true): ClientTool => ({
  name: 'open_page',
  displayName: 'Open a page',
  description: 'Opens a page of the site by name.',
  parameters: { type: 'object', properties: { page: { type: 'string' } }, required: ['page'] },
  execute,
  needsApproval,
});

/** The approval group of a tool call, found by role and name, once it shows. */
async function approvalGroup(el: AgentChat, name: string): Promise<HTMLElement> {
  await vi.waitFor(() => {
    if (!answerRoot(el).querySelector(`[role="group"][aria-label="${name}"]`))
      throw new Error('no approval yet');
  });
  return answerRoot(el).querySelector<HTMLElement>(`[role="group"][aria-label="${name}"]`)!;
}

const button = (root: ParentNode, name: string) =>
  Array.from(root.querySelectorAll('button')).find((b) => b.textContent?.trim() === name)!;

describe('<agent-chat> client-side tools (§7)', () => {
  test('a tool round with approval: Allow runs the tool and the same answer continues with its result', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const execute = vi.fn(async ({ page }: Record<string, unknown>) => ({ opened: `/${String(page)}` }));
    el.tools = [openPage(execute)];
    const events: string[] = [];
    el.addEventListener('agent-chat-tool-call', (e) =>
      events.push(`call:${e.detail.name}:${JSON.stringify(e.detail.arguments)}`),
    );
    el.addEventListener('agent-chat-tool-result', (e) => events.push(`result:${e.detail.status}`));
    const sent = el.send('Open the pricing page');
    const group = await approvalGroup(el, 'Open a page');
    expect(execute).not.toHaveBeenCalled();
    expect(answerRoot(el).textContent).toContain('Waiting for your approval');
    button(group, 'Allow').focus();
    button(group, 'Allow').click();
    await sent;
    await settled(el);
    expect(execute).toHaveBeenCalledOnce();
    expect(events).toEqual(['call:open_page:{"page":"pricing"}', 'result:done']);
    expect(lastAnswerText(el)).toContain('I opened the pricing page.');
    expect(lastAnswerText(el)).not.toContain('open_page');
    // One answer, one card, done, with no timing in it; no second assistant message.
    expect(messagesOf(el).map((m) => m.message?.role)).toEqual(['user', 'assistant']);
    const card = answerRoot(el).querySelector('.tool-call')!;
    expect(card.getAttribute('data-state')).toBe('done');
    expect(card.textContent).toContain('Done');
    expect(card.textContent).not.toMatch(/\d\s*(ms|s)\b/);
    const [first, second] = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual(['open_page']);
    expect(second.message).toBeUndefined();
    expect(second.tool_results).toEqual([
      { tool_call_id: expect.stringMatching(/^call_/), output: { opened: '/pricing' } },
    ]);
    expect(second.thread_id).toBe(first.thread_id ?? second.thread_id);
  });

  test('a tool round with denial: Deny sends the refusal and the answer says so', async ({ backend }) => {
    const el = await fixtureChat();
    const execute = vi.fn();
    el.tools = [openPage(execute)];
    const results: string[] = [];
    el.addEventListener('agent-chat-tool-result', (e) => results.push(e.detail.status));
    const sent = el.send('Open the pricing page');
    button(await approvalGroup(el, 'Open a page'), 'Deny').click();
    await sent;
    await settled(el);
    expect(execute).not.toHaveBeenCalled();
    expect(results).toEqual(['denied']);
    expect(lastAnswerText(el)).toContain("OK, I won't open the pricing page.");
    expect(answerRoot(el).querySelector('.tool-call')!.getAttribute('data-state')).toBe('denied');
    const second = await backend.chatRequests()[1].clone().json();
    expect(second.tool_results).toEqual([
      { tool_call_id: expect.any(String), error: 'denied by the visitor' },
    ]);
  });

  test('a throwing tool becomes an error result and the answer still ends', async ({ backend }) => {
    const el = await fixtureChat();
    el.tools = [
      openPage(() => {
        throw new Error('no such page');
      }, false),
    ];
    await el.send('Open the pricing page');
    await settled(el);
    expect(lastAnswerText(el)).toContain("I couldn't open the pricing page: no such page.");
    expect(answerRoot(el).querySelector('.tool-call')!.getAttribute('data-state')).toBe('error');
  });

  test('the approval state is accessible', async ({ backend }) => {
    const el = await fixtureChat();
    el.tools = [openPage(() => 'ok')];
    const sent = el.send('Open the pricing page');
    const group = await approvalGroup(el, 'Open a page');
    const { expect: chaiExpect } = await import('@open-wc/testing');
    await chaiExpect(el).to.be.accessible();
    button(group, 'Allow').click();
    await sent;
  });
});
