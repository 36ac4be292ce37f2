/** @internal The visitor changed the draft in the composer. */
export interface AgentChatComposerInputEventDetail {
  readonly text: string;
}

export class AgentChatComposerInputEvent extends CustomEvent<AgentChatComposerInputEventDetail> {
  static readonly eventName = 'agent-chat-composer-input';

  constructor(detail: AgentChatComposerInputEventDetail) {
    super(AgentChatComposerInputEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-composer-input': AgentChatComposerInputEvent;
  }
}
