// agent-chat/preact: the same element in Preact's JSX namespace.
import type {} from 'agent-chat/preact';
import type { JSX } from 'preact';

type Props = JSX.IntrinsicElements['agent-chat'];
export const ok: Props = {
  mode: 'inline',
  projectId: 'p',
  'session-endpoint': '/s',
  'onagent-chat-error': (event) => void event.detail.code,
};
// @ts-expect-error: theme is 'light' | 'dark' | 'auto'
export const bad: Props = { theme: 'pink' };
