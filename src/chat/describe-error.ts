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

/** Why the service would not start a public session (§2b), as the visitor reads it; whether trying again may help. */
const PUBLIC_REFUSALS: Record<string, [UiStringKey, boolean]> = {
  origin_not_allowed: ['errorNotAllowedHere', false],
  not_found: ['errorNotConfigured', false],
  budget_exhausted: ['errorBudgetSpent', false],
  rate_limited: ['errorBusy', true],
};

/** Turns any failure of a request into plain words for the visitor (and a code for the page). */
export function describeError(error: unknown): ErrorInfo {
  if (error instanceof PublicSessionError) {
    // A failed proof (challenge_failed) or a failing service: a new challenge may well pass.
    const [key, recoverable] = PUBLIC_REFUSALS[error.code] ?? ['errorSession', true];
    return errorInfo(error.code, key, recoverable, { status: error.status });
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
