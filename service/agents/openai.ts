import { sleep } from './demo.js';
import { DocsIndex, asSources } from './docs-index.js';
import { fitHistory } from './history-budget.js';
import type { Article } from './knowledge.js';
import { type Phrases, agentLanguage, phrasesFor } from './phrases.js';
import { type Agent, type AgentInput, type AgentOutput, AgentError, type ToolCall } from './types.js';

export interface OpenAiAgentOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), a vLLM or llama.cpp server. */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token when set; local servers usually need none. */
  apiKey?: string;
  /** The site's documents, retrieved per question. */
  docs: Article[];
  /**
   * Relevance threshold of the retrieval. Default 2, lower than the demo agent's: BM25 scores
   * shrink with a small corpus, and the model is told to say when the documents do not answer.
   */
  minScore?: number;
  /** How many documents go into the prompt. Default 3. */
  topK?: number;
  /**
   * Tries per model call when the model answers 408, 429 or 5xx, or cannot be reached, before
   * its first token. Default 3; 1 turns retries off. Nothing is retried once text has streamed.
   */
  maxTries?: number;
  /** First backoff step: 0.5 s, then 1 s, 2 s (with jitter). `Retry-After` wins when sent. Default 500 ms. */
  retryBaseMs?: number;
  /** A `Retry-After` longer than this fails the answer at once instead of holding it. Default 20 s. */
  maxRetryDelayMs?: number;
  /** How long the model may take to send its first token, retries included. Default 60 s. */
  firstTokenTimeoutMs?: number;
  /** After this long without a first token the visitor is told the answer is still coming. Default 4 s. */
  stillWorkingAfterMs?: number;
  /** Longest silence once the answer streams; past it the answer ends as an error. Default 60 s. */
  stallTimeoutMs?: number;
  /**
   * Tokens the earlier turns of a thread may take in each request (estimated, see
   * `estimateTokens`); the oldest turns are left out first. The system prompt, the retrieved
   * documents, the question and this answer's tool rounds always go. Default 8,000.
   */
  historyTokens?: number;
  /** Ask for token usage (`stream_options.include_usage`). Default true; turn off for a server that refuses the field. */
  usage?: boolean;
  /** Operator log for retries (never message text). */
  log?: (
    entry: { level: 'info' | 'warn' | 'error'; msg: string } & Record<
      string,
      string | number | boolean | null
    >,
  ) => void;
  fetch?: typeof fetch;
}

/** A hostile or broken upstream must not grow memory: no SSE line is longer than this. */
const MAX_LINE = 1 << 20;
/** An error body or a non-streamed answer is read up to this size. */
const MAX_BODY = 1 << 20;

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

interface ChunkDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

interface Chunk {
  choices?: { delta?: ChunkDelta; message?: ChunkDelta; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: unknown;
}

/** Where one answer is in its life: the first token ends retries and the first-token deadline. */
interface Progress {
  started: number;
  firstTokenBy: number;
  /** When the first token came; null before. */
  firstTokenAt: number | null;
  /** When the still-working step was shown; null before. */
  noticed: number | null;
  /** Last time anything arrived from the model, for the stall timeout. */
  lastData: number;
  /** Once the answer streams, one timer per try watches for silence (no timer per chunk). */
  watchdog?: ReturnType<typeof setTimeout>;
  stalled: boolean;
  stepId: string;
  phrases: Phrases;
}

/** What decides how a finished try ends: the tools the page offers, and text from before a pause. */
interface Ending {
  declared: Set<string>;
  partial: boolean;
}

/** Thrown inside one try: `retry` says whether another try may follow. */
class AttemptFailure extends Error {
  constructor(
    readonly failure: AgentError,
    readonly retry: boolean,
    readonly retryAfterMs: number | null = null,
    readonly status: number | null = null,
  ) {
    super(failure.message);
  }
}

const UNAVAILABLE = 'The assistant is not available right now. Please try again in a moment.';
const BUSY = 'The assistant is busy right now. Please try again in a minute.';
const CUT = 'The answer was cut off because the connection to the model broke.';

/**
 * A model agent over the OpenAI-compatible streaming Chat Completions protocol, with plain
 * fetch: the protocol is a POST and a server-sent event stream, which a client library would
 * only wrap, and fetch keeps the agent runnable wherever the service runs.
 *
 * Every failure of the model (an HTTP error, an error event inside a 200 stream, a cut or
 * malformed stream, a silent model) throws an `AgentError`, so the answer ends with the `error`
 * record and keeps its text; a stream never ends quietly as if it were whole.
 */
export class OpenAiAgent implements Agent {
  private readonly docs: DocsIndex;
  private readonly fetch: typeof fetch;
  private readonly url: string;

