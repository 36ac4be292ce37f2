// The element's public type, as a page's script uses it: no Lit, no class, just the interface.
import 'agent-chat';
import {
  AgentChatError,
  createApiClient,
  VERSION,
  type AgentChat,
  type AgentChatErrorEvent,
  type AgentChatEventMap,
  type ClientTool,
} from 'agent-chat';

const el: AgentChat | null = document.querySelector('agent-chat');
const created: AgentChat = document.createElement('agent-chat');
created.projectId = 'proj';
created.mode = 'inline';
// @ts-expect-error: mode is 'launcher' | 'inline'
created.mode = 'sideways';
created.getSessionToken = async () => ({ token: 'tok', expiresAt: Date.now() + 3_600_000 });
const tool: ClientTool = {
  name: 'lookup',
  description: 'Looks something up',
  parameters: { type: 'object' },
  execute: async (args, { signal }) => ({ args, aborted: signal.aborted }),
};
created.tools = [tool];
created.addEventListener('agent-chat-error', (event) => {
  const typed: AgentChatErrorEvent = event;
  console.log(typed.detail.code, typed.detail.recoverable);
});
created.addEventListener('agent-chat-answer-end', (event: AgentChatEventMap['agent-chat-answer-end']) =>
  console.log(event.detail),
);
void el?.open({ query: 'Hello', submit: true });
void created.send('Hi').then((sent: boolean) => sent);
console.log(
  VERSION,
  created instanceof HTMLElement,
  AgentChatError.prototype instanceof Error,
  typeof createApiClient,
);
