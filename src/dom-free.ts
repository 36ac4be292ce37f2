/** The DOM-free public API: what the package root exports in every runtime. */
export { VERSION } from './version.js';
export { TokenManager, REFRESH_MARGIN_MS } from './session/token-manager.js';
export { endpointTokenSource } from './session/endpoint-source.js';
export type { SessionRequestHeaders } from './session/endpoint-source.js';
export type {
  RawSession,
  NormalizedSession,
  SessionPayload,
  TokenSource,
  SessionStatus,
} from './session/types.js';
export { createApiClient } from './api/api-client.js';
export type { ApiClient, ApiClientOptions } from './api/api-client.js';
export { AgentChatError, ApiError, AuthError, NetworkError, SessionError } from './api/errors.js';
export type * from './api/types.js';
export type * from './events/index.js';
export type {
  AgentChatProperties,
  AgentChatAttributes,
  AgentChatEventMap,
  AgentChatMethods,
  AgentChat,
  ClientTool,
  ClientToolContext,
} from './public-types.js';
