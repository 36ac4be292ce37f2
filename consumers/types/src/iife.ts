// The classic script's global, for a page that loads agent-chat/iife with <script src>.
import 'agent-chat/iife';

const element = new AgentChat.AgentChat();
element.heading = 'Help';
console.log(AgentChat.VERSION, typeof AgentChat.createApiClient);
