import { describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../../src/api/api-client.js';
import { ProtocolError } from '../../../src/api/errors.js';
import type { StreamEvent } from '../../../src/api/types.js';
import { TokenManager } from '../../../src/session/token-manager.js';
import { countingSource } from '../../fixtures/sessions.js';

function client(answer: (request: Request) => Response) {
  const requests: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push(request);
    return answer(request);
  };
  const api = createApiClient({
    baseUrl: 'https://svc.test',
    projectId: 'p1',
    integrationId: 'i1',
    tokens: new TokenManager(countingSource().source),
    fetch,
  });
  return { api, requests };
}

async function drain(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const thread = {
  id: 'th_1',
  title: 'T',
  created_at: '2026-11-21T10:00:00Z',
  updated_at: '2026-11-21T10:00:00Z',
};

describe('createApiClient at the API edge', () => {
  it.each([
    [
      'an HTML portal page',
      () => new Response('<html>Sign in to the Wi-Fi</html>', { headers: { 'Content-Type': 'text/html' } }),
    ],
    ['an empty 204', () => new Response(null, { status: 204 })],
    ['JSON', () => Response.json({ ok: true })],
  ])('turns a chat answered 200 with %s into a ProtocolError', async (_label, answer) => {
    const { api } = client(answer);
    const error = await drain(api.chat({ message: 'hi' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: 'invalid_response' });
  });

  it.each([
    ['threads missing', {}, /threads should be an array/],
    [
      'a thread without id',
      { threads: [{ ...thread, id: 5 }], next_cursor: null },
      /threads\[0\]\.id should be a string/,
    ],
    ['a numeric cursor', { threads: [], next_cursor: 3 }, /next_cursor should be a string or null/],
  ])('rejects a thread list with %s as a ProtocolError naming the field', async (_label, body, message) => {
    const { api } = client(() => Response.json(body));
    const error = await api.listThreads().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(message);
  });

  it('rejects a resumed thread with a message of an unknown role, and a body that is not JSON', async () => {
    const bad = client(() =>
      Response.json({ ...thread, messages: [{ id: 'm', role: 'system', content: 'x', created_at: '' }] }),
    );
    await expect(bad.api.getThread('th_1')).rejects.toThrow(/messages\[0\]\.role/);
    const html = client(() => new Response('<html></html>', { headers: { 'Content-Type': 'text/html' } }));
    await expect(html.api.getThread('th_1')).rejects.toBeInstanceOf(ProtocolError);
  });

  it("warns the site owner once, in the service's words, when the page's origin is refused", async () => {
    const detail =
      'Pages on https://shop.test may not use integration i1: add https://shop.test to its "Allowed origins" on the Integrations page of the service console.';
    const { api } = client(() => Response.json({ code: 'origin_not_allowed', detail }, { status: 403 }));
    const warned: unknown[][] = [];
    const spy = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args));
    try {
      const first = await drain(api.chat({ message: 'hi' })).catch((e: unknown) => e);
      expect(first).toMatchObject({ status: 403, code: 'origin_not_allowed', detail });
      await expect(api.listThreads()).rejects.toMatchObject({ code: 'origin_not_allowed' });
      expect(warned).toEqual([[`[agent-chat] Sending the message failed with HTTP 403: ${detail}`]]);
    } finally {
      spy.mockRestore();
    }
  });

  it("keeps only the contract's fields, question_answer_id included, and drops sources without a URL", async () => {
    const { api } = client(() =>
      Response.json({
        ...thread,
        extra: '<script>',
        messages: [
          {
            id: 'm1',
            role: 'assistant',
            content: 'A',
            created_at: 'c',
            status: 'complete',
            question_answer_id: 'qa_1',
            sources: [{ title: 'no url' }, { source_url: 'https://d.test' }],
          },
        ],
      }),
    );
    expect(await api.getThread('th_1')).toEqual({
      ...thread,
      messages: [
        {
          id: 'm1',
          role: 'assistant',
          content: 'A',
          created_at: 'c',
          status: 'complete',
          question_answer_id: 'qa_1',
          reaction: null,
          sources: [
            { title: 'https://d.test', subtitle: null, source_url: 'https://d.test', source_type: 'unknown' },
          ],
        },
      ],
    });
  });

  it("keeps the caller's reaction on resumed answers (§8); an unknown one reads as none", async () => {
    const message = (reaction: unknown) => ({
      id: 'm1',
      role: 'assistant',
      content: 'A',
      status: 'complete',
      question_answer_id: 'qa_1',
      reaction,
    });
    const { api } = client(() =>
      Response.json({
        ...thread,
        messages: [
          message('upvote'),
          { ...message('love'), id: 'm2' },
          { id: 'm3', role: 'user', content: 'Q', reaction: 'upvote' },
        ],
      }),
    );
    const { messages } = await api.getThread('th_1');
    expect(messages.map((m) => [m.id, m.reaction])).toEqual([
      ['m1', 'upvote'],
      ['m2', null],
      ['m3', undefined],
    ]);
  });

  it('sends feedback as §8 says: POST, bearer, question_answer_id, reaction and the reasons', async () => {
    const { api, requests } = client(() => new Response(null, { status: 204 }));
    await api.sendFeedback({
      questionAnswerId: 'qa_1',
      reaction: 'downvote',
      comment: { incorrect: true, issue: 'too vague' },
    });
    await api.sendFeedback({ questionAnswerId: 'qa_1', reaction: 'upvote' });
    expect(requests.map((r) => [r.method, r.url, r.headers.get('Authorization')])).toEqual([
      ['POST', 'https://svc.test/agent/v1/projects/p1/agent/feedback/', 'Bearer tok-1'],
      ['POST', 'https://svc.test/agent/v1/projects/p1/agent/feedback/', 'Bearer tok-1'],
    ]);
    expect(await Promise.all(requests.map((r) => r.json()))).toEqual([
      { question_answer_id: 'qa_1', reaction: 'downvote', comment: { incorrect: true, issue: 'too vague' } },
      { question_answer_id: 'qa_1', reaction: 'upvote', comment: null },
    ]);
  });

  it("cancels an answer with an authenticated POST to §9's cancel path", async () => {
    const { api, requests } = client(() => new Response(null, { status: 204 }));
    await api.cancelAnswer('qa/1');
    expect(requests.map((r) => [r.method, r.url, r.headers.get('Authorization')])).toEqual([
      ['POST', 'https://svc.test/agent/v1/projects/p1/agent/answers/qa%2F1/cancel/', 'Bearer tok-1'],
    ]);
  });
});

