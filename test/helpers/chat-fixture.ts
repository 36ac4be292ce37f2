import { expect } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { fixture, html } from '@open-wc/testing';
import { ifDefined } from 'lit/directives/if-defined.js';
import '../../src/define.js';
import type { AgentChat } from '../../src/components/agent-chat/agent-chat.js';
import type { AgentChatComposer } from '../../src/components/composer/composer.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../msw/reference.js';

export interface ChatFixtureOptions {
  mode?: 'launcher' | 'inline';
  theme?: 'light' | 'dark' | 'auto';
  prompts?: string;
  /** The page's `owner-key` attribute (see ownerKeyOf in test/msw/reference.ts). */
  ownerKey?: string;
  /** Sets `consent-required`. */
  consentRequired?: boolean;
}

/** `<agent-chat>` wired to the reference backend behind msw (see test/msw/reference.ts). */
export async function fixtureChat(options: ChatFixtureOptions = {}): Promise<AgentChat> {
  return fixture<AgentChat>(html`<agent-chat
    project-id=${PROJECT_ID}
    integration-id=${INTEGRATION_ID}
    session-endpoint=${SESSION_ENDPOINT}
    base-url=${SERVICE_BASE}
    mode=${options.mode ?? 'inline'}
    theme=${options.theme ?? 'light'}
    prompts=${options.prompts ?? ''}
    owner-key=${ifDefined(options.ownerKey)}
    ?consent-required=${options.consentRequired ?? false}
  ></agent-chat>`);
}

/** Every element under `root`, through nested shadow roots. */
export function deepElements(root: Element | ShadowRoot | Document): Element[] {
  const out: Element[] = [];
  const walk = (node: Element | ShadowRoot | Document) => {
    for (const child of Array.from(node.children)) {
      out.push(child);
      if (child.shadowRoot) walk(child.shadowRoot);
      walk(child);
    }
  };
  walk(root);
  return out;
}

export function deepQuery<T extends Element = HTMLElement>(root: Element, selector: string): T | undefined {
  return deepElements(root.shadowRoot ?? root).find((el) => el.matches(selector)) as T | undefined;
}

/**
 * What the widget's polite live regions (`role="status"`, `aria-live="polite"`) hold now, each
 * region's words trimmed, the empty ones left out: what a screen reader says without moving.
 */
export function politeWords(el: Element): string[] {
  return deepElements(el.shadowRoot ?? el)
    .filter((e) => e.getAttribute('role') === 'status' || e.getAttribute('aria-live') === 'polite')
    .map((e) => e.textContent?.trim() ?? '')
    .filter(Boolean);
}