  constructor(private readonly options: OpenAiAgentOptions) {
    this.docs = new DocsIndex(options.docs, options.minScore ?? 2);
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  async *answer(input: AgentInput): AsyncIterable<AgentOutput> {
    const phrases = phrasesFor(input.locale);
    const first = input.rounds.length === 0;
    const step = {
      id: 'search-1',
      name: 'search_knowledge_base',
      summary: phrases.searching(input.message),
      num_results: null,
    };
    if (first) yield { type: 'activity', step: { ...step, status: 'started' } };
    const found = this.docs.search(input.message, this.options.topK ?? 3);
    if (first) {
      yield {
        type: 'activity',
        step: {
          ...step,
          status: 'completed',
          summary: phrases.found(found.length),
          num_results: found.length,
        },
      };
      if (found.length) yield { type: 'sources', sources: asSources(found, null) };
      else yield { type: 'uncertain' };
    }

    const body = JSON.stringify({
      model: this.options.model,
      stream: true,
      ...(this.options.usage !== false && { stream_options: { include_usage: true } }),
      messages: this.messages(input, found, phrases),
      ...(input.tools.length && {
        tools: input.tools.map((t) => ({
          type: 'function',
          function: { name: t.name, description: t.description, parameters: t.parameters },
        })),
      }),
    });
    const now = Date.now();
    const progress: Progress = {
      started: now,
      firstTokenBy: now + (this.options.firstTokenTimeoutMs ?? 60_000),
      firstTokenAt: null,
      noticed: null,
      lastData: now,
      stalled: false,
      stepId: `model-${input.rounds.length + 1}`,
      phrases,
    };
    const maxTries = Math.max(1, this.options.maxTries ?? 3);
    for (let attempt = 1; ; attempt++) {
      try {
        return yield* this.attempt(body, input, progress);
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        const delay =
          error.retry && progress.firstTokenAt === null && attempt < maxTries
            ? this.retryDelay(error, attempt, progress)
            : null;
        if (delay === null) {
          if (progress.noticed !== null && progress.firstTokenAt === null)
            yield this.waitStep(progress, 'error', phrases.notStarted);
          throw error.failure;
        }
        this.options.log?.({
          level: 'warn',
          msg: 'model_retry',
          code: error.failure.code,
          status: error.status,
          attempt,
          delay_ms: delay,
        });
        progress.noticed ??= Date.now();
        yield this.waitStep(progress, 'started', phrases.retrying);
        await sleep(delay, input.signal);
        progress.lastData = Date.now();
      }
    }
  }

  /** One request: streams text and tool calls; throws AttemptFailure for what it cannot finish. */
  private async *attempt(
    body: string,
    input: AgentInput,
    progress: Progress,
  ): AsyncGenerator<AgentOutput, void> {
    const ending: Ending = {
      declared: new Set(input.tools.map((t) => t.name)),
      partial: input.partial !== '',
    };
    const local = new AbortController();
    const signal = AbortSignal.any([input.signal, local.signal]);
    try {
      let response: Response;
      try {
        response = yield* this.wait(
          this.fetch(this.url, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json',
              Accept: 'text/event-stream',
              ...(this.options.apiKey && { Authorization: `Bearer ${this.options.apiKey}` }),
            },
            body,
            signal,
          }),
          progress,
          local,
        );
      } catch (error) {
        throw input.signal.aborted || error instanceof AttemptFailure
          ? error
          : new AttemptFailure(
              new AgentError(
                UNAVAILABLE,
                'model_unreachable',
                'the model server could not be reached: check OPENAI_BASE_URL and that the server is up',
              ),
              true,
            );
      }
      if (!response.ok) throw await httpFailure(response);
      const type = response.headers.get('Content-Type') ?? '';
      if (type.includes('application/json')) {
        // A server that ignored `stream: true` sends one whole completion.
        yield* this.whole(response, progress, ending);
        return;
      }
      if (!type.includes('text/event-stream') || !response.body) {
        await response.body?.cancel().catch(() => {});
        throw new AttemptFailure(
          new AgentError(
            UNAVAILABLE,
            'model_not_streaming',
            `the model server answered ${type.split(';')[0] || 'without a type'} instead of an event stream: check that OPENAI_BASE_URL is an OpenAI-compatible /v1 endpoint`,
          ),
          false,
        );
      }
      yield* this.stream(response.body, progress, local, ending);
    } finally {
      clearTimeout(progress.watchdog);
      local.abort();
    }
  }

