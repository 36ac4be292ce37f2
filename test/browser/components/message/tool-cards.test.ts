/** Tool cards say what will happen before approval, in the visitor's words, and nothing a visitor should not read. */
import { describe, expect, vi } from 'vitest';
import { expect as chaiExpect } from '@open-wc/testing';
import { test } from '../../../msw/test.js';
import { answerRoot, fixtureChat, settled } from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import type { ClientTool } from '../../../../src/public-types.js';

const tool = (extra: Partial<ClientTool> = {}): ClientTool => ({
  name: 'open_page',
  description: 'Opens a page of the site by name.',
  parameters: { type: 'object', properties: { page: { type: 'string' } }, required: ['page'] },
  needsApproval: true,
  execute: () => ({ opened: true }),
  ...extra,
});
const card = (el: AgentChat) => answerRoot(el).querySelector<HTMLElement>('.tool-call');
const button = (root: ParentNode, name: string) =>
  Array.from(root.querySelectorAll('button')).find((b) => b.textContent?.trim() === name);

/** Sends the question and resolves once its card waits for the visitor, with the send's own promise. */
async function untilApproval(
  el: AgentChat,
  question = 'Open the pricing page',
): Promise<{ sent: Promise<boolean> }> {
  const sent = el.send(question);
  await vi.waitFor(() => {
    if (card(el)?.getAttribute('data-state') !== 'awaiting-approval') throw new Error('no card waiting yet');
  });
  await settled(el);
  return { sent };
}

describe('<agent-chat> tool cards', () => {
  test('before approval the card shows the display name and the arguments as a list, no wire name, no typing dots', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.tools = [tool({ displayName: 'Open a page' })];
    const { sent } = await untilApproval(el);
    const shown = card(el)!;
    expect(shown.querySelector('.tool-name')!.textContent).toBe('Open a page');
    const rows = Array.from(shown.querySelectorAll('.tool-args > div')).map((row) => [
      row.querySelector('dt')!.textContent,
      row.querySelector('dd')!.textContent,
    ]);
    expect(rows).toEqual([['Page', 'pricing']]);
    expect(shown.textContent).toContain('Waiting for your approval');
    expect(answerRoot(el).textContent).not.toContain('open_page');
    // The agent is not busy: the visitor is. No typing dots while the card waits.
    expect(answerRoot(el).querySelector('.typing')).toBeNull();
    await chaiExpect(el).to.be.accessible();
    button(shown, 'Deny')!.click();
    await sent;
  });

  test('a tool that declares describe(args) gets its sentence on the card instead of the list', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.tools = [
      tool({ displayName: 'Open a page', describe: ({ page }) => `Open the ${String(page)} page` }),
    ];
    const { sent } = await untilApproval(el);
    expect(card(el)!.querySelector('.tool-name')!.textContent).toBe('Open the pricing page');
    expect(card(el)!.querySelector('.tool-args')).toBeNull();
    // The group keeps the tool's name: that is what Allow and Deny are about.
    expect(card(el)!.querySelector('[role="group"]')!.getAttribute('aria-label')).toBe('Open a page');
    button(card(el)!, 'Deny')!.click();
    await sent;
  });

  test('without a display name the wire name reads as words; a describe that throws leaves the list', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.tools = [
      tool({
        describe: () => {
          throw new Error('oops');
        },
      }),
    ];
    const { sent } = await untilApproval(el);
    expect(card(el)!.querySelector('.tool-name')!.textContent).toBe('Open page');
    expect(card(el)!.querySelector('.tool-args dd')!.textContent).toBe('pricing');
    button(card(el)!, 'Deny')!.click();
    await sent;
  });

  test('after Allow the card says Done with no timing', async ({ backend }) => {
    const el = await fixtureChat();
    el.tools = [tool({ displayName: 'Open a page' })];
    const { sent } = await untilApproval(el);
    button(card(el)!, 'Allow')!.click();
    await sent;
    await settled(el);
    expect(card(el)!.getAttribute('data-state')).toBe('done');
    expect(card(el)!.querySelector('.tool-state')!.textContent).toBe('Done');
    expect(card(el)!.textContent).not.toMatch(/\d\s*(ms|s)\b/);
  });

  test('Regenerate repeats an allowed action only after asking again, and the card says so', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const execute = vi.fn(() => ({ opened: true }));
    el.tools = [tool({ displayName: 'Open a page', execute })];
    const { sent: first } = await untilApproval(el);
    expect(card(el)!.querySelector('.tool-note')).toBeNull(); // a first ask has nothing to explain
    button(card(el)!, 'Allow')!.click();
    await first;
    await settled(el);
    expect(execute).toHaveBeenCalledOnce();

    answerRoot(el).querySelector<HTMLButtonElement>('button[aria-label="Regenerate"]')!.click();
    await vi.waitFor(() => {
      if (card(el)?.getAttribute('data-state') !== 'awaiting-approval')
        throw new Error('not asked again yet');
    });
    await settled(el);
    expect(execute).toHaveBeenCalledOnce();
    expect(card(el)!.querySelector('.tool-note')!.textContent).toBe(
      'You allowed this for the answer before. Regenerating asks again before it runs.',
    );
    button(card(el)!, 'Allow')!.click();
    await vi.waitFor(() => expect(execute).toHaveBeenCalledTimes(2));
  });
});
