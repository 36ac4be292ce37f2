/**
 * Error taxonomy. `api/` and `session/` throw these; controllers turn them into UI state.
 * Every message starts with `[agent-chat]` so a site owner can grep a console for us.
 */

export type AgentChatErrorCode =
  | 'session_failed'
  | 'invalid_session'
  | 'network'
  | 'invalid_request'
  | 'invalid_token'
  | 'session_without_owner'
  | 'origin_not_allowed'
  | 'not_found'
  | 'payload_too_large'
  | 'rate_limited'
  | 'budget_exhausted'
  | 'file_unavailable'
  | 'challenge_failed'
  | 'gone'
  | 'http_error'
  | 'invalid_response'
  | 'misconfigured'
  | (string & {});

export class AgentChatError extends Error {
  override name = 'AgentChatError';
  readonly code: AgentChatErrorCode;

  constructor(code: AgentChatErrorCode, message: string, options?: { cause?: unknown }) {
    super(`[agent-chat] ${message}`, options);
    this.code = code;
  }
}

/** The site owner's session endpoint (or a custom token source) did not give a usable token. */
export class SessionError extends AgentChatError {
  override name = 'SessionError';
  /** HTTP status of the session endpoint, when it answered at all. */
  readonly status?: number;

  constructor(
    code: 'session_failed' | 'invalid_session',
    message: string,
    options?: { status?: number; cause?: unknown },
  ) {
    super(code, message, options);
    this.status = options?.status;
  }
}

/** The request never got an HTTP answer (offline, DNS, CORS, connection reset). */
export class NetworkError extends AgentChatError {
  override name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('network', message, options);
  }
}

/** A 2xx answer that is not what the contract promises (an HTML portal page, a wrong JSON shape). */
export class ProtocolError extends AgentChatError {
  override name = 'ProtocolError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_response', message, options);
  }
}

/** The page gave the widget no way to get a session (no session-endpoint, no getSessionToken). */
export class ConfigError extends AgentChatError {
  override name = 'ConfigError';
  constructor(message: string) {
    super('misconfigured', message);
  }
}

/** The service answered with a non-2xx status. */
export class ApiError extends AgentChatError {
  override name = 'ApiError';
  readonly status: number;
  /** The service's `detail`, when the body had the contract's error shape. */
  readonly detail?: string;
  /** Seconds to wait, from `Retry-After` on a 429. */
  readonly retryAfter?: number;

  constructor(
    status: number,
    code: AgentChatErrorCode,
    message: string,
    options?: { detail?: string; retryAfter?: number; cause?: unknown },
  ) {
    super(code, message, options);
    this.status = status;
    this.detail = options?.detail;
    this.retryAfter = options?.retryAfter;
  }
}

/**
 * The service would not start a public session (§2b): the page's origin is not listed, the
 * integration is not public, the address or the day's budget is spent, or the proof failed.
 */
export class PublicSessionError extends ApiError {
  override name = 'PublicSessionError';
}

/** A 401 that survived one token refresh: the service keeps rejecting fresh tokens. */
export class AuthError extends ApiError {
  override name = 'AuthError';
}

const CODE_BY_STATUS: Record<number, AgentChatErrorCode> = {
  400: 'invalid_request',
  401: 'invalid_token',
  403: 'session_without_owner',
  404: 'not_found',
  410: 'gone',
  413: 'payload_too_large',
  429: 'rate_limited',
};

/** Seconds from a `Retry-After` header (delta-seconds or HTTP date). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Builds the typed error for a non-2xx response. The contract's `{detail, code}` body is
 * used when present, but a proxy may answer HTML, so the status alone must be enough.
 */
export async function errorFromResponse(
  response: Response,
  what: string,
  ErrorClass: typeof ApiError = ApiError,
): Promise<ApiError> {
  let detail: string | undefined;
  let code: AgentChatErrorCode | undefined;
  try {
    const body: unknown = await response.json();
    if (body && typeof body === 'object') {
      const record = body as Record<string, unknown>;
      if (typeof record.detail === 'string') detail = record.detail;
      if (typeof record.code === 'string') code = record.code;
    }
  } catch {
    // Not JSON (an HTML error page from a proxy, say): the status speaks for itself.
  }
  const retryAfter =
    response.status === 429 ? parseRetryAfter(response.headers.get('Retry-After')) : undefined;
  const finalCode = code ?? CODE_BY_STATUS[response.status] ?? 'http_error';
  const message = `${what} failed with HTTP ${response.status}${detail ? `: ${detail}` : ''}`;
  return new ErrorClass(response.status, finalCode, message, { detail, retryAfter });
}

export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}
