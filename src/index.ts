/**
 * The package root: safe to import anywhere. In a browser it registers `<agent-chat>` before
 * the importing code runs; elsewhere it only exports the DOM-free API.
 */
import './register.js';

export type { AgentChat } from './components/agent-chat/agent-chat.js';
export * from './api.js';
