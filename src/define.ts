import { AgentChat } from './components/agent-chat/agent-chat.js';
import { AgentChatComposer } from './components/composer/composer.js';
import { AgentChatMessage } from './components/message/message.js';
import { AgentChatMessageList } from './components/message-list/message-list.js';
import { defineOnce } from './internal/define-once.js';

// The only module with side effects: children first, so the root upgrades into defined parts.
// <agent-chat-thread-list> is registered when Conversations first shows (thread-list/load.ts).
defineOnce('agent-chat-message', AgentChatMessage);
defineOnce('agent-chat-message-list', AgentChatMessageList);
defineOnce('agent-chat-composer', AgentChatComposer);
defineOnce('agent-chat', AgentChat);
