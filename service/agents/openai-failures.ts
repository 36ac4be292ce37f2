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

/** What an HTTP status of the model server means: for the visitor, the operator, and a retry. */
function statusFailure(status: number, detail: string): { error: AgentError; retry: boolean } {
  if (status === 429)
    return {
      error: new AgentError(
        BUSY,
        'model_rate_limited',
        `the model server answered 429${detail}: raise its rate limit or lower the service's concurrency`,
      ),
      retry: true,
    };
  if (status === 408 || status >= 500)
    return {
      error: new AgentError(UNAVAILABLE, 'model_unavailable', `the model server answered ${status}${detail}`),
      retry: true,
    };
  const hint =
    status === 401 || status === 403
      ? ['model_unauthorized', `the model server answered ${status}${detail}: check OPENAI_API_KEY`]
      : status === 404
        ? [
            'model_not_found',
            `the model server answered 404${detail}: check OPENAI_BASE_URL (it ends in /v1) and OPENAI_MODEL`,
          ]
        : [
            'model_rejected',
            `the model server answered ${status}${detail}: if it refuses stream_options, set AGENT_CHAT_MODEL_USAGE=off; if the context is too long, lower AGENT_CHAT_MODEL_HISTORY_TOKENS`,
          ];
  return { error: new AgentError(UNAVAILABLE, hint[0], hint[1]), retry: false };
}

/** An HTTP error of the model server as a failure: retryable or not, with a hint for the operator. */
export async function httpFailure(response: Response): Promise<AttemptFailure> {
  const { status } = response;
  // The body says what went wrong (its code and type go to the log, never its message).
  let detail = '';
  try {
    const parsed = JSON.parse(new TextDecoder().decode(await readBounded(response, 16 * 1024))) as {
      error?: { code?: unknown; type?: unknown };
    };
    const code = parsed?.error?.code ?? parsed?.error?.type;
    if (typeof code === 'string' && /^[\w.-]{1,64}$/.test(code)) detail = ` (${code})`;
  } catch {
    await response.body?.cancel().catch(() => {});
  }
  const { error, retry } = statusFailure(status, detail);
  return new AttemptFailure(error, retry, retry ? retryAfterMs(response.headers) : null, status);
}

/** An error event inside a 200 stream: retried before the first token when it says busy or down. */
export function streamFailure(error: unknown): AttemptFailure {
  const fields = error && typeof error === 'object' ? (error as Record<string, unknown>) : {};
  const words = [fields.code, fields.type, fields.status]
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .map(String);
  const code = words.find((w) => /^[\w.-]{1,64}$/.test(w));
  const busy = words.some((w) => /rate_limit|429|overloaded|quota/i.test(w));
  const down = words.some((w) => /server_error|internal|unavailable|timeout|^5\d\d$/i.test(w));
  const hint = `the model server sent an error event${code ? ` (${code})` : ''} inside its stream`;
  return new AttemptFailure(
    new AgentError(busy ? BUSY : UNAVAILABLE, busy ? 'model_rate_limited' : 'model_stream_error', hint),
    busy || down,
  );
}
