/**
 * The element chunk: registers the elements on import. Browser only, and not an export of
 * the package: the root imports it in browsers.
 */
import './define.js';

export { AgentChat } from './components/agent-chat/agent-chat.js';
