/** @internal The list asks for threads. */
export interface AgentChatThreadListLoadEventDetail {
  /** more: the next page; retry: the first page again, after an error. */
  readonly reason: 'more' | 'retry';
}

export class AgentChatThreadListLoadEvent extends CustomEvent<AgentChatThreadListLoadEventDetail> {
  static readonly eventName = 'agent-chat-thread-list-load';

  constructor(detail: AgentChatThreadListLoadEventDetail) {
    super(AgentChatThreadListLoadEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-thread-list-load': AgentChatThreadListLoadEvent;
  }
}
