import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../msw/test.js';
import { answerRecords, STREAM_HEADERS, streamBody } from '../../msw/stream.js';
import { createApiClient } from '../../../src/api/api-client.js';
import { ApiError, NetworkError } from '../../../src/api/errors.js';
import { TokenManager } from '../../../src/session/token-manager.js';
import { endpointTokenSource } from '../../../src/session/endpoint-source.js';
import type { StreamEvent } from '../../../src/api/types.js';

const BASE = 'https://agent.test';
const AGENT = `${BASE}/agent/v1/projects/proj_1/agent`;

function setup() {
  let minted = 0;
  const sessionRequests: Request[] = [];
  const sessionHandler = http.post('/api/agent-session', ({ request }) => {
    sessionRequests.push(request);
    minted += 1;
    return HttpResponse.json({
      session_token: `tok-${minted}`,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
  });
  const tokens = new TokenManager(endpointTokenSource('/api/agent-session'));
  const api = createApiClient({ baseUrl: BASE, projectId: 'proj_1', integrationId: 'int_1', tokens });
  return { api, sessionHandler, sessionRequests };
}

async function collect(iterable: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe('createApiClient against msw', () => {
  test('streams a chat answer with the bearer token and the contract body', async ({ worker }) => {
    const { api, sessionHandler, sessionRequests } = setup();
    const chatRequests: Request[] = [];
    worker.use(
      sessionHandler,
      http.post(`${AGENT}/chat/`, async ({ request }) => {
        chatRequests.push(request.clone());
        return new HttpResponse(streamBody(answerRecords('th_1', ['Hello ', 'world'])), {
          headers: STREAM_HEADERS,
        });
      }),
    );
    const events = await collect(api.chat({ message: 'Hi' }));
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('Hello world');
    expect(events.at(-1)).toEqual({ type: 'end', threadId: 'th_1', questionAnswerId: 'qa_th_1' });
    expect(sessionRequests).toHaveLength(1);
    expect(chatRequests[0].headers.get('Authorization')).toBe('Bearer tok-1');
    expect(chatRequests[0].headers.has('X-API-Key')).toBe(false);
    expect(await chatRequests[0].json()).toEqual({ integration_id: 'int_1', message: 'Hi', thread_id: null });
  });

  test('aborting mid-stream stops reading a stream the service holds open and throws AbortError', async ({
    worker,
  }) => {
    const { api, sessionHandler } = setup();
    // The service sends two parts and then stalls: only the client's abort can end this test.
    // (msw does not forward a client abort to the handler; the reference service's own tests
    // cover what the service does on abort.)
    const stream = streamBody(answerRecords('th_1', ['one ', 'two ', 'three']), { holdAfter: 2 });
    worker.use(
      sessionHandler,
      http.post(`${AGENT}/chat/`, () => new HttpResponse(stream, { headers: STREAM_HEADERS })),
    );
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const run = (async () => {
      for await (const event of api.chat({ message: 'Hi' }, { signal: controller.signal })) {
        seen.push(event);
        if (event.type === 'delta') controller.abort();
      }
    })();
    const error = await run.catch((e: unknown) => e);
    expect((error as DOMException).name).toBe('AbortError');
    expect(seen.map((e) => e.type)).toEqual(['start', 'delta']);
  });

  test('maps error statuses to typed errors, with or without a JSON body', async ({ worker }) => {
    const { api, sessionHandler } = setup();
    worker.use(
      sessionHandler,
      http.get(`${AGENT}/threads/`, () =>
        HttpResponse.json(
          { detail: 'History needs an owner.', code: 'session_without_owner' },
          { status: 403 },
        ),
      ),
      http.get(
        `${AGENT}/threads/th_x/`,
        () =>
          new HttpResponse('<h1>Bad gateway</h1>', { status: 502, headers: { 'Content-Type': 'text/html' } }),
      ),
      http.delete(`${AGENT}/threads/th_y/`, () =>
        HttpResponse.json(
          { detail: 'slow down', code: 'rate_limited' },
          { status: 429, headers: { 'Retry-After': '7' } },
        ),
      ),
    );
    await expect(api.listThreads()).rejects.toMatchObject({
      status: 403,
      code: 'session_without_owner',
      detail: 'History needs an owner.',
    });
    const proxyError = await api.getThread('th_x').catch((e: unknown) => e);
    expect(proxyError).toBeInstanceOf(ApiError);
    expect(proxyError).toMatchObject({ status: 502, code: 'http_error' });
    await expect(api.deleteThread('th_y')).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      retryAfter: 7,
    });
  });

  test('lists, gets and deletes threads on the contract paths', async ({ worker }) => {
    const { api, sessionHandler, sessionRequests } = setup();
    const thread = { id: 'th_1', title: 'Hi', created_at: 'x', updated_at: 'y' };
    let deleted = false;
    worker.use(
      sessionHandler,
      http.get(`${AGENT}/threads/`, ({ request }) => {
        const url = new URL(request.url);
        return HttpResponse.json({
          threads: [thread],
          next_cursor: url.searchParams.get('cursor') ? null : 'c2',
        });
      }),
      http.get(`${AGENT}/threads/th_1/`, () => HttpResponse.json({ ...thread, messages: [] })),
      http.delete(`${AGENT}/threads/th_1/`, () => {
        deleted = true;
        return new HttpResponse(null, { status: 204 });
      }),
    );
    expect(await api.listThreads({ limit: 1 })).toEqual({ threads: [thread], next_cursor: 'c2' });
    expect((await api.listThreads({ cursor: 'c2' })).next_cursor).toBeNull();
    expect((await api.getThread('th_1')).messages).toEqual([]);
    await api.deleteThread('th_1');
    expect(deleted).toBe(true);
    expect(sessionRequests).toHaveLength(1);
  });

  test('reports an unreachable service as a NetworkError', async ({ worker }) => {
    const { api, sessionHandler } = setup();
    worker.use(
      sessionHandler,
      http.get(`${AGENT}/threads/`, () => HttpResponse.error()),
    );
    await expect(api.listThreads()).rejects.toBeInstanceOf(NetworkError);
  });
});
