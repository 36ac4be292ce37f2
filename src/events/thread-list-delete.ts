/** @internal The visitor confirmed deleting a thread. */
export interface AgentChatThreadListDeleteEventDetail {
  readonly threadId: string;
}

export class AgentChatThreadListDeleteEvent extends CustomEvent<AgentChatThreadListDeleteEventDetail> {
  static readonly eventName = 'agent-chat-thread-list-delete';

  constructor(detail: AgentChatThreadListDeleteEventDetail) {
    super(AgentChatThreadListDeleteEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-thread-list-delete': AgentChatThreadListDeleteEvent;
  }
}
