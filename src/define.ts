import { AgentChat } from './components/agent-chat/agent-chat.js';
import { AgentChatComposer } from './components/composer/composer.js';
import { AgentChatMessage } from './components/message/message.js';
import { AgentChatMessageList } from './components/message-list/message-list.js';
import { AgentChatThreadList } from './components/thread-list/thread-list.js';
import { defineOnce } from './internal/define-once.js';

// The only module with side effects: children first, so the root upgrades into defined parts.
defineOnce('agent-chat-message', AgentChatMessage);
defineOnce('agent-chat-message-list', AgentChatMessageList);
defineOnce('agent-chat-composer', AgentChatComposer);
defineOnce('agent-chat-thread-list', AgentChatThreadList);
defineOnce('agent-chat', AgentChat);
