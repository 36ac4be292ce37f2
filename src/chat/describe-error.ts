import { AgentChatError, ApiError, ConfigError, NetworkError, ProtocolError, SessionError, isAbortError } from '../api/errors.js';
import type { ErrorInfo } from './types.js';

/** Turns any failure of a request into words for the visitor (and a code for the page). */
export function describeError(error: unknown): ErrorInfo {
  if (error instanceof SessionError) {
    return { code: error.code, status: error.status, recoverable: true, message: "Couldn't start a secure session. Please try again in a moment." };
  }
  if (error instanceof ConfigError) {
    return { code: 'misconfigured', recoverable: false, message: 'This chat is not configured yet.' };
  }
  if (error instanceof ProtocolError) {
    return { code: 'invalid_response', recoverable: true, message: "The assistant's answer didn't come through. Please try again." };
  }
  if (error instanceof NetworkError) {
    return { code: 'network', recoverable: true, message: "Couldn't reach the assistant. Check your connection and try again." };
  }
  if (error instanceof ApiError) {
    const base = { code: error.code, status: error.status };
    switch (error.status) {
      case 429: {
        const wait = error.retryAfter;
        return { ...base, recoverable: true, message: wait ? `Too many messages right now. Try again in ${wait} s.` : 'Too many messages right now. Try again shortly.' };
      }
      case 413:
        return { ...base, recoverable: false, message: 'That message is too long. Please shorten it.' };
      case 404:
        return { ...base, recoverable: false, message: 'This conversation no longer exists. Start a new one.' };
      case 401:
        return { ...base, recoverable: true, message: "Your session couldn't be verified. Please try again." };
      case 403:
        return { ...base, recoverable: false, message: 'This is only available when you are signed in.' };
      default:
        return { ...base, recoverable: error.status >= 500, message: `Something went wrong (HTTP ${error.status}). Please try again.` };
    }
  }
  if (error instanceof AgentChatError) return { code: error.code, recoverable: true, message: 'Something went wrong. Please try again.' };
  if (isAbortError(error)) return { code: 'aborted', recoverable: true, message: 'Stopped.' };
  return { code: 'unknown', recoverable: true, message: 'Something went wrong. Please try again.' };
}
