import { IDEMPOTENCY_KEY_HEADER, agentBase as agentPath, agentPaths } from '../../contract/paths.js';
import {
  AuthError,
  ConfigError,
  NetworkError,
  ProtocolError,
  errorFromResponse,
  isAbortError,
  parseRetryAfter,
} from './errors.js';
import type { ReadChatStreamOptions } from './stream.js';
import { loadStreamReader } from './stream-loader.js';
import type {
  ChatRequest,
  FeedbackRequest,
  FileInfo,
  StreamEvent,
  ThreadDetail,
  ThreadPage,
  ThreadSummary,
  Transport,
} from './types.js';
import { toFileInfo, toThreadDetail, toThreadPage, toThreadSummary } from './validate.js';

/**
 * What the client needs of the session: a token to send, and a way to drop one the service
 * refused (401). `TokenManager` is the one the widget uses; the client knows nothing else of it.
 */
export interface TokenProvider {
  getToken(signal?: AbortSignal): Promise<string>;
  invalidate(staleToken: string): void;
}

export interface ApiClientOptions {
  /** Service base URL, e.g. `https://agent.example.com`; no trailing slash needed. */
  baseUrl: string;
  projectId: string;
  integrationId: string;
  tokens: TokenProvider;
  fetch?: typeof fetch;
  /** Limits of the chat stream reader (idle timeout, record size). */
  stream?: ReadChatStreamOptions;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface ApiClient {
  /** Streams one answer. The request is sent when iteration starts. */
  chat(request: ChatRequest, options?: RequestOptions): AsyncIterable<StreamEvent>;
  listThreads(
    page?: { cursor?: string | null; limit?: number },
    options?: RequestOptions,
  ): Promise<ThreadPage>;
  getThread(threadId: string, options?: RequestOptions): Promise<ThreadDetail>;
  deleteThread(threadId: string, options?: RequestOptions): Promise<void>;
  /** Reattaches to an answer (§9): its records so far, then the live ones. */
  reattach(questionAnswerId: string, options?: RequestOptions): AsyncIterable<StreamEvent>;
  /** Renames a thread (§10). */
  renameThread(threadId: string, title: string, options?: RequestOptions): Promise<ThreadSummary>;
  /** Asks the service to stop generating an answer (§9); closing the stream alone does not. */
  cancelAnswer(questionAnswerId: string, options?: RequestOptions): Promise<void>;
  /** Sends the visitor's reaction on an answer (§8); a later one replaces it. */
  sendFeedback(feedback: FeedbackRequest, options?: RequestOptions): Promise<void>;
  /** Tells the service the visitor asked for a person in this thread (shown in the service's console). */
  reportHandoff(threadId: string, options?: RequestOptions): Promise<void>;
  /** Uploads one file (§11) through `transport` (fetch by default); the service says what it is. */
  uploadFile(
    file: Blob,
    name: string,
    options?: RequestOptions & { transport?: Transport },
  ): Promise<FileInfo>;
  /** A file's bytes (§11), for a thumbnail or a download; only its uploader may read it. */
  fileBlob(fileId: string, options?: RequestOptions): Promise<Blob>;
}

/**
 * A body as JSON, without U+0000 in its strings (decision 801): the service refuses any text that
 * holds one (759), and the one a paste brings is nothing the visitor can see, so their words go
 * without it rather than not at all. Only the three bodies that carry their words (a question
 * with its tools' results, a title, a comment) take it.
 */
const withoutNul = (body: object): string =>
  JSON.stringify(body, (_key, value: unknown) =>
    typeof value === 'string' ? value.replaceAll('\0', '') : value,
  );

export function createApiClient(options: ApiClientOptions): ApiClient {
  return new AgentApiClient(options);
}

/** The agent API (§4 to §10) over fetch, for one project and integration. */
class AgentApiClient implements ApiClient {
  readonly #options: ApiClientOptions;
  readonly #fetch: typeof fetch;
  readonly #base: string;
  /** The codes whose advice the site owner has read in the console (once each). */
  readonly #warned = new Set<string>();
  /** The service's CORS refused the Idempotency-Key header: questions go without it (decision 730). */
  #keyRefused = false;

  constructor(options: ApiClientOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#base = `${options.baseUrl.replace(/\/+$/, '')}${agentPath(options.projectId)}`;
  }

  async *chat(request: ChatRequest, { signal }: RequestOptions = {}): AsyncGenerator<StreamEvent> {
    const body = withoutNul({
      integration_id: this.#options.integrationId,
      message: request.message,
      thread_id: request.threadId ?? null,
      // §7: tools ride on every call; a continuation carries results and no message.
      ...(request.tools?.length ? { tools: request.tools } : {}),
      ...(request.toolResults ? { tool_results: request.toolResults } : {}),
      ...(request.locale ? { locale: request.locale } : {}),
      ...(request.attachments?.length ? { attachments: request.attachments } : {}),
    });
    const what = 'Sending the message';
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/plain' };
    const keyed = !!request.idempotencyKey && !this.#keyRefused;
    // A resend of the question (Retry, the 401 rule's, after a reload) gets the answer it began.
    if (keyed) headers[IDEMPOTENCY_KEY_HEADER] = request.idempotencyKey!;
    const send = () =>
      this.#send(
        what,
        agentPaths.chat,
        { method: 'POST', headers, body },
        signal,
        undefined,
        !request.threadId,
      );
    yield* this.#stream(what, keyed ? this.#keyedSend(send, headers, signal) : send(), signal);
  }

