/** A client-side tool is about to run (after the visitor allowed it, where approval is needed). */
export interface AgentChatToolCallEventDetail {
  readonly toolCallId: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

export class AgentChatToolCallEvent extends CustomEvent<AgentChatToolCallEventDetail> {
  static readonly eventName = 'agent-chat-tool-call';

  constructor(detail: AgentChatToolCallEventDetail) {
    super(AgentChatToolCallEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-tool-call': AgentChatToolCallEvent;
  }
}
