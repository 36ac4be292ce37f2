/** @internal A thread was chosen in the list. */
export interface AgentChatThreadListSelectEventDetail {
  readonly threadId: string;
}

export class AgentChatThreadListSelectEvent extends CustomEvent<AgentChatThreadListSelectEventDetail> {
  static readonly eventName = 'agent-chat-thread-list-select';

  constructor(detail: AgentChatThreadListSelectEventDetail) {
    super(AgentChatThreadListSelectEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-thread-list-select': AgentChatThreadListSelectEvent;
  }
}
