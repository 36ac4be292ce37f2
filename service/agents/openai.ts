import { questionTurn } from './attachments.js';
import { sleep } from './demo.js';
import { filePhrasesFor } from './file-phrases.js';
import { earlierQuestion, firstSearch } from './docs-prompt.js';
import type { DocsSearch, Hit } from '../docs/types.js';
import type { Log } from '../kernel/log.js';
import { AttemptFailure, CUT, UNAVAILABLE, httpFailure, streamFailure } from './openai-failures.js';
import { ModelClock } from './openai-clock.js';
import { requestOf } from './openai-prompt.js';
import { Citation, ModelSearches, SEARCH_TOOL, searchToolSpec } from './openai-search.js';
import {
  type CallParts,
  type Calls,
  type Chunk,
  MalformedStream,
  callsInOrder,
  collectCall,
  parseArguments,
  readBounded,
  serverSentEvents,
} from './openai-stream.js';
import { type Phrases, phrasesFor } from './phrases.js';
import { type Agent, type AgentInput, type AgentOutput, AgentError, type ToolCall } from './types.js';

export interface OpenAiAgentOptions {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), a vLLM or llama.cpp server. */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token when set; local servers usually need none. */
  apiKey?: string;
  /**
   * The site's documents, searched per question when the service gives the answer none
   * (`AgentInput.docs`, a project's library); without either, it answers without documents.
   */
  docs?: DocsSearch;
  /**
   * Match (BM25) score the best section must reach for the documents to count as found; below it the answer
   * is flagged uncertain and the model told nothing matched. Default 2, lower than the demo
   * agent's: the model is told to say when the documents do not answer.
   */
  minScore?: number;
  /**
   * Estimated tokens the retrieved sections may take in each request, best first; the model's
   * own searches take their part of it, the question's sections the rest. Default 6,000.
   */
  docsTokens?: number;
  /**
   * Offer the model a `search_docs` tool when it has docs, which the agent runs itself: at most
   * two searches an answer (OPENAI_DOCS_SEARCH=0 turns it off). Default true.
   */
  docsSearch?: boolean;
  /**
   * Bytes the whole request may take (JSON, UTF-8). The sections, then the earlier turns give
   * way to stay under it; tool outputs are cut as a last resort. Default 64 KiB.
   */
  maxRequestBytes?: number;
  /** The model accepts images (`image_url` parts, OPENAI_VISION=1); else it is told, and the visitor too, that it did not see them. Default false. */
  vision?: boolean;
  /** Estimated tokens the question's text files and PDFs may take together. Default 4,000. */
  fileTokens?: number;
  /** Bytes of the question's images (before base64) one request may carry, on top of `maxRequestBytes`. Default 8 MB. */
  imageBytes?: number;
  /** Pages of a PDF that are read; the rest are left out, and the model is told. Default 30. */
  pdfPages?: number;
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
   * `estimateTokens`); the oldest turns are left out first, and so they are when the request
   * would be over `maxRequestBytes`. Default 8,000.
   */
  historyTokens?: number;
  /** Ask for token usage (`stream_options.include_usage`). Default true; turn off for a server that refuses the field. */
  usage?: boolean;
  /** The most tokens one model call may write (`max_tokens`). Default 8,192; 0 sends none (the server's own limit). */
  maxTokens?: number;
  /** Operator log for retries (never message text). */
  log?: Log;
  fetch?: typeof fetch;
}

/** An error body or a non-streamed answer is read up to this size. */
const MAX_BODY = 1 << 20;
/**
 * What one model call may write unless told otherwise: a server with no limit of its own keeps
 * going as long as it likes (the answer's cap ends it, but the tokens are spent). About 32 KB of
 * English, a long answer with room for reasoning models' thinking.
 */

/** What the model server sent that this agent cannot read, as a failure of the try (never retried). */
const malformed = (error: MalformedStream) =>
  new AttemptFailure(new AgentError(CUT, 'model_malformed_stream', error.message), false);

