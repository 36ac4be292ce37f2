import { defineOnce } from '../../internal/define-once.js';

let loading: Promise<void> | undefined;

/**
 * Registers <agent-chat-thread-list> from a part of its own (decision 341): most visitors never
 * open Conversations, so the drawer's element loads when the list is first shown. Until then the
 * root's <agent-chat-thread-list> is an inert, hidden element that upgrades when it arrives. A
 * failed load is tried again by the next opening.
 */
export function loadThreadList(): Promise<void> {
  loading ??= import('./thread-list.js').then(
    ({ AgentChatThreadList }) => defineOnce('agent-chat-thread-list', AgentChatThreadList),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
