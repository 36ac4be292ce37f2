// `import type {} from 'agent-chat/svelte'`: <agent-chat> in Svelte 5 markup (svelte-check).
import type { HTMLAttributes } from 'svelte/elements';
import type { AgentChat } from '../../src/public-types.js';
import type { AgentChatEventProps, AgentChatProps } from './shared.js';

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    'agent-chat': HTMLAttributes<AgentChat> & AgentChatProps & AgentChatEventProps;
  }
}
