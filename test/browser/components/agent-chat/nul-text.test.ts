/**
 * Text a visitor pastes may hold a NUL (U+0000), which they cannot see and the service refuses
 * (decision 759): the widget sends their words without it (801), through the reference service.
 */
import { describe, expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import {
  answerRoot,
  fixtureChat,
  lastAnswerText,
  messagesOf,
  openThreadList,
  settled,
  textareaOf,
  threadListTitles,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';

/** What a paste from a PDF or a terminal leaves in a field: the words, and a NUL among them. */
const PASTED = 'How do I\u0000 theme it?';

/** Sets a field's value as a paste does, through the input event. */
function paste(field: HTMLInputElement | HTMLTextAreaElement, text: string): void {
  field.value = text;
  field.dispatchEvent(
    new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertFromPaste' }),
  );
}

/** Collects the widget's `agent-chat-error` events. */
function errorsOf(el: AgentChat): string[] {
  const errors: string[] = [];
  el.addEventListener('agent-chat-error', (e) => errors.push(e.detail.message));
  return errors;
}

describe('<agent-chat> sends pasted text without its NUL', () => {
  test('a question from the composer goes without it, and the answer comes', async ({ backend }) => {
    const el = await fixtureChat();
    const errors = errorsOf(el);
    await el.updateComplete;
    paste(textareaOf(el), PASTED);
    await userEvent.click(page.getByRole('button', { name: 'Send' }));
    await expect.poll(() => lastAnswerText(el)).not.toBe('');
    await settled(el);
    const [chat] = backend.chatRequests();
    expect((await chat.clone().json()).message).toBe('How do I theme it?');
    expect(messagesOf(el).map((m) => m.message?.status)).not.toContain('failed');
    expect(errors).toEqual([]);
  });

  test("a downvote's words go without it, and the service takes them", async ({ backend }) => {
    const el = await fixtureChat();
    const errors = errorsOf(el);
    await el.send('How do I theme it?');
    await settled(el);
    await userEvent.click(page.getByRole('button', { name: 'Not helpful' }));
    const details = page.getByRole('textbox', { name: 'Tell us more (optional)' });
    paste(details.element() as HTMLTextAreaElement, 'Wrong\u0000 colour');
    await userEvent.click(page.getByRole('button', { name: 'Send feedback' }));
    const feedback = () => backend.serviceRequests.filter((r) => r.url.endsWith('/feedback/'));
    await expect.poll(() => feedback().length).toBe(2);
    const withReasons = await feedback()[1].clone().json();
    expect(withReasons.comment.issue).toBe('Wrong colour');
    // The service took it: no error, and the answer keeps its rating.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(errors).toEqual([]);
    expect(answerRoot(el).querySelector('[aria-label="Not helpful"]')!.getAttribute('aria-pressed')).toBe(
      'true',
    );
  });

  test('a new title goes without it, and the list shows it', async ({ backend }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['How do I theme it?']);
    const el = await fixtureChat();
    const errors = errorsOf(el);
    await openThreadList(el);
    await expect.poll(() => threadListTitles(el)).toEqual(['How do I theme it?']);
    await userEvent.click(page.getByRole('button', { name: 'Rename How do I theme it?' }));
    const field = page.getByRole('textbox', { name: 'Conversation title' });
    paste(field.element() as HTMLInputElement, 'Theming\u0000 notes');
    await userEvent.keyboard('{Enter}');
    await expect.poll(() => threadListTitles(el)).toEqual(['Theming notes']);
    const patch = backend.serviceRequests.find((r) => r.method === 'PATCH')!;
    expect(await patch.clone().json()).toEqual({ title: 'Theming notes' });
    expect(errors).toEqual([]);
  });
});
