/** @internal The composer asks to send its text. */
export interface AgentChatComposerSubmitEventDetail {
  readonly text: string;
}

export class AgentChatComposerSubmitEvent extends CustomEvent<AgentChatComposerSubmitEventDetail> {
  static readonly eventName = 'agent-chat-composer-submit';

  constructor(detail: AgentChatComposerSubmitEventDetail) {
    super(AgentChatComposerSubmitEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-composer-submit': AgentChatComposerSubmitEvent;
  }
}
