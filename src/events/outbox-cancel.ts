/** "Cancel sending" on a message in the outbox (internal; the root stops it at its shadow root). */
export interface AgentChatOutboxCancelEventDetail {
  readonly messageId: string;
}

export class AgentChatOutboxCancelEvent extends CustomEvent<AgentChatOutboxCancelEventDetail> {
  static readonly eventName = 'agent-chat-outbox-cancel';

  constructor(detail: AgentChatOutboxCancelEventDetail) {
    super(AgentChatOutboxCancelEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-outbox-cancel': AgentChatOutboxCancelEvent;
  }
}
