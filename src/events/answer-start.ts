/** The agent started answering (the stream opened). */
export interface AgentChatAnswerStartEventDetail {
  readonly threadId: string;
  readonly messageId: string;
}

export class AgentChatAnswerStartEvent extends CustomEvent<AgentChatAnswerStartEventDetail> {
  static readonly eventName = 'agent-chat-answer-start';

  constructor(detail: AgentChatAnswerStartEventDetail) {
    super(AgentChatAnswerStartEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-answer-start': AgentChatAnswerStartEvent;
  }
}
