/** @internal The visitor picked, dropped or pasted files (`add`), or removed one from the composer (`remove`, its id). */
export type AgentChatComposerFilesEventDetail =
  | { readonly add: readonly File[] }
  | { readonly remove: string };

export class AgentChatComposerFilesEvent extends CustomEvent<AgentChatComposerFilesEventDetail> {
  static readonly eventName = 'agent-chat-composer-files';

  constructor(detail: AgentChatComposerFilesEventDetail) {
    super(AgentChatComposerFilesEvent.eventName, {
      detail,
      bubbles: true,
      composed: false,
      cancelable: false,
    });
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'agent-chat-composer-files': AgentChatComposerFilesEvent;
  }
}
