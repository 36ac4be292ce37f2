/** The launcher panel opened or closed. */
export interface AgentChatOpenChangeEventDetail {
  readonly open: boolean;
}

export class AgentChatOpenChangeEvent extends CustomEvent<AgentChatOpenChangeEventDetail> {
  static readonly eventName = 'agent-chat-open-change';

  constructor(detail: AgentChatOpenChangeEventDetail) {
    super(AgentChatOpenChangeEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-open-change': AgentChatOpenChangeEvent;
  }
}
