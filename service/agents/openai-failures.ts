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
const BUSY = 'The assistant is busy right now. Please try again in a minute.';
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

/** Where a request of the agent went, for the hints: its address and the model it named. */
export interface ModelTarget {
  /** The chat completions URL (`OPENAI_BASE_URL` + `/chat/completions`). */
  url: string;
  model: string;
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
      : [
          'model_rejected',
          `the model server rejected the request: ${answered}; if it refuses stream_options, set AGENT_CHAT_MODEL_USAGE=off; if the context is too long, lower AGENT_CHAT_MODEL_HISTORY_TOKENS`,
        ];
  return { error: new AgentError(UNAVAILABLE, hint[0], hint[1]), retry: false };
}

/**
 * Whether a 404's body is an OpenAI-compatible server's answer about the model: a JSON error
 * (under `error`, as OpenAI, Ollama and LM Studio send it, or at the top, as older vLLM does)
 * whose code, type, parameter or message names the model. A path the server does not serve
 * gets its router's answer instead: text ("404 page not found"), HTML, `{"detail":"Not Found"}`,
 * or OpenAI's "Invalid URL (POST /chat/completions)".
 */
function namesModel(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const { error } = body as { error?: unknown };
  const fields = (error && typeof error === 'object' ? error : body) as Record<string, unknown>;
  const words = [fields.code, fields.type, fields.param, fields.message, typeof error === 'string' && error];
  return words.some((word) => typeof word === 'string' && /model/i.test(word));
}

/**
 * A 404 told apart by what the server answered (decision 502): an unknown model is the model's
 * name to fix; anything else means nothing serves chat completions at that address, which is
 * the base URL's to fix, most often its missing `/v1`. The hints hold the operator's own
 * settings (the model, the address's origin and path) and a plain code, never the server's message.
 */
function notFound(body: unknown, code: string | null, target: ModelTarget): AgentError {
  const answered = `it answered 404${code ? ` (${code})` : ''}`;
  const url = new URL(target.url);
  const base = `${url.origin}${url.pathname.replace(/\/chat\/completions$/, '')}`;
  if (namesModel(body))
    return new AgentError(
      UNAVAILABLE,
      'model_not_found',
      `the model server has no model "${target.model}": ${answered}; set OPENAI_MODEL to one of the models GET ${base}/models lists`,
    );
  const fix = /\/v\d+\w*$/.test(base)
    ? 'check that OPENAI_BASE_URL is the address of an OpenAI-compatible API'
    : `OPENAI_BASE_URL usually ends in /v1: try ${base}/v1`;
  return new AgentError(
    UNAVAILABLE,
    'model_url_not_found',
    `nothing serves chat completions at ${url.origin}${url.pathname}: ${answered}, naming no model; ${fix}`,
  );
}

/** An HTTP error of the model server as a failure: retryable or not, with a hint for the operator. */
export async function httpFailure(response: Response, target: ModelTarget): Promise<AttemptFailure> {
  const { status } = response;
  // The body says what went wrong (its code or type goes to the hint, never its message).
  let code: string | null = null;
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(await readBounded(response, 16 * 1024)));
    const parsed = body as { error?: { code?: unknown; type?: unknown } };
    code = modelCode(parsed?.error?.code) ?? modelCode(parsed?.error?.type);
  } catch {
    await response.body?.cancel().catch(() => {});
  }
  if (status === 404) return new AttemptFailure(notFound(body, code, target), false, null, status);
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
