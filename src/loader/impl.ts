/**
 * What the loader fetches: the whole element, registered as <agent-chat-app> (the loader holds
 * the <agent-chat> tag and puts one of these in its shadow root), with the real children.
 */
import { AgentChat } from '../components/agent-chat/agent-chat.js';
import { AgentChatComposer } from '../components/composer/composer.js';
import { AgentChatMessage } from '../components/message/message.js';
import { AgentChatMessageList } from '../components/message-list/message-list.js';
import { defineOnce } from '../internal/define-once.js';
import tokenStyles from '../styles/tokens.styles.js';

defineOnce('agent-chat-message', AgentChatMessage);
defineOnce('agent-chat-message-list', AgentChatMessageList);
defineOnce('agent-chat-composer', AgentChatComposer);
defineOnce('agent-chat-app', class AgentChatApp extends AgentChat {});

/** The token defaults, for the loader's host: the page's `agent-chat { --agent-chat-… }` must win over them. */
export const tokenSheet = tokenStyles.styleSheet;
