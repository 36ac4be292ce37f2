/** @internal The composer asks to stop the answer. */
export interface AgentChatComposerStopEventDetail {
  readonly source: 'button';
}

export class AgentChatComposerStopEvent extends CustomEvent<AgentChatComposerStopEventDetail> {
  static readonly eventName = 'agent-chat-composer-stop';

  constructor(detail: AgentChatComposerStopEventDetail) {
    super(AgentChatComposerStopEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-composer-stop': AgentChatComposerStopEvent;
  }
}
