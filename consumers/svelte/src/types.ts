// agent-chat/svelte: <agent-chat> in SvelteHTMLElements, typed from the element's properties and events.
import type {} from 'agent-chat/svelte';
import type { SvelteHTMLElements } from 'svelte/elements';

type Props = SvelteHTMLElements['agent-chat'];
export const ok: Props = {
  mode: 'inline',
  'project-id': 'p',
  getSessionToken: async () => ({ token: 't', expiresAt: 1 }),
  'onagent-chat-error': (event) => void event.detail.recoverable,
};
// @ts-expect-error: theme is 'light' | 'dark' | 'auto'
export const bad: Props = { theme: 'pink' };