  /** Reads the event stream of one try to its end. */
  private async *stream(
    body: ReadableStream<Uint8Array>,
    progress: Progress,
    local: AbortController,
    ending: Ending,
  ): AsyncGenerator<AgentOutput, void> {
    const calls: { id: string; name: string; args: string }[] = [];
    let usage: Chunk['usage'] = null;
    let finish: string | null = null;
    let done = false;
    let text = false;
    const events = serverSentEvents(body);
    try {
      for (;;) {
        let next: IteratorResult<{ event: string; data: string }>;
        try {
          // Before the first token each read is timed (the still-working step, the deadline);
          // after it, the watchdog alone keeps time, so a chunk costs no timer.
          next =
            progress.firstTokenAt === null
              ? yield* this.wait(events.next(), progress, local)
              : await events.next();
        } catch (error) {
          if (progress.stalled) throw this.stalledFailure();
          if (error instanceof AttemptFailure || local.signal.aborted) throw error;
          if (error instanceof MalformedStream)
            throw new AttemptFailure(new AgentError(CUT, 'model_malformed_stream', error.message), false);
          throw new AttemptFailure(
            new AgentError(CUT, 'model_stream_broken', 'the connection to the model server broke mid-answer'),
            true,
          );
        }
        if (next.done) break;
        progress.lastData = Date.now();
        const { event, data } = next.value;
        if (data === '[DONE]') {
          done = true;
          break;
        }
        let chunk: Chunk;
        try {
          chunk = JSON.parse(data) as Chunk;
        } catch {
          throw new AttemptFailure(
            new AgentError(CUT, 'model_malformed_stream', 'the model server sent an event that is not JSON'),
            false,
          );
        }
        if (event === 'error' || (chunk && typeof chunk === 'object' && chunk.error))
          throw streamFailure(chunk?.error ?? chunk);
        if (!chunk || typeof chunk !== 'object')
          throw new AttemptFailure(
            new AgentError(
              CUT,
              'model_malformed_stream',
              'the model server sent an event that is not an object',
            ),
            false,
          );
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (choice?.finish_reason) finish = choice.finish_reason;
        const delta = choice?.delta;
        if (!delta) continue;
        if (
          progress.firstTokenAt === null &&
          (delta.content || delta.tool_calls?.length || delta.reasoning_content || delta.reasoning)
        )
          yield* this.firstToken(progress, local);
        if (delta.content) {
          text = true;
          yield { type: 'text', text: delta.content };
        }
        for (const part of delta.tool_calls ?? []) collectCall(calls, part);
      }
    } finally {
      void events.return(undefined);
    }
    if (!done && finish === null) {
      // The stream closed without [DONE] or a finish reason: cut, whatever was said so far.
      throw new AttemptFailure(
        new AgentError(CUT, 'model_stream_cut', 'the model server closed the stream before the answer ended'),
        true,
      );
    }
    yield* this.end({ calls, usage, finish, text }, ending);
  }

