/** The visitor rated an answer and the service took it (wire contract §8). */
export interface AgentChatFeedbackEventDetail {
  readonly questionAnswerId: string;
  readonly reaction: 'upvote' | 'downvote';
}

export class AgentChatFeedbackEvent extends CustomEvent<AgentChatFeedbackEventDetail> {
  static readonly eventName = 'agent-chat-feedback';

  constructor(detail: AgentChatFeedbackEventDetail) {
    super(AgentChatFeedbackEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-feedback': AgentChatFeedbackEvent;
  }
}
