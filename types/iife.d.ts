// `agent-chat/iife`: the classic script. Loaded with `<script src>` (or imported for its side
// effect) it registers <agent-chat> and exposes the DOM-free API and the element's class as the
// global `AgentChat`.
import type * as api from '../src/dom-free.js';
import type { AgentChat as AgentChatInstance } from '../src/public-types.js';

declare global {
  var AgentChat: typeof api & { AgentChat: { new (): AgentChatInstance; prototype: AgentChatInstance } };
}

export {};