  /** A whole (non-streamed) completion, from a server that ignored `stream: true`. */
  private async *whole(
    response: Response,
    progress: Progress,
    ending: Ending,
  ): AsyncGenerator<AgentOutput, void> {
    let chunk: Chunk;
    try {
      chunk = JSON.parse(new TextDecoder().decode(await readBounded(response, MAX_BODY))) as Chunk;
    } catch {
      throw new AttemptFailure(
        new AgentError(CUT, 'model_malformed_stream', 'the model server sent JSON that does not parse'),
        false,
      );
    }
    if (chunk?.error) throw streamFailure(chunk.error);
    const choice = chunk?.choices?.[0];
    const message = choice?.message ?? choice?.delta;
    yield* this.firstToken(progress, null);
    if (message?.content) yield { type: 'text', text: message.content };
    const calls: { id: string; name: string; args: string }[] = [];
    (message?.tool_calls ?? []).forEach((part, index) => collectCall(calls, { index, ...part }));
    yield* this.end(
      {
        calls,
        usage: chunk?.usage ?? null,
        finish: choice?.finish_reason ?? 'stop',
        text: Boolean(message?.content),
      },
      ending,
    );
  }

  /** What a finished try yields last: usage (before a pause ends the run), then tool calls; or why it is not whole. */
  private async *end(
    {
      calls,
      usage,
      finish,
      text,
    }: {
      calls: { id: string; name: string; args: string }[];
      usage: Chunk['usage'];
      finish: string | null;
      text: boolean;
    },
    { declared, partial }: Ending,
  ): AsyncGenerator<AgentOutput, void> {
    if (usage)
      yield {
        type: 'usage',
        promptTokens: count(usage.prompt_tokens),
        completionTokens: count(usage.completion_tokens),
      };
    if (finish === 'length')
      throw new AgentError(
        "The answer was cut off: it reached the model's length limit.",
        'model_length',
        'the model stopped at its output limit; raise it on the model server or lower AGENT_CHAT_MODEL_HISTORY_TOKENS',
      );
    if (finish === 'content_filter')
      throw new AgentError('The model declined to answer this question.', 'model_content_filter');
    const toolCalls: ToolCall[] = calls
      .filter((c) => declared.has(c.name))
      .map((c) => ({
        id: c.id || `call_${crypto.randomUUID()}`,
        name: c.name,
        arguments: parseArguments(c.args),
      }));
    if (toolCalls.length) yield { type: 'tool_calls', calls: toolCalls };
    // After a tool round the model may have nothing to add to what it said before the pause.
    else if (!text && !partial)
      throw new AgentError(
        'The model sent an empty answer.',
        'model_empty',
        calls.length ? 'the model called a tool this page did not offer' : undefined,
      );
  }

  /** The first token arrived: no more retries, and a shown still-working step is completed. */
  private *firstToken(progress: Progress, local: AbortController | null): Generator<AgentOutput, void> {
    if (progress.firstTokenAt !== null) return;
    progress.firstTokenAt = Date.now();
    if (local) {
      const stall = this.options.stallTimeoutMs ?? 60_000;
      const check = () => {
        const idle = Date.now() - progress.lastData;
        if (idle < stall) progress.watchdog = setTimeout(check, stall - idle);
        else {
          progress.stalled = true;
          local.abort();
        }
      };
      progress.watchdog = setTimeout(check, stall);
    }
    if (progress.noticed !== null)
      yield this.waitStep(
        progress,
        'completed',
        progress.phrases.startedAfter(
          Math.max(1, Math.round((progress.firstTokenAt - progress.started) / 1000)),
        ),
      );
  }

