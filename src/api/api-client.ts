import type { TokenManager } from '../session/token-manager.js';
import { AuthError, NetworkError, errorFromResponse, isAbortError } from './errors.js';
import { readChatStream } from './stream.js';
import type { ChatRequest, StreamEvent, ThreadDetail, ThreadPage } from './types.js';

export interface ApiClientOptions {
  /** Service base URL, e.g. `https://agent.example.com`; no trailing slash needed. */
  baseUrl: string;
  projectId: string;
  integrationId: string;
  tokens: TokenManager;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface ApiClient {
  /** Streams one answer. The request is sent when iteration starts. */
  chat(request: ChatRequest, options?: RequestOptions): AsyncIterable<StreamEvent>;
  listThreads(page?: { cursor?: string | null; limit?: number }, options?: RequestOptions): Promise<ThreadPage>;
  getThread(threadId: string, options?: RequestOptions): Promise<ThreadDetail>;
  deleteThread(threadId: string, options?: RequestOptions): Promise<void>;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const agentBase = `${options.baseUrl.replace(/\/+$/, '')}/agent/v1/projects/${encodeURIComponent(options.projectId)}/agent`;
  const { tokens } = options;

  /**
   * The one place that authenticates: attaches the bearer token and, on a 401, discards it,
   * fetches a fresh one and retries exactly once. Cookies never go to the service.
   */
  async function send(what: string, path: string, init: RequestInit, signal?: AbortSignal): Promise<Response> {
    const attempt = async (): Promise<{ response: Response; token: string }> => {
      const token = await tokens.getToken(signal);
      const headers = new Headers(init.headers);
      headers.set('Authorization', `Bearer ${token}`);
      try {
        const response = await doFetch(`${agentBase}${path}`, { ...init, headers, credentials: 'omit', signal });
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
    if (!response.ok) throw await errorFromResponse(response, what);
    return response;
  }

  async function json<T>(what: string, path: string, init: RequestInit, signal?: AbortSignal): Promise<T> {
    const response = await send(what, path, { ...init, headers: { Accept: 'application/json' } }, signal);
    return (await response.json()) as T;
  }

  const threadPath = (id: string) => `/threads/${encodeURIComponent(id)}/`;

  return {
    async *chat(request, { signal } = {}) {
      const body = JSON.stringify({ integration_id: options.integrationId, message: request.message, thread_id: request.threadId ?? null });
      const response = await send('Sending the message', '/chat/', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/plain' },
        body,
      }, signal);
      if (!response.body) {
        yield { type: 'interrupted', reason: 'the answer had no body' };
        return;
      }
      yield* readChatStream(response.body, signal);
    },

    listThreads({ cursor, limit } = {}, { signal } = {}) {
      const query = new URLSearchParams();
      if (limit !== undefined) query.set('limit', String(limit));
      if (cursor) query.set('cursor', cursor);
      const suffix = query.size ? `?${query}` : '';
      return json<ThreadPage>('Loading conversations', `/threads/${suffix}`, { method: 'GET' }, signal);
    },

    getThread(threadId, { signal } = {}) {
      return json<ThreadDetail>('Opening the conversation', threadPath(threadId), { method: 'GET' }, signal);
    },

    async deleteThread(threadId, { signal } = {}) {
      const response = await send('Deleting the conversation', threadPath(threadId), { method: 'DELETE' }, signal);
      await response.body?.cancel();
    },
  };
}
