/**
 * The classic-script build (`<script src>`, everything in one file, so one SRI hash covers it):
 * registers the element at once and exposes the API as `globalThis.AgentChat`.
 */
import './define.js';
import { runPreloadQueue } from './loader/queue.js';

export { AgentChat } from './components/agent-chat/agent-chat.js';
export * from './dom-free.js';

runPreloadQueue();
