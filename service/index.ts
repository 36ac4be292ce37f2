export { createReferenceService } from './reference-service.js';
export type { ReferenceService, ReferenceServiceOptions, RequestInfo, LogEntry } from './reference-service.js';
export type { ProjectConfig, RateLimit } from './context.js';
export { DemoAgent } from './agent.js';
export type { Agent, AgentInput, AgentOutput, ToolSpec, ToolRound } from './agent.js';
export { ManualClock, systemClock } from './clock.js';
export type { Clock } from './clock.js';
export { MemoryStorage } from './storage.js';
export type {
  Storage, SessionRecord, ThreadMeta, ThreadRecord, MessageRecord, MessagePatch, ActivityEvent, ActivityRow, FeedbackRecord, ToolCallRecord, ActivityStep,
} from './storage.js';
export { encodeRecord } from './records.js';
