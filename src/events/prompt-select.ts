/** @internal A starter prompt was chosen. */
export interface AgentChatPromptSelectEventDetail {
  readonly text: string;
}

export class AgentChatPromptSelectEvent extends CustomEvent<AgentChatPromptSelectEventDetail> {
  static readonly eventName = 'agent-chat-prompt-select';

  constructor(detail: AgentChatPromptSelectEventDetail) {
    super(AgentChatPromptSelectEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-prompt-select': AgentChatPromptSelectEvent;
  }
}
