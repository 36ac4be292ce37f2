/** Where the session token stands: none asked yet, being fetched, usable, or failed. */
export type SessionStatus = 'idle' | 'fetching' | 'ready' | 'error';

/** The session token state changed (idle, fetching, ready, error). Never carries the token. */
export interface AgentChatSessionChangeEventDetail {
  readonly status: SessionStatus;
}

export class AgentChatSessionChangeEvent extends CustomEvent<AgentChatSessionChangeEventDetail> {
  static readonly eventName = 'agent-chat-session-change';

  constructor(detail: AgentChatSessionChangeEventDetail) {
    super(AgentChatSessionChangeEvent.eventName, {
      detail,
      bubbles: true,
      composed: true,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-session-change': AgentChatSessionChangeEvent;
  }
}
