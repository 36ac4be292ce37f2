import type { AgentChatAttributes, AgentChatEventMap, AgentChatProperties } from '../../src/public-types.js';

/** `on<event-name>` listeners, the way React 19 and Preact attach custom events. */
export type AgentChatEventProps = {
  [K in keyof AgentChatEventMap as `on${K}`]?: (event: AgentChatEventMap[K]) => void;
};

/** Properties (set as properties by React 19, Preact, Vue, Svelte 5) and attributes. */
export type AgentChatProps = Partial<AgentChatProperties> & AgentChatAttributes;
