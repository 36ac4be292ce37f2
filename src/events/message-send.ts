/** Before a message is sent. Cancelable: `preventDefault()` vetoes the send (the text stays in the composer). */
export interface AgentChatMessageSendEventDetail {
  readonly threadId: string | null;
  readonly text: string;
}

export class AgentChatMessageSendEvent extends CustomEvent<AgentChatMessageSendEventDetail> {
  static readonly eventName = 'agent-chat-message-send';

  constructor(detail: AgentChatMessageSendEventDetail) {
    super(AgentChatMessageSendEvent.eventName, { detail, bubbles: true, composed: true, cancelable: true });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-message-send': AgentChatMessageSendEvent;
  }
}
