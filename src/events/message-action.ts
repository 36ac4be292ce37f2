import type { FeedbackRequest } from '../api/types.js';

/** @internal A visitor's action on an answer: feedback or asking again. */
export interface AgentChatMessageActionEventDetail {
  readonly messageId: string;
  readonly action: 'upvote' | 'downvote' | 'regenerate';
  /** Reasons given with "Not helpful". */
  readonly comment?: FeedbackRequest['comment'];
}

export class AgentChatMessageActionEvent extends CustomEvent<AgentChatMessageActionEventDetail> {
  static readonly eventName = 'agent-chat-message-action';

  constructor(detail: AgentChatMessageActionEventDetail) {
    super(AgentChatMessageActionEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-message-action': AgentChatMessageActionEvent;
  }
}
