// `import type {} from 'agent-chat/vue'`: <agent-chat> in Vue templates (vue-tsc, Volar).
// Vue needs `compilerOptions.isCustomElement: (tag) => tag === 'agent-chat'` at run time.
import type { DefineComponent } from 'vue';
import type { AgentChatEventMap } from '../../src/public-types.js';
import type { AgentChatProps } from './shared.js';

type AgentChatVueEmits = { [K in keyof AgentChatEventMap]: (event: AgentChatEventMap[K]) => void };

declare module 'vue' {
  interface GlobalComponents {
    'agent-chat': DefineComponent<AgentChatProps, {}, {}, {}, {}, {}, {}, AgentChatVueEmits>;
  }
}