describe('a 503 with a short Retry-After (a draining instance, decision 469)', () => {
  const draining =
    (times: number, retryAfter = '0') =>
    (request: Request) =>
      times-- > 0
        ? Response.json(
            { detail: 'draining', code: 'draining' },
            { status: 503, headers: { 'Retry-After': retryAfter } },
          )
        : request.method === 'DELETE'
          ? new Response(null, { status: 204 })
          : Response.json({ threads: [thread], next_cursor: null });

  it('is tried once more where a repeat cannot ask twice: a read, a delete', async () => {
    const read = client(draining(1));
    expect((await read.api.listThreads()).threads).toHaveLength(1);
    expect(read.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    const removed = client(draining(1));
    await removed.api.deleteThread('th_1');
    expect(removed.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('is tried once only, and not at all for a long wait, nor for a POST without an Idempotency-Key', async () => {
    const twice = client(draining(2));
    await expect(twice.api.listThreads()).rejects.toMatchObject({ status: 503 });
    expect(twice.requests).toHaveLength(2);
    const long = client(draining(1, '30'));
    await expect(long.api.listThreads()).rejects.toMatchObject({ status: 503 });
    expect(long.requests).toHaveLength(1);
    const unkeyed = client(draining(1));
    const error = await drain(unkeyed.api.chat({ message: 'hi' })).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    expect(unkeyed.requests).toHaveLength(1);
  });
});
