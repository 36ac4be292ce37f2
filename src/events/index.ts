export type { AgentChatMessageSendEvent, AgentChatMessageSendEventDetail } from './message-send.js';
export type { AgentChatAnswerStartEvent, AgentChatAnswerStartEventDetail } from './answer-start.js';
export type { AgentChatAnswerEndEvent, AgentChatAnswerEndEventDetail } from './answer-end.js';
export type { AgentChatErrorEvent, AgentChatErrorEventDetail } from './error.js';
export type { AgentChatOpenChangeEvent, AgentChatOpenChangeEventDetail } from './open-change.js';
export type { AgentChatThreadChangeEvent, AgentChatThreadChangeEventDetail } from './thread-change.js';
export type { AgentChatSessionChangeEvent, AgentChatSessionChangeEventDetail } from './session-change.js';
export type { AgentChatFeedbackEvent, AgentChatFeedbackEventDetail } from './feedback.js';
