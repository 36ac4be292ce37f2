import { describe, expect, vi } from 'vitest';
import { fixture, html } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import {
  INTEGRATION_ID,
  PROJECT_ID,
  SERVICE_BASE,
  SESSION_ENDPOINT,
  ownerKeyOf,
  type ReferenceBackend,
} from '../../../msw/reference.js';
import { STREAM_HEADERS, encodeRecord, streamBody } from '../../../msw/stream.js';
import { storedMemory } from '../../../helpers/idb.js';
import {
  fixtureChat,
  messagesOf,
  settled,
  threadListTitles,
  threadListToggle,
  threadListOf,
} from '../../../helpers/chat-fixture.js';
import type { AgentChat } from '../../../../src/components/agent-chat/agent-chat.js';
import { clearDeviceMemory } from '../../../../src/chat/device-memory-store.js';

const AGENT = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;
const name = (owner: string | null) => owner ?? 'anonymous';
const stored = async () => JSON.stringify((await storedMemory()) ?? {});
const statuses = (el: AgentChat) => messagesOf(el).map((m) => m.message?.status);
const listText = (el: AgentChat) => threadListOf(el).shadowRoot!.textContent ?? '';
const retryButton = (el: AgentChat) =>
  messagesOf(el).at(-1)?.shadowRoot?.querySelector<HTMLButtonElement>('button.retry');

