/** The `agent-chat/server` entry: for the site owner's server only, never bundled for browsers. */
export { createSessionHandler } from './session-handler.js';
export type { FetchHandler, SessionHandlerOptions } from './session-handler.js';
export { toNodeHandler } from './node-adapter.js';
export { createQueryClient, EndpointGoneError, successorFromLink } from './query-client.js';
export type { ActivityQuery, ActivityReport, ActivityCounts, QueryClient, QueryClientOptions } from './query-client.js';
export { ApiError, NetworkError } from '../src/api/errors.js';
