/** Something failed; the widget shows it too. */
export interface AgentChatErrorEventDetail {
  readonly code: string;
  /** Readable; the same words the visitor sees. */
  readonly message: string;
  readonly status?: number;
  /** Whether trying again can help. */
  readonly recoverable: boolean;
}

export class AgentChatErrorEvent extends CustomEvent<AgentChatErrorEventDetail> {
  static readonly eventName = 'agent-chat-error';

  constructor(detail: AgentChatErrorEventDetail) {
    super(AgentChatErrorEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-error': AgentChatErrorEvent;
  }
}