/** What one model call said and asked for. */
interface Reply {
  text: string;
  calls: CallParts[];
}

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
  private readonly fetch: typeof fetch;
  private readonly url: string;

  constructor(private readonly options: OpenAiAgentOptions) {
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  async *answer(input: AgentInput): AsyncIterable<AgentOutput> {
    const phrases = phrasesFor(input.locale);
    const turn = await questionTurn(input.message, input.attachments ?? [], {
      vision: this.options.vision ?? false,
      tokens: this.options.fileTokens ?? 4_000,
      imageBytes: this.options.imageBytes ?? 8_000_000,
      pdfPages: this.options.pdfPages ?? 30,
    });
    // Said once, before the answer: the model did not see these images.
    if (turn.unseen.length && input.rounds.length === 0)
      yield { type: 'text', text: `_${filePhrasesFor(input.locale).cannotSee(turn.unseen)}_\n\n` };
    const docs = input.docs ?? this.options.docs;
    const relevant = yield* this.retrieve(input, phrases, docs);
    const searches = new ModelSearches({
      docs,
      enabled: this.options.docsSearch !== false,
      pageTools: input.tools.map((t) => t.name),
      firstRun: input.rounds.length === 0,
      minScore: this.options.minScore ?? 2,
      docsTokens: this.options.docsTokens ?? 6_000,
      maxRequestBytes: this.options.maxRequestBytes ?? 64 * 1024,
    });
    const cite = new Citation(input.rounds.length === 0, searches);
    for (let call = 1; ; call++) {
      const offered = searches.offered;
      const { body, found } = requestOf(
        input,
        relevant,
        phrases,
        { ...this.options, docsTokens: (this.options.docsTokens ?? 6_000) - searches.tokens },
        turn.content,
        { tools: offered ? [searchToolSpec] : [], messages: searches.messages },
      );
      if (call === 1) yield* cite.retrieved(found, phrases, input.message);
      const clock = `model-${input.rounds.length + 1}${call > 1 ? `-${call}` : ''}`;
      const reply = yield* cite.beforeText(this.call(body, input, phrases, clock));
      cite.said ||= reply.text !== '';
      const page = reply.calls.filter((c) => input.tools.some((t) => t.name === c.name));
      const asked = offered ? reply.calls.filter((c) => c.name === SEARCH_TOOL) : [];
      if (!page.length && asked.length) {
        yield* searches.run(asked, reply.text, phrases);
        continue;
      }
      yield* cite.sources();
      if (page.length) yield { type: 'tool_calls', calls: page.map(toolCall) };
      // After a tool round the model may have nothing to add to what it said before the pause.
      else if (!cite.said && input.partial === '') throw emptyAnswer(reply.calls.length > 0);
      return;
    }
  }

  /** One model call, tried again while the model is busy or unreachable before its first token. */
  private async *call(
    body: string,
    input: AgentInput,
    phrases: Phrases,
    stepId: string,
  ): AsyncGenerator<AgentOutput, Reply> {
    const clock = new ModelClock(this.options, phrases, stepId);
    const maxTries = Math.max(1, this.options.maxTries ?? 3);
    for (let attempt = 1; ; attempt++) {
      try {
        return yield* this.attempt(body, input, clock);
      } catch (error) {
        if (!(error instanceof AttemptFailure)) throw error;
        const delay =
          error.retry && clock.firstTokenAt === null && attempt < maxTries
            ? clock.retryDelay(error, attempt)
            : null;
        if (delay === null) {
          // The wait step ends in words that fit: "in time" only when time ran out.
          if (clock.noticed !== null && clock.firstTokenAt === null) {
            const timedOut = error.failure.code === 'model_first_token_timeout';
            yield clock.step('error', timedOut ? phrases.notStarted : phrases.notAnswered);
          }
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
        clock.noticed ??= Date.now();
        yield clock.step('started', phrases.retrying);
        await sleep(delay, input.signal);
        clock.lastData = Date.now();
      }
    }
  }

  /** The sections that match the question; on the first run, the search is shown as a step. */
  private async *retrieve(
    input: AgentInput,
    phrases: Phrases,
    docs: DocsSearch | undefined,
  ): AsyncGenerator<AgentOutput, Hit[]> {
    if (input.rounds.length === 0)
      yield { type: 'activity', step: { ...firstSearch(phrases, input.message), status: 'started' } };
    const hits = docs ? await docs.search(input.message, 40, earlierQuestion(input.history)) : [];
    return hits.some((hit) => hit.match >= (this.options.minScore ?? 2)) ? hits : [];
  }

  /** One request: streams text and tool calls; throws AttemptFailure for what it cannot finish. */
  private async *attempt(
    body: string,
    input: AgentInput,
    clock: ModelClock,
  ): AsyncGenerator<AgentOutput, Reply> {
    const local = new AbortController();
    try {
      const response = yield* this.post(body, input.signal, clock, local);
      if (!response.ok) throw await httpFailure(response, { url: this.url, model: this.options.model });
      const type = response.headers.get('Content-Type') ?? '';
      if (type.includes('application/json')) {
        // A server that ignored `stream: true` sends one whole completion.
        return yield* wholeCompletion(response, clock);
      }
      if (!type.includes('text/event-stream') || !response.body) {
        await response.body?.cancel().catch(() => {});
        // The type as the hint quotes it: a media type, nothing else the server put in the header.
        const media = type.split(';')[0].trim();
        const shown = /^[\w.+-]{1,40}\/[\w.+-]{1,60}$/.test(media)
          ? media
          : media
            ? 'a Content-Type that is no media type'
            : 'without a type';
        throw new AttemptFailure(
          new AgentError(
            UNAVAILABLE,
            'model_not_streaming',
            `the model server answered ${shown} instead of an event stream: check that OPENAI_BASE_URL is an OpenAI-compatible /v1 endpoint`,
          ),
          false,
        );
      }
      return yield* this.stream(response.body, clock, local);
    } finally {
      clearTimeout(clock.watchdog);
      local.abort();
    }
  }

  /** The request of one try, timed like the first token; an unreachable server may be retried. */
  private async *post(
    body: string,
    signal: AbortSignal,
    clock: ModelClock,
    local: AbortController,
  ): AsyncGenerator<AgentOutput, Response> {
    try {
      return yield* clock.wait(
        this.fetch(this.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'text/event-stream',
            ...(this.options.apiKey && { Authorization: `Bearer ${this.options.apiKey}` }),
          },
          body,
          signal: AbortSignal.any([signal, local.signal]),
        }),
        local,
      );
    } catch (error) {
      throw signal.aborted || error instanceof AttemptFailure
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
  }

  /** Reads the event stream of one try to its end. */
  private async *stream(
    body: ReadableStream<Uint8Array>,
    clock: ModelClock,
    local: AbortController,
  ): AsyncGenerator<AgentOutput, Reply> {
    const calls: Calls = new Map();
    let usage: Chunk['usage'] = null;
    let finish: string | null = null;
    let done = false;
    let text = '';
    const events = serverSentEvents(body);
    try {
      for (;;) {
        const next = yield* this.read(events, clock, local);
        if (next.done) break;
        clock.lastData = Date.now();
        const { event, data } = next.value;
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const chunk = parseChunk(event, data);
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (choice?.finish_reason) finish = choice.finish_reason;
        const delta = choice?.delta;
        if (!delta) continue;
        if (
          clock.firstTokenAt === null &&
          (delta.content || delta.tool_calls?.length || delta.reasoning_content || delta.reasoning)
        )
          yield* clock.firstToken(local);
        if (typeof delta.content === 'string' && delta.content) {
          text += delta.content;
          yield { type: 'text', text: delta.content };
        }
        collectCalls(calls, delta.tool_calls);
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
    return yield* finishTry({ calls, usage, finish, text });
  }

  /**
   * The next event of a try. Before the first token each read is timed (the still-working step,
   * the deadline); after it, the watchdog alone keeps time, so a chunk costs no timer.
   */
  private async *read(
    events: AsyncGenerator<{ event: string; data: string }>,
    clock: ModelClock,
    local: AbortController,
  ): AsyncGenerator<AgentOutput, IteratorResult<{ event: string; data: string }>> {
    try {
      return clock.firstTokenAt === null ? yield* clock.wait(events.next(), local) : await events.next();
    } catch (error) {
      if (clock.stalled) throw clock.stalledFailure();
      if (error instanceof AttemptFailure || local.signal.aborted) throw error;
      if (error instanceof MalformedStream) throw malformed(error);
      throw new AttemptFailure(
        new AgentError(CUT, 'model_stream_broken', 'the connection to the model server broke mid-answer'),
        true,
      );
    }
  }
}

const count = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;

/** A delta's tool-call pieces, each added to its call; what cannot be one fails the try. */
function collectCalls(calls: Calls, parts: unknown): void {
  if (!Array.isArray(parts)) return;
  try {
    for (const part of parts) if (part && typeof part === 'object') collectCall(calls, part);
  } catch (error) {
    throw error instanceof MalformedStream ? malformed(error) : error;
  }
}

/** One event's JSON as a chunk; an error event, or anything but an object, fails the try. */
function parseChunk(event: string, data: string): Chunk {
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
      new AgentError(CUT, 'model_malformed_stream', 'the model server sent an event that is not an object'),
      false,
    );
  return chunk;
}

/** A whole (non-streamed) completion, from a server that ignored `stream: true`. */
async function* wholeCompletion(response: Response, clock: ModelClock): AsyncGenerator<AgentOutput, Reply> {
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
  yield* clock.firstToken(null);
  if (message?.content) yield { type: 'text', text: message.content };
  const calls: Calls = new Map();
  collectCalls(
    calls,
    Array.isArray(message?.tool_calls) ? message.tool_calls.map((part, index) => ({ index, ...part })) : [],
  );
  return yield* finishTry({
    calls,
    usage: chunk?.usage ?? null,
    finish: choice?.finish_reason ?? 'stop',
    text: message?.content ?? '',
  });
}

/** What a finished try yields last (usage), and what it returns: its text and calls; or why it is not whole. */
async function* finishTry({
  calls,
  usage,
  finish,
  text,
}: {
  calls: Calls;
  usage: Chunk['usage'];
  finish: string | null;
  text: string;
}): AsyncGenerator<AgentOutput, Reply> {
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
  return { text, calls: callsInOrder(calls) };
}

/** A call of a page tool as the browser gets it. */
const toolCall = (c: CallParts): ToolCall => ({
  id: c.id || `call_${crypto.randomUUID()}`,
  name: c.name,
  arguments: parseArguments(c.args),
});

const emptyAnswer = (called: boolean) =>
  new AgentError(
    'The model sent an empty answer.',
    'model_empty',
    called ? 'the model called a tool this page did not offer' : undefined,
  );
