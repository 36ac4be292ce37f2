/** The active thread changed (a new conversation, a resumed one, or the first answer's thread). */
export interface AgentChatThreadChangeEventDetail {
  /** null for a new conversation that has no thread yet. */
  readonly threadId: string | null;
}

export class AgentChatThreadChangeEvent extends CustomEvent<AgentChatThreadChangeEventDetail> {
  static readonly eventName = 'agent-chat-thread-change';

  constructor(detail: AgentChatThreadChangeEventDetail) {
    super(AgentChatThreadChangeEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-thread-change': AgentChatThreadChangeEvent;
  }
}
