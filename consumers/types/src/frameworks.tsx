// React's, Preact's and Vue's declarations for <agent-chat>, checked with each framework's own types.
import type {} from 'agent-chat/react';
import type {} from 'agent-chat/preact';
import type {} from 'agent-chat/vue';
import type { AgentChat, AgentChatOpenChangeEvent } from 'agent-chat';
import type { GlobalComponents } from 'vue';
import type { JSX as PreactJSX } from 'preact';

export const react = (
  <agent-chat
    mode="launcher"
    project-id="proj"
    onagent-chat-open-change={(event: AgentChatOpenChangeEvent) => console.log(event.detail.open)}
  />
);
// @ts-expect-error: mode is 'launcher' | 'inline'
export const wrong = <agent-chat mode="sideways" />;

export type VueAgentChat = GlobalComponents['agent-chat'];
export const preactProps: PreactJSX.IntrinsicElements['agent-chat'] = { theme: 'dark' };
export type Ref = AgentChat;
