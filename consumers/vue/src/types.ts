// agent-chat/vue: <agent-chat> in GlobalComponents, typed from the element's properties and events.
import type {} from 'agent-chat/vue';
import type { GlobalComponents } from 'vue';
import type { AgentChatErrorEvent } from 'agent-chat';

type Props = InstanceType<GlobalComponents['agent-chat']>['$props'];
export const ok: Props = {
  mode: 'inline',
  projectId: 'p',
  'integration-id': 'i',
  getSessionToken: async () => ({ token: 't', expiresAt: 1 }),
};
// @ts-expect-error: mode is 'launcher' | 'inline'
export const bad: Props = { mode: 'sideways' };
type Emit = InstanceType<GlobalComponents['agent-chat']>['$emit'];
declare const error: AgentChatErrorEvent;
export const emit = (e: Emit) => e('agent-chat-error', error);
