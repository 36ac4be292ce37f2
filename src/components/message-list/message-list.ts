import { LitElement, html, nothing } from 'lit';
import { consume } from '@lit/context';
import { property, query, state } from 'lit/decorators.js';
import { guard } from 'lit/directives/guard.js';
import { repeat } from 'lit/directives/repeat.js';
import type { ThreadListSnapshot } from '../../chat/thread-list.js';
import type { ChatMessage, ConversationSnapshot } from '../../chat/types.js';
import { RETRYABLE } from '../../chat/types.js';
import {
  conversationContext,
  englishLocale,
  threadListContext,
  localeContext,
  type Localized,
} from '../../context/index.js';
import { AgentChatMessageActionEvent } from '../../events/message-action.js';
import { AgentChatMessageRetryEvent } from '../../events/message-retry.js';
import { AgentChatPromptSelectEvent } from '../../events/prompt-select.js';
import { AgentChatThreadListSelectEvent } from '../../events/thread-list-select.js';
import { relativeTime } from '../../i18n/index.js';
import { whenIdle } from '../../internal/when-idle.js';
import hostStyles from '../../styles/host.styles.js';
import { icon } from '../icons.js';
import { previewWords } from '../thread-list/row-words.js';
import { ScrollAnchorController } from './scroll-anchor-controller.js';
import styles from './message-list.styles.js';

/**
 * Characters (or messages) rendered in one task when a thread is shown: the newest first, then
 * older ones while the page is idle, so a 500-message thread never blocks the page. The first
 * batch is smaller, about a panel's height: it is what the visitor waits for, and each message
 * in it is styled and laid out before the first frame (those out of view only skip paint).
 */
const FIRST_BATCH = { chars: 2_500, messages: 6 };
const BATCH = { chars: 4_000, messages: 10 };
/** Messages per block (see .block in the styles): one more answer touches the last block only. */
const BLOCK_SIZE = 32;

/** Where a batch ending before `end` starts: at least one message, then up to the budgets. */
function batchStart(messages: readonly ChatMessage[], end: number, budget = BATCH): number {
  let start = end - 1;
  let chars = messages[start]?.content.length ?? 0;
  while (
    start > 0 &&
    end - start < budget.messages &&
    chars + messages[start - 1].content.length <= budget.chars
  ) {
    start -= 1;
    chars += messages[start].content.length;
  }
  return Math.max(start, 0);
}

/**
 * The conversation log, or the start screen before the first message: the brand and greeting,
 * starter prompts, and a signed-in visitor's latest conversations.
 *
 * @internal
 * @tag agent-chat-message-list
 * @fires {AgentChatPromptSelectEvent} agent-chat-prompt-select - A starter prompt was chosen.
 * @fires {AgentChatThreadListSelectEvent} agent-chat-thread-list-select - One of the latest threads was chosen on the start screen.
 * @fires {AgentChatMessageRetryEvent} agent-chat-message-retry - A message asked to be tried again.
 * @fires {AgentChatMessageActionEvent} agent-chat-message-action - Feedback or Regenerate on an answer.
 * @csspart message - Each message; with message-user or message-assistant.
 */
export class AgentChatMessageList extends LitElement {
  static override styles = [hostStyles, styles];

  /** Text of the start screen. */
  @property() greeting = '';

  /** A line under the greeting. */
  @property() subheading = '';

  /** The log's name: the panel's title. */
  @property() label = '';

  /** Suggested first questions, shown as buttons on the start screen. */
  @property({ attribute: false }) prompts: readonly string[] = [];

  /** The logo or avatar URL; the start screen shows it large (a chat mark without it). */
  @property() avatar = '';

  @consume({ context: threadListContext, subscribe: true })
  @state()
  private threadList?: ThreadListSnapshot;

  @consume({ context: conversationContext, subscribe: true })
  @state()
  private conversation?: ConversationSnapshot;

  @consume({ context: localeContext, subscribe: true })
  @state()
  private l10n: Localized = englishLocale;

