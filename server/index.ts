/**
 * `agent-chat/server`: for the site owner's server only, never bundled for browsers. Fetch API
 * only (Node 20+, Workers, Deno, Bun); `toNodeHandler` lives in `agent-chat/server/node`.
 */
export { createSessionHandler } from './session-handler.js';
export type {
  FetchHandler,
  RequestInfo,
  SessionHandlerOptions,
  SessionRateLimit,
  TrustProxy,
} from './session-handler.js';
export { ownerKey } from '../contract/owner-key.js';
export { createQueryClient, EndpointGoneError, successorFromLink } from './query-client.js';
export type {
  ActivityQuery,
  ActivityReport,
  ActivityCounts,
  IntegrationInfo,
  QueryClient,
  QueryClientOptions,
} from './query-client.js';
export { ApiError, NetworkError } from '../src/api/errors.js';
