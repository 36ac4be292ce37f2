/**
 * The package root: safe to import anywhere. In a browser it registers `<agent-chat>` (the
 * element chunk loads on its own); elsewhere it only exports the DOM-free pieces below.
 */
import './register.js';

export type { AgentChat } from './components/agent-chat/agent-chat.js';
export { VERSION } from './version.js';
export { TokenManager, REFRESH_MARGIN_MS } from './session/token-manager.js';
export { endpointTokenSource } from './session/endpoint-source.js';
export type { RawSession, NormalizedSession, SessionPayload, TokenSource, SessionStatus } from './session/types.js';
export { createApiClient } from './api/api-client.js';
export type { ApiClient, ApiClientOptions } from './api/api-client.js';
export { AgentChatError, ApiError, AuthError, NetworkError, SessionError } from './api/errors.js';
export type * from './api/types.js';
export type * from './events/index.js';
