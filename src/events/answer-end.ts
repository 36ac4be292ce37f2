/** An answer ended, however it ended. */
export interface AgentChatAnswerEndEventDetail {
  readonly threadId: string | null;
  readonly messageId: string;
  /** complete, aborted (the visitor pressed Stop) or error (the agent failed or the stream broke). */
  readonly outcome: 'complete' | 'aborted' | 'error';
}

export class AgentChatAnswerEndEvent extends CustomEvent<AgentChatAnswerEndEventDetail> {
  static readonly eventName = 'agent-chat-answer-end';

  constructor(detail: AgentChatAnswerEndEventDetail) {
    super(AgentChatAnswerEndEvent.eventName, { detail, bubbles: true, composed: true, cancelable: false });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-answer-end': AgentChatAnswerEndEvent;
  }
}