  private waitStep(
    progress: Progress,
    status: 'started' | 'completed' | 'error',
    summary: string,
  ): AgentOutput {
    return {
      type: 'activity',
      step: { id: progress.stepId, name: 'wait_for_model', status, summary, num_results: null },
    };
  }

  /**
   * Awaits `promise` before the first token, keeping time: shows the still-working step when
   * the first token is late, and fails at the first-token deadline.
   */
  private async *wait<T>(
    promise: Promise<T>,
    progress: Progress,
    local: AbortController,
  ): AsyncGenerator<AgentOutput, T> {
    const settled = promise.then((value) => ({ value }));
    settled.catch(() => {});
    const deadline = progress.firstTokenBy;
    for (;;) {
      const now = Date.now();
      const notice =
        progress.noticed === null
          ? progress.started + (this.options.stillWorkingAfterMs ?? 4_000)
          : Number.POSITIVE_INFINITY;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const outcome = await Promise.race([
        settled,
        new Promise<null>(
          (resolve) => (timer = setTimeout(resolve, Math.max(0, Math.min(notice, deadline) - now), null)),
        ),
      ]);
      clearTimeout(timer);
      if (outcome) return outcome.value;
      // A timer may fire a little early: act only on what is really due, else wait again.
      if (Date.now() >= deadline) {
        local.abort();
        const seconds = Math.max(1, Math.round((deadline - progress.started) / 1000));
        throw new AttemptFailure(
          new AgentError(
            `The model did not start answering within ${seconds} s.`,
            'model_first_token_timeout',
            "raise AGENT_CHAT_MODEL_FIRST_TOKEN_TIMEOUT or check the model server's load",
          ),
          false,
        );
      }
      if (Date.now() >= notice) {
        progress.noticed = Date.now();
        yield this.waitStep(progress, 'started', progress.phrases.stillWorking);
      }
    }
  }

  private stalledFailure(): AttemptFailure {
    const seconds = Math.max(1, Math.round((this.options.stallTimeoutMs ?? 60_000) / 1000));
    return new AttemptFailure(
      new AgentError(`The answer stopped: the model sent nothing for ${seconds} s.`, 'model_stalled'),
      false,
    );
  }

  /** How long to wait before the next try; null when it must not be made. */
  private retryDelay(error: AttemptFailure, attempt: number, progress: Progress): number | null {
    const base = this.options.retryBaseMs ?? 500;
    const backoff = base * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
    const delay = error.retryAfterMs ?? backoff;
    if (delay > (this.options.maxRetryDelayMs ?? 20_000) || Date.now() + delay >= progress.firstTokenBy)
      return null;
    return Math.round(delay);
  }

  private messages(input: AgentInput, found: Article[], phrases: Phrases): ChatMessage[] {
    const docs = found.length
      ? found.map((a) => `## ${a.title}\nURL: ${a.url}\n\n${a.body}`).join('\n\n---\n\n')
      : '(no document matched this question)';
    const messages: ChatMessage[] = [
      { role: 'system', content: `${systemPrompt(input.locale, phrases)}\n\n# Documents\n\n${docs}` },
    ];
    const earlier = input.history
      .filter((m) => m.content && m.status !== 'error')
      .map((m) => ({ role: m.role, content: m.content }));
    messages.push(...fitHistory(earlier, this.options.historyTokens ?? 8_000));
    messages.push({ role: 'user', content: input.message });
    input.rounds.forEach((round, i) => {
      messages.push({
        role: 'assistant',
        content: i === 0 && input.partial ? input.partial : null,
        tool_calls: round.calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.arguments) },
        })),
      });
      for (const r of round.results)
        messages.push({
          role: 'tool',
          tool_call_id: r.tool_call_id,
          content: 'error' in r ? `Error: ${r.error}` : JSON.stringify(r.output ?? null),
        });
    });
    return messages;
  }
}

