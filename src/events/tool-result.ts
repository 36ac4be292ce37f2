/** A client-side tool call ended: `done`, `error` (threw, timed out, unknown) or `denied` by the visitor. */
export interface AgentChatToolResultEventDetail {
  readonly toolCallId: string;
  readonly name: string;
  readonly status: 'done' | 'error' | 'denied';
}

export class AgentChatToolResultEvent extends CustomEvent<AgentChatToolResultEventDetail> {
  static readonly eventName = 'agent-chat-tool-result';

  constructor(detail: AgentChatToolResultEventDetail) {
    super(AgentChatToolResultEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-tool-result': AgentChatToolResultEvent;
  }
}
