/**
 * `agent-chat-service`: the agent service as a Fetch handler, with its storage and agent
 * interfaces. Runs wherever Fetch does (Node, a worker, the browser tests under msw); the
 * Node face (`./node.js`) adds the databases, the model agent and a node:http server.
 */
export { createAgentService } from './service.js';
export type {
  AgentService,
  AgentServiceOptions,
  DrainReport,
  RequestInfo,
  LogEntry,
  TrustProxy,
  ConsoleOptions,
  WidgetRelease,
} from './service.js';
export type { ProjectConfig, PasswordHasher } from './routes/context.js';
export type { RateLimit } from './http/rate-limiter.js';
export { DemoAgent } from './agents/demo.js';
export { AgentError } from './agents/types.js';
export type { Agent, AgentInput, AgentOutput, ToolSpec, ToolRound } from './agents/types.js';
export type { Article } from './agents/knowledge.js';
export { SectionIndex, StaticDocs, DEFAULT_BOOSTS, type Boosts } from './docs/ranking.js';
export { Vocabulary, splitSynonyms } from './docs/synonyms.js';
export { crawlSite } from './docs/crawler.js';
export { DocsLibrary, DocsInputError, type DocsLibraryOptions } from './docs/library.js';
export { Embedder, HybridDocs, embeddingText, nearest, type EmbeddingsOptions } from './docs/embeddings.js';
export type { CrawlOptions, CrawlProgress, CrawlResult, CrawledPage, PageState } from './docs/crawler.js';
export type { DocsSearch, Hit, Section } from './docs/types.js';
export { ManualClock, systemClock } from './kernel/clock.js';
export type { Clock } from './kernel/clock.js';
export { memoryStores } from './storage/memory/index.js';
export type {
  Stores,
  StoreRole,
  StoresOf,
  ConversationStore,
  AnswerLedger,
  FleetStore,
  RateStore,
  ActivityStore,
  DirectoryStore,
  AccountStore,
  SessionRecord,
  ThreadMeta,
  ThreadRecord,
  MessageRecord,
  MessagePatch,
  AnswerFailure,
  ActivityEvent,
  ActivityRow,
  FeedbackRecord,
  ToolCallRecord,
  ActivityStep,
} from './storage/types.js';
export type {
  ProjectRecord,
  IntegrationRecord,
  ApiKeyRecord,
  AdminRecord,
  AuditEntry,
  ConversationFilter,
  ConversationSummary,
  ActivitySummary,
} from './storage/types.js';
export { encodeRecord } from '../contract/records.js';
