import { AgentError } from './types.js';
import { readBounded } from './openai-stream.js';
import { retryAfterMs } from '../kernel/retry-after.js';

/** Thrown inside one try: `retry` says whether another try may follow. */
export class AttemptFailure extends Error {
  constructor(
    readonly failure: AgentError,
    readonly retry: boolean,
    readonly retryAfterMs: number | null = null,
    readonly status: number | null = null,
  ) {
    super(failure.message);
  }
}

export const UNAVAILABLE = 'The assistant is not available right now. Please try again in a moment.';
export const BUSY = 'The assistant is busy right now. Please try again in a minute.';
export const CUT = 'The answer was cut off because the connection to the model broke.';

/**
 * A code out of the model server's error body, as a hint may quote it: words of letters (or a
 * status's digits) joined by `_`, `.` or `-`, as `invalid_api_key` is. A hint goes to the log and
 * the console (decision 496), so nothing longer or mixed is quoted: a server that echoed the API
 * key (or any token) as its code would put it there.
 */
export function modelCode(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 64) return null;
  return /^(?:[a-z]{1,32}|\d{1,3})(?:[._-](?:[a-z]{1,32}|\d{1,3})){0,7}$/i.test(value) ? value : null;
}

/** What an HTTP status of the model server means: for the visitor, the operator, and a retry. */
function statusFailure(status: number, code: string | null): { error: AgentError; retry: boolean } {
  const answered = `it answered ${status}${code ? ` (${code})` : ''}`;
  if (status === 429)
    return {
      error: new AgentError(
        BUSY,
        'model_rate_limited',
        `the model server is limiting the service's rate: ${answered}; raise its rate limit or lower the service's concurrency`,
      ),
      retry: true,
    };
  if (status === 408 || status >= 500)
    return {
      error: new AgentError(
        UNAVAILABLE,
        'model_unavailable',
        `the model server is down or failing: ${answered}; check the model server`,
      ),
      retry: true,
    };
  const hint =
    status === 401 || status === 403
      ? ['model_unauthorized', `the model server refused the key: ${answered}; check OPENAI_API_KEY`]
      : status === 404
        ? [
            'model_not_found',
            `the model server has no such endpoint or model: ${answered}; check OPENAI_BASE_URL (it ends in /v1) and OPENAI_MODEL`,
          ]
        : [
            'model_rejected',
            `the model server rejected the request: ${answered}; if it refuses stream_options, set AGENT_CHAT_MODEL_USAGE=off; if the context is too long, lower AGENT_CHAT_MODEL_HISTORY_TOKENS`,
          ];
  return { error: new AgentError(UNAVAILABLE, hint[0], hint[1]), retry: false };
}

/** An HTTP error of the model server as a failure: retryable or not, with a hint for the operator. */
export async function httpFailure(response: Response): Promise<AttemptFailure> {
  const { status } = response;
  // The body says what went wrong (its code or type goes to the hint, never its message).
  let code: string | null = null;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(await readBounded(response, 16 * 1024))) as {
      error?: { code?: unknown; type?: unknown };
    };
    code = modelCode(parsed?.error?.code) ?? modelCode(parsed?.error?.type);
  } catch {
    await response.body?.cancel().catch(() => {});
  }
  const { error, retry } = statusFailure(status, code);
  return new AttemptFailure(error, retry, retry ? retryAfterMs(response.headers) : null, status);
}

/** An error event inside a 200 stream: retried before the first token when it says busy or down. */
export function streamFailure(error: unknown): AttemptFailure {
  const fields = error && typeof error === 'object' ? (error as Record<string, unknown>) : {};
  const words = [fields.code, fields.type, fields.status]
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .map(String);
  const code = words.map(modelCode).find((w) => w !== null);
  const busy = words.some((w) => /rate_limit|429|overloaded|quota/i.test(w));
  const down = words.some((w) => /server_error|internal|unavailable|timeout|^5\d\d$/i.test(w));
  const hint = `the model server sent an error event${code ? ` (${code})` : ''} inside its stream`;
  return new AttemptFailure(
    new AgentError(busy ? BUSY : UNAVAILABLE, busy ? 'model_rate_limited' : 'model_stream_error', hint),
    busy || down,
  );
}
