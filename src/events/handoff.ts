/** The visitor asked to talk to a person; `transcript` is the conversation in Markdown. */
export interface AgentChatHandoffEventDetail {
  readonly threadId: string | null;
  readonly transcript: string;
}

export class AgentChatHandoffEvent extends CustomEvent<AgentChatHandoffEventDetail> {
  static readonly eventName = 'agent-chat-handoff';

  constructor(detail: AgentChatHandoffEventDetail) {
    // Cancelable: a page that handles the handoff itself keeps `handoff-url` from opening.
    super(AgentChatHandoffEvent.eventName, { detail, bubbles: true, composed: true, cancelable: true });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-handoff': AgentChatHandoffEvent;
  }
}
