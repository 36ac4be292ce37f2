import { createApiClient, type ApiClient } from '../api/api-client.js';
import { ConfigError } from '../api/errors.js';
import { endpointTokenSource, type SessionRequestHeaders } from '../session/endpoint-source.js';
import { publicTokenSource } from '../session/public-source.js';
import { TokenManager } from '../session/token-manager.js';
import type { SessionPayload, SessionStatus, TokenSource } from '../session/types.js';

/** What the connection reads from its host each time it needs it (attributes may change). */
export interface ConnectionConfig {
  projectId: string;
  integrationId: string;
  baseUrl: string;
  /** Whether the page named the base URL (else `baseUrl` is its own origin): needed for public sessions. */
  baseUrlGiven?: boolean;
  sessionEndpoint: string;
  getSessionToken?: (signal: AbortSignal) => Promise<SessionPayload>;
  /** Extra headers of each request to `sessionEndpoint`, read when it is made. */
  sessionRequestHeaders?: SessionRequestHeaders;
  /** Milliseconds a stream may stay silent before the answer counts as interrupted. */
  idleTimeoutMs?: number;
}

export const MISCONFIGURED_HINT =
  "No way to get a session: set the session-endpoint attribute (your server's session URL), the getSessionToken property, or base-url (a public integration).";

/**
 * Where sessions come from: the page's function, the site's session endpoint (§2), or with
 * neither and a base URL, the service's public sessions (§2b); null: nowhere.
 */
export function sessionSourceOf(config: ConnectionConfig): 'function' | 'endpoint' | 'public' | null {
  if (config.getSessionToken) return 'function';
  if (config.sessionEndpoint) return 'endpoint';
  return config.baseUrlGiven ? 'public' : null;
}

/**
 * The token manager and API client for the current config, built lazily (nothing is fetched
 * until a request needs it) and rebuilt, with a fresh session, when the config changes.
 */
export class ServiceConnection {
  #tokens?: TokenManager;
  #api?: ApiClient;
  #key = '';
  #custom?: ConnectionConfig['getSessionToken'];
  #reported = false;

  readonly #config: () => ConnectionConfig;
  readonly #onStatus: (status: SessionStatus) => void;
  readonly #fetch?: typeof globalThis.fetch;

  constructor(
    config: () => ConnectionConfig,
    onStatus: (status: SessionStatus) => void,
    fetch?: typeof globalThis.fetch,
  ) {
    this.#config = config;
    this.#onStatus = onStatus;
    this.#fetch = fetch;
  }

  /** The owner key of the latest session: its own, '' when it named none; undefined before any session. */
  get ownerKey(): string | undefined {
    if (!this.#tokens?.hasSession) return undefined;
    return this.#tokens.ownerKey ?? '';
  }

  /** Makes sure a session exists (one is minted if none is held), so its owner key is known. */
  async confirm(): Promise<void> {
    this.client();
    await this.#tokens!.getToken();
  }

  /** Once, when the page gave no way to get a session: the error to report, naming the fix. */
  misconfigured(): ConfigError | undefined {
    const config = this.#config();
    if (sessionSourceOf(config) || this.#reported) return undefined;
    this.#reported = true;
    return new ConfigError(MISCONFIGURED_HINT);
  }

  /** Forgets the token (and any fetch under way); the next request starts a new session. */
  clearToken(): void {
    this.#tokens?.clear();
  }

  #source(config: ConnectionConfig): TokenSource {
    switch (sessionSourceOf(config)) {
      case 'function':
        return config.getSessionToken!;
      case 'endpoint':
        return endpointTokenSource(config.sessionEndpoint, {
          fetch: this.#fetch,
          headers: () => this.#config().sessionRequestHeaders,
        });
      case 'public':
        return publicTokenSource({ ...config, fetch: this.#fetch });
      default:
        return missingSource;
    }
  }

  client(): ApiClient {
    const config = this.#config();
    const key = JSON.stringify([
      config.projectId,
      config.integrationId,
      config.baseUrl,
      config.sessionEndpoint,
      config.baseUrlGiven,
      config.idleTimeoutMs,
    ]);
    if (this.#api && key === this.#key && config.getSessionToken === this.#custom) return this.#api;
    const source = this.#source(config);
    this.#tokens?.clear();
    const tokens = new TokenManager(source);
    tokens.subscribe(this.#onStatus);
    this.#tokens = tokens;
    this.#custom = config.getSessionToken;
    this.#key = key;
    this.#api = createApiClient({
      baseUrl: config.baseUrl,
      projectId: config.projectId,
      integrationId: config.integrationId,
      tokens,
      fetch: this.#fetch,
      stream: { idleTimeoutMs: config.idleTimeoutMs },
    });
    return this.#api;
  }
}

async function missingSource(): Promise<never> {
  throw new ConfigError(MISCONFIGURED_HINT);
}
