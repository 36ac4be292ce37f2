/** @internal A message asks to be tried again. */
export interface AgentChatMessageRetryEventDetail {
  readonly messageId: string;
}

export class AgentChatMessageRetryEvent extends CustomEvent<AgentChatMessageRetryEventDetail> {
  static readonly eventName = 'agent-chat-message-retry';

  constructor(detail: AgentChatMessageRetryEventDetail) {
    super(AgentChatMessageRetryEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-message-retry': AgentChatMessageRetryEvent;
  }
}
