/** @internal The visitor renamed a thread (§10). */
export interface AgentChatThreadListRenameEventDetail {
  readonly threadId: string;
  readonly title: string;
}

export class AgentChatThreadListRenameEvent extends CustomEvent<AgentChatThreadListRenameEventDetail> {
  static readonly eventName = 'agent-chat-thread-list-rename';

  constructor(detail: AgentChatThreadListRenameEventDetail) {
    super(AgentChatThreadListRenameEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-thread-list-rename': AgentChatThreadListRenameEvent;
  }
}
