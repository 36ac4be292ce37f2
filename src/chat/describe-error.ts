import {
  AgentChatError,
  ApiError,
  ConfigError,
  NetworkError,
  PublicSessionError,
  SessionError,
  isAbortError,
} from '../api/errors.js';
import { en, format, type UiStringKey } from '../i18n/index.js';
import type { ErrorInfo } from './types.js';

/**
 * One failure as the visitor reads it: a text key (the screen translates it) and the English
 * words (for the agent-chat-error event, with the code and status the screen never shows).
 */
export function errorInfo(
  code: string,
  key: UiStringKey,
  recoverable: boolean,
  extra: { status?: number; values?: Record<string, string | number> } = {},
): ErrorInfo {
  const { status, values } = extra;
  return {
    code,
    key,
    recoverable,
    message: format(en[key], values),
    ...(status === undefined ? {} : { status }),
    ...(values ? { values } : {}),
  };
}

/** Turns any failure of a request into plain words for the visitor (and a code for the page). */
export function describeError(error: unknown): ErrorInfo {
  if (error instanceof PublicSessionError) {
    // Refused a public session (§2b): an integration that is not public reads as not set up, the
    // address limit as busy, a failed proof or a failing service as a chat that could not start
    // (Retry solves a new challenge); a page elsewhere and a spent budget as on any route (below).
    const { code, status } = error;
    if (status === 404) return errorInfo(code, 'errorNotConfigured', false, { status });
    if (code === 'rate_limited') return errorInfo(code, 'errorBusy', true, { status });
    if (code !== 'origin_not_allowed' && code !== 'budget_exhausted')
      return errorInfo(code, 'errorSession', true, { status });
  }
  if (error instanceof SessionError)
    return errorInfo(error.code, 'errorSession', true, { status: error.status });
  if (error instanceof ConfigError) return errorInfo('misconfigured', 'errorNotConfigured', false);
  if (error instanceof NetworkError) return errorInfo('network', 'errorNetwork', true);
  if (error instanceof ApiError) {
    const { code, status } = error;
    switch (status) {
      case 429: {
        // A public integration's answers for the day are spent: no retry helps before tomorrow.
        if (code === 'budget_exhausted') return errorInfo(code, 'errorBudgetSpent', false, { status });
        const wait = error.retryAfter;
        return wait
          ? errorInfo(code, 'errorRateLimited', true, { status, values: { seconds: wait } })
          : errorInfo(code, 'errorRateLimitedShort', true, { status });
      }
      case 502:
      case 504:
        // A proxy's gateway error: the service behind it did not answer (decision 595).
        return errorInfo(code, 'errorNetwork', true, { status });
      case 413:
        return errorInfo(code, 'errorTooLong', false, { status });
      case 404:
        return errorInfo(code, 'errorThreadGone', false, { status });
      case 401:
        return errorInfo(code, 'errorSession', true, { status });
      case 403:
        // A page on an origin the integration does not list: nothing the visitor can change
        // (the site owner reads why in the console, see api-client.ts).
        return errorInfo(
          code,
          code === 'origin_not_allowed' ? 'errorNotAllowedHere' : 'errorSignInRequired',
          false,
          { status },
        );
      default:
        return errorInfo(code, 'errorGeneric', status >= 500, { status });
    }
  }
  // A ProtocolError (an answer that did not come through) reads the same as any other failure.
  if (error instanceof AgentChatError) return errorInfo(error.code, 'errorGeneric', true);
  if (isAbortError(error)) return errorInfo('aborted', 'stopped', true);
  return errorInfo('unknown', 'errorGeneric', true);
}