/** The instructions, in the visitor's language when the chat call named one. */
function systemPrompt(locale: string | undefined, phrases: Phrases): string {
  const known =
    locale !== undefined &&
    agentLanguage(locale) === phrases.language &&
    phrases.language === locale.split('-')[0].toLowerCase();
  const notFound =
    locale === undefined || known
      ? `say "${phrases.notFound}" and nothing else`
      : 'say in one short sentence that the documents do not cover it, and nothing else';
  const lines = [
    'You are the documentation assistant of this website. Answer only from the documents below, in Markdown, briefly.',
    `If they do not answer the question, ${notFound}.`,
    'Use a tool when the visitor asks for what it does.',
  ];
  if (locale !== undefined)
    lines.push(
      `The visitor reads ${languageName(locale)} (${locale}): write your answer in that language, whatever the language of the documents.`,
    );
  return lines.join('\n');
}

function languageName(locale: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
}

const count = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;

function collectCall(
  calls: { id: string; name: string; args: string }[],
  part: NonNullable<ChunkDelta['tool_calls']>[number] & {
    function?: { name?: string; arguments?: string | object };
  },
) {
  const call = (calls[part.index ?? 0] ??= { id: '', name: '', args: '' });
  if (part.id) call.id = part.id;
  if (part.function?.name) call.name += part.function.name;
  const args = part.function?.arguments;
  if (args) call.args += typeof args === 'string' ? args : JSON.stringify(args);
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** The seconds or date of `Retry-After`, or OpenAI's `retry-after-ms`; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** An HTTP error of the model server as a failure: retryable or not, with a hint for the operator. */
async function httpFailure(response: Response): Promise<AttemptFailure> {
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
  const retryAfter = retryAfterMs(response.headers);
  if (status === 429)
    return new AttemptFailure(
      new AgentError(
        BUSY,
        'model_rate_limited',
        `the model server answered 429${detail}: raise its rate limit or lower the service's concurrency`,
      ),
      true,
      retryAfter,
      status,
    );
  if (status === 408 || status >= 500)
    return new AttemptFailure(
      new AgentError(UNAVAILABLE, 'model_unavailable', `the model server answered ${status}${detail}`),
      true,
      retryAfter,
      status,
    );
  if (status === 401 || status === 403)
    return new AttemptFailure(
      new AgentError(
        UNAVAILABLE,
        'model_unauthorized',
        `the model server answered ${status}${detail}: check OPENAI_API_KEY`,
      ),
      false,
      null,
      status,
    );
  if (status === 404)
    return new AttemptFailure(
      new AgentError(
        UNAVAILABLE,
        'model_not_found',
        `the model server answered 404${detail}: check OPENAI_BASE_URL (it ends in /v1) and OPENAI_MODEL`,
      ),
      false,
      null,
      status,
    );
  return new AttemptFailure(
    new AgentError(
      UNAVAILABLE,
      'model_rejected',
      `the model server answered ${status}${detail}: if it refuses stream_options, set AGENT_CHAT_MODEL_USAGE=off; if the context is too long, lower AGENT_CHAT_MODEL_HISTORY_TOKENS`,
    ),
    false,
    null,
    status,
  );
}

/** An error event inside a 200 stream: retried before the first token when it says busy or down. */
function streamFailure(error: unknown): AttemptFailure {
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

class MalformedStream extends Error {
  override name = 'MalformedStream';
}

async function readBounded(response: Response, limit: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw new MalformedStream(`the answer is over ${limit} bytes`);
      chunks.push(value);
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** The events of a server-sent event stream: `event:` name (default `message`) and `data:` lines joined. */
async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let event = 'message';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      if (buffer.length > MAX_LINE && !buffer.includes('\n'))
        throw new MalformedStream('the model server sent a line over 1 MiB');
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        if (line === '') {
          if (data.length) yield { event, data: data.join('\n') };
          data = [];
          event = 'message';
        } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        else if (line.startsWith('event:')) event = line.slice(6).trim();
      }
    }
    if (data.length) yield { event, data: data.join('\n') };
  } finally {
    void reader.cancel().catch(() => {});
  }
}
