/** The visitor allowed or denied a tool call (internal; the root stops it at its shadow root). */
export interface AgentChatToolDecideEventDetail {
  readonly toolCallId: string;
  readonly allowed: boolean;
}

export class AgentChatToolDecideEvent extends CustomEvent<AgentChatToolDecideEventDetail> {
  static readonly eventName = 'agent-chat-tool-decide';

  constructor(detail: AgentChatToolDecideEventDetail) {
    // Composed so it crosses the message and list shadow roots; the root catches it inside its own.
    super(AgentChatToolDecideEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-tool-decide': AgentChatToolDecideEvent;
  }
}