/** `<agent-chat>` with a custom token source instead of the endpoint. */
async function withSource(getSessionToken: AgentChat['getSessionToken']): Promise<AgentChat> {
  const el = await fixture<AgentChat>(
    html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} base-url=${SERVICE_BASE} mode="inline" .getSessionToken=${getSessionToken}></agent-chat>`,
  );
  await settled(el);
  return el;
}

async function mintRaw(owner: string | null): Promise<{ session_token: string; expires_at: string }> {
  const response = await fetch(SESSION_ENDPOINT, { method: 'POST' });
  void owner;
  return response.json();
}

describe('<agent-chat> failure modes, each reproduced in the widget', () => {
  // A shared device: the next visitor never sees the previous one's remembered conversations.
  const transitions: Array<[string | null, string | null]> = [
    ['alice', 'bob'],
    ['alice', null],
    [null, 'alice'],
  ];
  for (const [first, second] of transitions) {
    for (const via of ['owner-key', 'header'] as const) {
      const keyFor = (owner: string | null) => (via === 'owner-key' ? ownerKeyOf(owner) : undefined);
      const emptyList = (owner: string | null) =>
        owner ? 'No conversations yet.' : 'Sign in to see your past conversations.';

      async function firstVisitor(backend: ReferenceBackend) {
        await clearDeviceMemory();
        backend.signIn(first);
        const el = await fixtureChat({ ownerKey: keyFor(first) });
        await el.send(`${name(first)} private question`);
        await expect.poll(stored).toContain(`${name(first)} private question`);
        return el;
      }

      async function expectOnlySecond(el: AgentChat) {
        await el.send(`${name(second)} question`);
        await settled(el);
        expect(messagesOf(el).map((m) => m.message?.content)[0]).toBe(`${name(second)} question`);
        expect(messagesOf(el)).toHaveLength(2);
        await expect.poll(() => listText(el)).not.toContain('Loading');
        expect(listText(el)).not.toContain(`${name(first)} private`);
        await expect.poll(stored).not.toContain(`${name(first)} private question`);
      }

      test(`1: ${name(first)} → ${name(second)} on reload (${via}) sees nothing of ${name(first)}`, async ({
        backend,
      }) => {
        const el = await firstVisitor(backend);
        backend.signIn(second);
        el.remove();
        const requests = backend.sessionRequests.length + backend.serviceRequests.length;
        const next = await fixtureChat({ ownerKey: keyFor(second) });
        await settled(next);
        // On load, before any request. What a session without owner left is the browser's and
        // shows at once when the page names nobody; the next session (the one the next send
        // needs anyway) tells it is someone else's, before anything is sent into it.
        const shared = first === null && via === 'header';
        expect(messagesOf(next)).toHaveLength(shared ? 2 : 0);
        if (!shared) expect(threadListTitles(next)).toEqual([]);
        expect(backend.sessionRequests.length + backend.serviceRequests.length).toBe(requests);
        threadListToggle(next).click();
        await expectOnlySecond(next);
      });

      test(`1: ${name(first)} → ${name(second)} in place with clearSession() (${via}): the open list follows at once`, async ({
        backend,
      }) => {
        const el = await firstVisitor(backend);
        threadListToggle(el).click();
        await expect
          .poll(() => listText(el))
          .toContain(first ? `${name(first)} private question` : emptyList(null));
        backend.signIn(second);
        if (via === 'owner-key') el.ownerKey = ownerKeyOf(second);
        await el.clearSession();
        await settled(el);
        expect(messagesOf(el)).toHaveLength(0);
        await expect.poll(() => listText(el)).toContain(emptyList(second));
        await expectOnlySecond(el);
      });
    }
  }

  test('clearSession() while a thread is opening never shows or stores that thread', async ({
    worker,
    backend,
  }) => {
    await clearDeviceMemory();
    backend.signIn('alice');
    const [threadId] = await backend.seed('alice', ['Alice secret plan']);
    let release!: () => void;
    let opening = false;
    const held = new Promise<void>((resolve) => (release = resolve));
    worker.use(
      http.get(`${AGENT}/threads/${threadId}/`, async ({ request }) => {
        opening = true;
        await held;
        return backend.service.handle(request);
      }),
    );
    const el = await fixtureChat();
    threadListToggle(el).click();
    await expect.poll(() => threadListTitles(el)).toEqual(['Alice secret plan']);
    threadListOf(el).shadowRoot!.querySelector<HTMLButtonElement>('button.open')!.click();
    await expect.poll(() => opening).toBe(true);
    backend.signIn(null); // the site signs Alice out, then tells the widget
    await el.clearSession();
    release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await el.updateComplete;
    await settled(el);
    expect(messagesOf(el)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 300)); // past the save debounce
    expect(await stored()).not.toContain('Alice secret plan');
  });

  for (const [label, reply] of [
    [
      'an HTML page',
      () =>
        new HttpResponse('<html><body>Sign in to the Wi-Fi</body></html>', {
          headers: { 'Content-Type': 'text/html' },
        }),
    ],
    ['an empty body', () => new HttpResponse('', { headers: STREAM_HEADERS })],
    ['204', () => new HttpResponse(null, { status: 204 })],
  ] as const) {
    test(`3: a chat answered with ${label} fails the question with Retry and an error event`, async ({
      worker,
      backend,
    }) => {
      worker.use(http.post(`${AGENT}/chat/`, reply));
      const el = await fixtureChat();
      const errors: string[] = [];
      el.addEventListener('agent-chat-error', (e) => errors.push(e.detail.code));
      await el.send('Anyone there?');
      await settled(el);
      expect(statuses(el)).toEqual(['failed']);
      expect(retryButton(el)).toBeTruthy();
      expect(errors).toEqual(['invalid_response']);
      expect(messagesOf(el)[0].shadowRoot!.querySelector('[role="alert"]')?.textContent).not.toMatch(/\d{3}/);
    });
  }

  for (const [label, failing] of [
    ['a 500', () => http.post(`${AGENT}/chat/`, () => HttpResponse.json({ error: 'boom' }, { status: 500 }))],
    [
      'a 429',
      () =>
        http.post(`${AGENT}/chat/`, () =>
          HttpResponse.json({ error: 'slow down' }, { status: 429, headers: { 'Retry-After': '30' } }),
        ),
    ],
    ['a failed session', () => http.post(SESSION_ENDPOINT, () => new HttpResponse(null, { status: 500 }))],
  ] as const)
    test(`24: ${label} before the answer starts: answer-end fires once, as an error, for the failed question`, async ({
      worker,
      backend,
    }) => {
      worker.use(failing());
      const el = await fixtureChat();
      const events: string[] = [];
      el.addEventListener('agent-chat-answer-start', () => events.push('start'));
      el.addEventListener('agent-chat-answer-end', (e) =>
        events.push(`end:${e.detail.outcome}:${e.detail.messageId === messagesOf(el)[0]?.message?.id}`),
      );
      el.addEventListener('agent-chat-error', (e) => events.push(`error:${e.detail.code}`));
      await el.send('Anyone there?');
      await settled(el);
      expect(statuses(el)).toEqual(['failed']);
      expect(events.filter((e) => e.startsWith('end') || e === 'start')).toEqual(['end:error:true']);
      expect(events.filter((e) => e.startsWith('error'))).toHaveLength(1);
      void backend;
    });

  /** What a draining service answers a chat (decision 456): the contract's body, a short Retry-After; `times` in a row. */
  const draining = (worker: { use: (...h: ReturnType<typeof http.post>[]) => void }, times: number) => {
    const keys: (string | null)[] = [];
    worker.use(
      http.post(`${AGENT}/chat/`, ({ request }) => {
        keys.push(request.headers.get('Idempotency-Key'));
        if (times-- <= 0) return undefined;
        return HttpResponse.json(
          {
            detail:
              'This instance of the service is shutting down and takes no new answers; send the request again.',
            code: 'draining',
          },
          { status: 503, headers: { 'Retry-After': '1' } },
        );
      }),
    );
    return keys;
  };

  test('a 503 from an instance that drains is tried once more after its Retry-After, under the same key, and answered', async ({
    worker,
    backend,
  }) => {
    const keys = draining(worker, 1);
    const el = await fixtureChat();
    const started = performance.now();
    await el.send('Where is the changelog?');
    await expect.poll(() => statuses(el)).toEqual(['sent', 'complete']);
    // The second try waited the second the service asked for, and asked the same question.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    void backend;
  });

  test('a second 503 in a row keeps the question, its text and Retry; Retry reaches another instance', async ({
    worker,
    backend,
  }) => {
    const keys = draining(worker, 2);
    const el = await fixtureChat();
    await el.send('Where is the changelog?');
    await settled(el);
    // One automatic try, no more: the visitor decides the next.
    await expect.poll(() => statuses(el), { timeout: 4_000 }).toEqual(['failed']);
    expect(keys).toHaveLength(2);
    expect(messagesOf(el)[0].message?.content).toBe('Where is the changelog?');
    retryButton(el)!.click();
    await expect.poll(() => statuses(el)).toEqual(['sent', 'complete']);
    expect(keys).toHaveLength(3);
    expect(messagesOf(el)[0].message?.content).toBe('Where is the changelog?');
    void backend;
  });

  test('a getSessionToken that throws synchronously once is called again on the next need', async ({
    backend,
  }) => {
    let calls = 0;
    const el = await withSource(((signal: AbortSignal) => {
      calls += 1;
      if (calls === 1) throw new Error('auth not ready');
      void signal;
      return mintRaw(null);
    }) as AgentChat['getSessionToken']);
    const sessionStatuses: string[] = [];
    el.addEventListener('agent-chat-session-change', (e) => sessionStatuses.push(e.detail.status));
    await el.send('First try');
    await settled(el);
    expect(statuses(el)).toEqual(['failed']);
    retryButton(el)!.click();
    await expect.poll(() => statuses(el)).toEqual(['sent', 'complete']);
    expect(calls).toBe(2);
    expect(sessionStatuses).toEqual(['fetching', 'error', 'fetching', 'ready']);
  });

  test('a record over the size limit ends the answer as interrupted, keeping its text', async ({
    worker,
    backend,
  }) => {
    const head =
      encodeRecord('stream_start', { thread_id: 'th_big' }) +
      encodeRecord('partial_answer', { text: 'Kept text' });
    const endless = Array.from({ length: 80 }, () => `{"chunk":${'x'.repeat(64 * 1024)}`);
    // The record never ends and the connection stays open: only the limit can end the answer.
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () =>
          new HttpResponse(streamBody([head, ...endless], { holdAfter: endless.length + 1 }), {
            headers: STREAM_HEADERS,
          }),
      ),
    );
    const el = await fixtureChat();
    const ended = new Promise<string>((resolve) =>
      el.addEventListener('agent-chat-answer-end', (e) => resolve(e.detail.outcome), { once: true }),
    );
    await el.send('Tell me everything');
    expect(await ended).toBe('error');
    await settled(el);
    expect(statuses(el)).toEqual(['sent', 'interrupted']);
    expect(messagesOf(el)[1].message?.content).toBe('Kept text');
    expect(retryButton(el)).toBeTruthy();
  });

  test('a thread list of the wrong shape shows an error with Retry; nothing of it is stored', async ({
    worker,
    backend,
  }) => {
    await clearDeviceMemory();
    backend.signIn('alice');
    worker.use(
      http.get(`${AGENT}/threads/`, () =>
        HttpResponse.json({ threads: [{ id: 7, title: 'Injected' }], next_cursor: null }),
      ),
    );
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    const errors: string[] = [];
    el.addEventListener('agent-chat-error', (e) => errors.push(e.detail.code));
    threadListToggle(el).click();
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelector('[role="alert"]')).not.toBeNull();
    expect(threadListOf(el).shadowRoot!.querySelector('[role="alert"] button')?.textContent).toMatch(
      /retry/i,
    );
    expect(threadListTitles(el)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stored()).not.toContain('Injected');
  });

  test('a custom source returning the raw answer works with the visitor clock 90 min fast', async ({
    backend,
  }) => {
    let calls = 0;
    const el = await withSource(async () => {
      calls += 1;
      const raw = await mintRaw(null);
      // The service's clock is 90 minutes behind the visitor's: its expiry is in the visitor's past.
      return { ...raw, expires_at: new Date(Date.now() - 30 * 60_000).toISOString() };
    });
    await el.send('First');
    await el.send('Second');
    await settled(el);
    expect(statuses(el)).toEqual(['sent', 'complete', 'sent', 'complete']);
    expect(calls).toBe(1);
  });

  test('a stream that goes silent ends as interrupted after the idle timeout', async ({
    worker,
    backend,
  }) => {
    const head =
      encodeRecord('stream_start', { thread_id: 'th_quiet' }) +
      encodeRecord('partial_answer', { text: 'So far' });
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () => new HttpResponse(streamBody([head], { holdAfter: 1 }), { headers: STREAM_HEADERS }),
      ),
    );
    const el = await fixtureChat();
    el.streamIdleTimeout = 300;
    const started = performance.now();
    await el.send('Hello?');
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    await settled(el);
    expect(statuses(el)).toEqual(['sent', 'interrupted']);
    expect(messagesOf(el)[1].message?.content).toBe('So far');
    expect(retryButton(el)).toBeTruthy();
  });

  test('the open list shows loading, sign-in, empty and error states and follows an owner change', async ({
    worker,
    backend,
  }) => {
    await clearDeviceMemory();
    backend.signIn('alice');
    await backend.seed('alice', ['Alice plan']);
    const el = await fixtureChat({ ownerKey: ownerKeyOf('alice') });
    let releaseList!: () => void;
    const held = new Promise<void>((resolve) => (releaseList = resolve));
    worker.use(
      http.get(
        `${AGENT}/threads/`,
        async ({ request }) => {
          await held;
          return backend.service.handle(request);
        },
        { once: true },
      ),
    );
    threadListToggle(el).click();
    await expect.poll(() => listText(el)).toContain('Loading…');
    releaseList();
    await expect.poll(() => threadListTitles(el)).toEqual(['Alice plan']);

    // Bob signs in on the site while the list is open: the page renders his key.
    backend.signIn('bob');
    el.ownerKey = ownerKeyOf('bob');
    await expect.poll(() => listText(el)).toContain('No conversations yet.');
    expect(threadListTitles(el)).toEqual([]);

    // Bob signs out: anonymous visitors have no history.
    backend.signIn(null);
    el.ownerKey = ownerKeyOf(null);
    await expect.poll(() => listText(el)).toContain('Sign in to see your past conversations.');

    // Carol signs in, and the service fails once: an error with Retry, then her list.
    backend.signIn('carol');
    worker.use(
      http.get(`${AGENT}/threads/`, () => HttpResponse.json({ detail: 'down', code: 'x' }, { status: 503 }), {
        once: true,
      }),
    );
    el.ownerKey = ownerKeyOf('carol');
    await expect.poll(() => threadListOf(el).shadowRoot!.querySelector('[role="alert"]')).not.toBeNull();
    threadListOf(el).shadowRoot!.querySelector<HTMLButtonElement>('[role="alert"] button')!.click();
    await expect.poll(() => listText(el)).toContain('No conversations yet.');
  });

  test('a page with no session-endpoint and no getSessionToken says so: console, event and panel', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const errors: string[] = [];
    const listener = (e: Event) => errors.push((e as CustomEvent<{ code: string }>).detail.code);
    document.addEventListener('agent-chat-error', listener);
    try {
      const el = await fixture<AgentChat>(
        html`<agent-chat project-id=${PROJECT_ID} integration-id=${INTEGRATION_ID} mode="inline"></agent-chat>`,
      );
      await settled(el);
      expect(errors).toEqual(['misconfigured']);
      expect(logged.mock.calls.filter(([text]) => String(text).includes('session-endpoint'))).toHaveLength(1);
      expect(el.shadowRoot!.querySelector('[role="alert"]')?.textContent).toContain(
        'This chat is not set up yet.',
      );
    } finally {
      document.removeEventListener('agent-chat-error', listener);
      logged.mockRestore();
    }
  });

  test("Stop calls the service's cancel for the answer, then stops reading", async ({ worker, backend }) => {
    const cancels: string[] = [];
    const head =
      encodeRecord('stream_start', { thread_id: 'th_s', question_answer_id: 'qa_stop' }) +
      encodeRecord('partial_answer', { text: 'Partial' });
    worker.use(
      http.post(
        `${AGENT}/chat/`,
        () => new HttpResponse(streamBody([head], { holdAfter: 1 }), { headers: STREAM_HEADERS }),
      ),
      http.post(`${AGENT}/answers/:id/cancel/`, ({ params }) => {
        cancels.push(String(params.id));
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const el = await fixtureChat();
    const sending = el.send('Long one');
    await expect.poll(() => messagesOf(el).at(-1)?.message?.content).toBe('Partial');
    const composer = el.shadowRoot!.querySelector('agent-chat-composer')!;
    const stop = Array.from(composer.shadowRoot!.querySelectorAll('button')).find(
      (b) => b.getAttribute('aria-label') === 'Stop',
    )!;
    stop.click();
    await sending;
    await settled(el);
    await expect.poll(() => cancels).toEqual(['qa_stop']);
    expect(statuses(el)).toEqual(['sent', 'stopped']);
  });
});