export function deepActiveElement(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

export function composerOf(el: AgentChat): AgentChatComposer {
  return el.shadowRoot!.querySelector('agent-chat-composer')!;
}

export function textareaOf(el: AgentChat): HTMLTextAreaElement {
  return composerOf(el).shadowRoot!.querySelector('textarea')!;
}

/** Types into the composer as a visitor would, through the input event. */
export async function typeMessage(el: AgentChat, text: string): Promise<void> {
  const textarea = textareaOf(el);
  textarea.value = text;
  textarea.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
  await el.updateComplete;
}

export function messagesOf(el: AgentChat) {
  const list = el.shadowRoot!.querySelector('agent-chat-message-list')!;
  return Array.from(list.shadowRoot!.querySelectorAll('agent-chat-message'));
}

export function lastAnswerText(el: AgentChat): string {
  const answer = messagesOf(el)
    .filter((m) => m.message?.role === 'assistant')
    .at(-1);
  return answer?.shadowRoot?.querySelector('.content')?.textContent?.trim() ?? '';
}

/** Resolves with the next answer-end detail. */
export function nextAnswerEnd(el: AgentChat) {
  return new Promise<GlobalEventHandlersEventMap['agent-chat-answer-end']['detail']>((resolve) =>
    el.addEventListener('agent-chat-answer-end', (e) => resolve(e.detail), { once: true }),
  );
}

/** Waits until the root, the list and every message have rendered the latest state. */
export async function settled(el: AgentChat): Promise<void> {
  await el.updateComplete;
  const list = el.shadowRoot!.querySelector('agent-chat-message-list')!;
  await list.updateComplete;
  await Promise.all(messagesOf(el).map((m) => m.updateComplete));
}

export function threadListOf(el: AgentChat) {
  return el.shadowRoot!.querySelector('agent-chat-thread-list')!;
}

/** Titles shown in the thread list, in order (none before its element has loaded: decision 341). */
export function threadListTitles(el: AgentChat): string[] {
  const root = threadListOf(el).shadowRoot;
  return root ? Array.from(root.querySelectorAll('.title')).map((t) => t.textContent ?? '') : [];
}

/** The start screen's Recent conversations, as [title, preview or time] per row. */
export function recentConversations(el: AgentChat): [string, string][] {
  const list = el.shadowRoot!.querySelector('agent-chat-message-list')!.shadowRoot!;
  return Array.from(list.querySelectorAll('.latest button')).map((b) => [
    b.querySelector('.latest-title')!.textContent ?? '',
    b.querySelector('.latest-meta')!.textContent ?? '',
  ]);
}

export function threadListToggle(el: AgentChat): HTMLButtonElement {
  return Array.from(el.shadowRoot!.querySelectorAll<HTMLButtonElement>('header button')).find(
    (b) => b.getAttribute('aria-label') === 'Conversations',
  )!;
}

/** The shadow root of the last answer in the conversation. */
export function answerRoot(el: AgentChat): ShadowRoot {
  return messagesOf(el)
    .filter((m) => m.message?.role === 'assistant')
    .at(-1)!.shadowRoot!;
}

/** A button under `root` by its accessible name: its aria-label, else its text. */
export function buttonNamed(root: Element | ShadowRoot, name: string): HTMLButtonElement | undefined {
  return Array.from(root.querySelectorAll<HTMLButtonElement>('button')).find(
    (b) => b.getAttribute('aria-label') === name || b.textContent?.trim() === name,
  );
}

/** A button of the panel's header ("Conversations", "New conversation", "More", "Close chat"). */
export function headerButton(el: AgentChat, name: string): HTMLButtonElement | undefined {
  return Array.from(el.shadowRoot!.querySelectorAll<HTMLButtonElement>('header button')).find(
    (b) => b.getAttribute('aria-label') === name,
  );
}

/** Opens the thread list ("Conversations") unless it is open, and waits for it to render. */
export async function openThreadList(el: AgentChat): Promise<void> {
  if (threadListToggle(el).getAttribute('aria-expanded') !== 'true') threadListToggle(el).click();
  await settled(el);
  await threadListOf(el).updateComplete;
}

/** Opens Conversations from the keyboard: Tab to it, Enter. */
export async function openConversationsByKeyboard(name = 'Conversations'): Promise<void> {
  (page.getByRole('button', { name }).element() as HTMLElement).focus();
  await userEvent.keyboard('{Enter}');
  await expect.element(page.getByRole('region', { name })).toBeVisible();
}

/** A text file, as a visitor's log would be. */
export const logFile = (name = 'server.log', text = 'ERROR: connection refused\n') =>
  new File([text], name, { type: 'text/plain' });

/** `list` as a drop, a paste or a file dialog hands files over. */
export function fileTransfer(...list: File[]): DataTransfer {
  const data = new DataTransfer();
  for (const file of list) data.items.add(file);
  return data;
}

/** Picks files as the file dialog would hand them over. */
export async function pickFiles(el: AgentChat, ...list: File[]): Promise<void> {
  const input = composerOf(el).shadowRoot!.querySelector<HTMLInputElement>('input[type=file]')!;
  input.files = fileTransfer(...list).files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
  await settled(el);
}