  /**
   * A question with its Idempotency-Key. A service of wire contract v4 from before the header
   * (decision 453) leaves it out of its CORS preflight, so the browser refuses the request before
   * it leaves, as it would an unreachable service, and no question could ever be sent (decision
   * 730). When a read with the same headers fails so and one without them reaches the service,
   * the question goes without the key, and so do the next ones.
   */
  async #keyedSend(
    send: () => Promise<Response>,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Response> {
    try {
      return await send();
    } catch (error) {
      // Any answer, even a refusal, is the service reached; the body is a short list or an error.
      const reaches = (init: RequestInit) =>
        this.#send('', `${agentPaths.threads}?limit=1`, init, signal).then(
          () => true,
          (failure: unknown) => !(failure instanceof NetworkError),
        );
      if (!(error instanceof NetworkError) || (await reaches({ headers })) || !(await reaches({})))
        throw error;
      this.#keyRefused = true;
      delete headers[IDEMPOTENCY_KEY_HEADER];
      console.warn(`${this.#base}: the service refuses the Idempotency-Key header; update it.`);
      return send();
    }
  }

  async *reattach(questionAnswerId: string, { signal }: RequestOptions = {}): AsyncGenerator<StreamEvent> {
    const what = 'Reconnecting to the answer';
    const path = agentPaths.answerStream(questionAnswerId);
    const sent = this.#send(what, path, { method: 'GET', headers: { Accept: 'text/plain' } }, signal);
    yield* this.#stream(what, sent, signal);
  }

  renameThread(threadId: string, title: string, { signal }: RequestOptions = {}): Promise<ThreadSummary> {
    const init = {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: withoutNul({ title }),
    };
    return this.#json(
      'Renaming the conversation',
      agentPaths.thread(threadId),
      init,
      toThreadSummary,
      signal,
    );
  }

  listThreads(
    { cursor, limit }: { cursor?: string | null; limit?: number } = {},
    { signal }: RequestOptions = {},
  ): Promise<ThreadPage> {
    const query = new URLSearchParams();
    if (limit !== undefined) query.set('limit', String(limit));
    if (cursor) query.set('cursor', cursor);
    const path = `${agentPaths.threads}${query.size ? `?${query}` : ''}`;
    return this.#json('Loading conversations', path, { method: 'GET' }, toThreadPage, signal, true);
  }

  getThread(threadId: string, { signal }: RequestOptions = {}): Promise<ThreadDetail> {
    const path = agentPaths.thread(threadId);
    return this.#json('Opening the conversation', path, { method: 'GET' }, toThreadDetail, signal);
  }

  async deleteThread(threadId: string, { signal }: RequestOptions = {}): Promise<void> {
    const path = agentPaths.thread(threadId);
    const response = await this.#send('Deleting the conversation', path, { method: 'DELETE' }, signal);
    await response.body?.cancel();
  }

  async cancelAnswer(questionAnswerId: string, { signal }: RequestOptions = {}): Promise<void> {
    const path = agentPaths.answerCancel(questionAnswerId);
    const response = await this.#send('Stopping the answer', path, { method: 'POST' }, signal);
    await response.body?.cancel();
  }

  async sendFeedback(
    { questionAnswerId, reaction, comment = null }: FeedbackRequest,
    { signal }: RequestOptions = {},
  ): Promise<void> {
    const body = withoutNul({ question_answer_id: questionAnswerId, reaction, comment });
    const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body };
    const response = await this.#send('Sending feedback', agentPaths.feedback, init, signal);
    await response.body?.cancel();
  }

  async reportHandoff(threadId: string, { signal }: RequestOptions = {}): Promise<void> {
    const body = JSON.stringify({ thread_id: threadId });
    const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body };
    const response = await this.#send('Reporting a handoff', agentPaths.handoff, init, signal);
    await response.body?.cancel();
  }

  async uploadFile(
    file: Blob,
    name: string,
    { signal, transport }: RequestOptions & { transport?: Transport } = {},
  ): Promise<FileInfo> {
    const what = 'Uploading the file';
    const path = `${agentPaths.files}?integration_id=${encodeURIComponent(this.#options.integrationId)}`;
    // A fresh body for each try (a 401 tries again): FormData can be sent twice, a stream could not.
    const init = () => {
      const body = new FormData();
      body.append('file', file, name);
      return { method: 'POST', headers: { Accept: 'application/json' }, body };
    };
    const response = await this.#send(what, path, init(), signal, transport, true);
    const info = toFileInfo(await response.json().catch(() => null));
    if (!info) throw new ProtocolError(`${what}: the service did not describe the file.`);
    return info;
  }

  async fileBlob(fileId: string, { signal }: RequestOptions = {}): Promise<Blob> {
    const response = await this.#send('Loading the file', agentPaths.file(fileId), { method: 'GET' }, signal);
    return response.blob();
  }

  /**
   * The one place that authenticates: attaches the bearer token and, on a 401, discards it,
   * fetches a fresh one and retries exactly once. Cookies never go to the service. `unnamed`: the
   * request names no thread (a new conversation's question, the list, an upload).
   */
  async #send(
    what: string,
    path: string,
    init: RequestInit,
    signal?: AbortSignal,
    transport: Transport = this.#fetch,
    unnamed = false,
  ): Promise<Response> {
    const { tokens } = this.#options;
    const attempt = async (): Promise<{ response: Response; token: string }> => {
      const token = await tokens.getToken(signal);
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${token}`);
      try {
        const response = await transport(`${this.#base}${path}`, {
          ...init,
          headers,
          credentials: 'omit',
          signal,
        });
        return { response, token };
      } catch (error) {
        if (isAbortError(error)) throw error;
        throw new NetworkError(`${what}: the service could not be reached.`, { cause: error });
      }
    };

    let { response, token } = await attempt();
    if (response.status === 401) {
      await response.body?.cancel();
      tokens.invalidate(token);
      ({ response, token } = await attempt());
      if (response.status === 401) {
        tokens.invalidate(token);
        throw await errorFromResponse(response, what, AuthError);
      }
    }
    if (await waitedToRepeat(response, init, signal)) ({ response } = await attempt());
    if (!response.ok) {
      // A 404 for a request that names no thread is no conversation gone: the service (its wire
      // code is the same `not_found`) has no such route or project, so base-url or project-id
      // points elsewhere (decision 694).
      const error =
        response.status === 404 && unnamed
          ? new ConfigError(
              `${this.#base}${path} answered 404: check base-url (the service's address, without /agent/v1) and project-id.`,
            )
          : await errorFromResponse(response, what);
      // The visitor reads plain words; the site owner, once, what to add or fix where.
      if (
        (error instanceof ConfigError || error.code === 'origin_not_allowed') &&
        !this.#warned.has(error.code)
      ) {
        this.#warned.add(error.code);
        console.warn(error.message);
      }
      throw error;
    }
    return response;
  }

  /** JSON of a 2xx answer, checked by `parse`: a wrong shape or a non-JSON body is a ProtocolError. */
  async #json<T>(
    what: string,
    path: string,
    init: RequestInit,
    parse: (what: string, value: unknown) => T,
    signal?: AbortSignal,
    unnamed?: boolean,
  ): Promise<T> {
    const headers = { ...(init.headers as Record<string, string> | undefined), Accept: 'application/json' };
    const response = await this.#send(what, path, { ...init, headers }, signal, undefined, unnamed);
    let value: unknown;
    try {
      value = await response.json();
    } catch (error) {
      if (isAbortError(error)) throw error;
      throw new ProtocolError(`${what}: the service did not answer JSON.`, { cause: error });
    }
    return parse(what, value);
  }

  /**
   * The record stream of a 2xx answer; a captive portal or a misrouted proxy answers 200 with a
   * page: no answer at all. The reader loads while the request is under way.
   */
  async *#stream(what: string, sent: Promise<Response>, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const [response, { readChatStream }] = await Promise.all([sent, loadStreamReader()]);
    const type = response.headers.get('Content-Type') ?? '';
    if (!response.body || response.status === 204 || !/^text\/plain\b/i.test(type)) {
      await response.body?.cancel();
      throw new ProtocolError(
        `${what}: the service answered ${response.status} ${type || 'without a content type'} instead of a stream.`,
      );
    }
    yield* readChatStream(response.body, signal, this.#options.stream);
  }
}

/**
 * A draining instance (a deploy) refuses with 503 and a short Retry-After before it reads
 * anything; one more try after the wait usually reaches another instance (decision 469). Only
 * where a repeat cannot ask twice: a read, a delete, a question with its Idempotency-Key. True
 * when the caller should try again, the wait done.
 */
async function waitedToRepeat(response: Response, init: RequestInit, signal?: AbortSignal): Promise<boolean> {
  const wait = parseRetryAfter(response.headers.get('Retry-After'));
  if (
    response.status !== 503 ||
    wait === undefined ||
    wait > 5 ||
    (init.method === 'POST' && !new Headers(init.headers).has(IDEMPOTENCY_KEY_HEADER))
  )
    return false;
  await response.body?.cancel();
  // A Stop during the wait ends it: the next try's fetch then throws the abort at once.
  await new Promise((resolve) => {
    setTimeout(resolve, wait * 1000);
    signal?.addEventListener('abort', resolve, { once: true });
  });
  return true;
}