  @query('.scroller') private scroller!: HTMLElement | null;
  @query('.scroller-content') private content!: HTMLElement | null;
  @query('.room') private room!: HTMLElement | null;

  readonly #anchor = new ScrollAnchorController(
    this,
    () => this.scroller,
    () => this.content,
    () => this.room,
  );

  /** Index of the oldest message rendered; older ones are still to come. */
  @state() private firstShown = 0;
  #firstId?: string;
  /** The latest question's id: a new one being sent goes to the top of the view. */
  #askedId?: string;
  #olderScheduled = false;

  override willUpdate(): void {
    const messages = this.conversation?.messages ?? [];
    // A different conversation (its first message changed): start again from its newest end.
    if (messages[0]?.id !== this.#firstId) {
      this.#firstId = messages[0]?.id;
      this.firstShown = messages.length ? batchStart(messages, messages.length, FIRST_BATCH) : 0;
      this.#anchor.reset();
    }
    this.#holdNewQuestion(messages);
    this.firstShown = Math.min(this.firstShown, Math.max(messages.length - 1, 0));
    if (this.firstShown > 0 && !this.#olderScheduled) {
      this.#olderScheduled = true;
      whenIdle(() => {
        this.#olderScheduled = false;
        if (this.isConnected && this.firstShown > 0)
          this.firstShown = batchStart(this.conversation?.messages ?? [], this.firstShown);
      });
    }
  }

  /**
   * Only a question this tab is sending (it has the request under way): one opened, reattached
   * after a reload, or another tab is sending was read already or is not this reader's doing,
   * and a reader who scrolled up is not moved for it.
   */
  #holdNewQuestion(messages: readonly ChatMessage[]): void {
    let asked: ChatMessage | undefined;
    for (let i = messages.length - 1; i >= 0 && !asked; i--)
      if (messages[i].role === 'user') asked = messages[i];
    const id = asked?.id;
    if (asked?.status === 'sending' && messages.at(-1) === asked && this.conversation?.streaming) {
      if (id !== this.#askedId)
        this.#anchor.holdAtTop(
          () =>
            Array.from(this.renderRoot.querySelectorAll('agent-chat-message')).find(
              (el) => el.message?.id === id,
            ) ?? null,
        );
    } else if (asked?.status === 'sending') return;
    this.#askedId = id;
  }

  /** Internal events are not composed; a message's retry request is passed on from here. */
  #handleMessageRetry(event: AgentChatMessageRetryEvent): void {
    event.stopPropagation();
    this.dispatchEvent(new AgentChatMessageRetryEvent(event.detail));
  }

  #handleMessageAction(event: AgentChatMessageActionEvent): void {
    event.stopPropagation();
    this.dispatchEvent(new AgentChatMessageActionEvent(event.detail));
  }

  #handlePromptClick(text: string): void {
    this.dispatchEvent(new AgentChatPromptSelectEvent({ text }));
  }

  /**
   * Composed for the whole panel: the greeting sits in a band in the accent's tint that takes
   * the room the rest leaves (so no panel is mostly blank), then the prompts, then the latest
   * conversations (two beside three prompts, else three). A long greeting stops at two lines.
   * With neither prompts nor conversations there is nothing for a band to frame: the greeting
   * is one compact line just above the composer and the rest of the panel stays plain.
   */
  #renderStart() {
    const { t, locale } = this.l10n;
    const list = this.threadList;
    const shown =
      list && list.status !== 'unavailable' && list.status !== 'error'
        ? list.threads.slice(0, this.prompts.length >= 3 ? 2 : 3)
        : [];
    const compact = !this.prompts.length && !shown.length;
    return html`<div class="start ${compact ? 'compact' : ''}" part="start">
      <div class="hero">
        ${this.avatar ? html`<img class="brand" src=${this.avatar} alt="" />` : html`<span class="brand mark" aria-hidden="true">${icon('chat')}</span>`}
        ${this.greeting ? html`<p class="greeting" dir="auto" title=${this.greeting}>${this.greeting}</p>` : nothing}
        ${this.subheading ? html`<p class="subheading" dir="auto">${this.subheading}</p>` : nothing}
      </div>
      ${
        this.prompts.length
          ? html`<div class="section">
            <h3 class="caption" id="prompts-label">${t('suggestedQuestions')}</h3>
            <ul class="prompts" aria-labelledby="prompts-label">
              ${this.prompts.map((text) => html`<li><button type="button" dir="auto" @click=${() => this.#handlePromptClick(text)}>${text}</button></li>`)}
            </ul>
          </div>`
          : nothing
      }
      ${
        shown.length
          ? html`<div class="section">
            <h3 class="caption" id="latest-label">${t('recentConversations')}</h3>
            <ul class="latest" aria-labelledby="latest-label">
              ${shown.map((thread) => {
                const preview = previewWords(thread, () => this.requestUpdate());
                return html`<li><button type="button" @click=${() => this.dispatchEvent(new AgentChatThreadListSelectEvent({ threadId: thread.id }))}>
                <span class="latest-title" dir="auto">${thread.title || t('untitled')}</span>
                <span class="latest-meta" dir="auto">${preview || relativeTime(thread.updated_at, locale, t)}</span>
              </button></li>`;
              })}
            </ul>
          </div>`
          : nothing
      }
    </div>`;
  }

  /** The messages shown, in blocks of BLOCK_SIZE counted from the thread's start (so they stay put as it grows). */
  #blocks(messages: readonly ChatMessage[]): { key: number; messages: ChatMessage[] }[] {
    const blocks: { key: number; messages: ChatMessage[] }[] = [];
    for (let i = this.firstShown; i < messages.length; i += 1) {
      const key = Math.floor(i / BLOCK_SIZE);
      if (blocks.at(-1)?.key !== key) blocks.push({ key, messages: [] });
      blocks.at(-1)!.messages.push(messages[i]);
    }
    return blocks;
  }

  override render() {
    const messages = this.conversation?.messages ?? [];
    const { t } = this.l10n;
    const last = messages.at(-1);
    let latestFailure: ChatMessage | undefined;
    for (let i = messages.length - 1; i >= 0 && !latestFailure; i--)
      if (RETRYABLE.has(messages[i].status)) latestFailure = messages[i];
    return html`<div class="scroller" @scroll=${() => this.#anchor.handleScroll()}>
        <div class="scroller-content">
        ${messages.length === 0 ? this.#renderStart() : nothing}
        <div class="log" role="log" aria-label=${this.label} aria-live="off" ?hidden=${messages.length === 0}
          @agent-chat-message-retry=${this.#handleMessageRetry} @agent-chat-message-action=${this.#handleMessageAction}>
          ${repeat(
            this.#blocks(messages),
            (block) => block.key,
            (block) => {
              const streaming = Boolean(this.conversation?.streaming);
              const isLast = block.messages.includes(last!);
              const failure =
                latestFailure && block.messages.includes(latestFailure) ? latestFailure : undefined;
              // A block whose messages and flags did not change is skipped without a look inside.
              return guard(
                [...block.messages, isLast, failure, (isLast || failure !== undefined) && streaming, t],
                () =>
                  html`<div class="block">${repeat(
                    block.messages,
                    (message) => message.id,
                    (message) => html`<agent-chat-message
                  role="article"
                  aria-label=${t(message.role === 'user' ? 'you' : 'assistant')}
                  part="message message-${message.role}"
                  exportparts="bubble:message__bubble, content:message__content, sources:message__sources, error:message__error, actions:message__actions, files:message__files"
                  .message=${message}
                  ?last=${message === last && !streaming}
                  ?retryable=${message === failure && !streaming}
                ></agent-chat-message>`,
                  )}</div>`,
              );
            },
          )}
        </div>
        </div>
        <div class="room"></div>
      </div>
      ${this.#anchor.pinned ? nothing : html`<button class="jump" type="button" @click=${() => this.#anchor.scrollToBottom()}>${t('jumpToLatest')}</button>`}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'agent-chat-message-list': AgentChatMessageList;
  }
}
