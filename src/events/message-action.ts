import type { FeedbackComment } from '../../contract/types.js';

/** @internal A visitor's action on an answer: feedback or asking again. */
export interface AgentChatMessageActionEventDetail {
  readonly messageId: string;
  readonly action: 'upvote' | 'downvote' | 'regenerate';
  /** Reasons given with "Not helpful". */
  readonly comment?: FeedbackComment | null;
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
