import { describe, expect } from 'vitest';
import { http, HttpResponse } from 'msw';
import { test } from '../../../msw/test.js';
import { INTEGRATION_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../../msw/reference.js';
import { answerRecords, STREAM_HEADERS, streamBody } from '../../../msw/stream.js';
import { ManualClock, type Agent } from '../../../../service/index.js';
import {
  buttonNamed,
  composerOf,
  deepQuery,
  fixtureChat,
  lastAnswerText,
  messagesOf,
  nextAnswerEnd,
  settled,
  textareaOf,
  typeMessage,
} from '../../../helpers/chat-fixture.js';

const CHAT_URL = `${SERVICE_BASE}/agent/v1/projects/proj_demo/agent/chat/`;

describe('<agent-chat>', () => {
  test('makes no session request on load, render or opening the panel', async ({ backend }) => {
    const el = await fixtureChat({ mode: 'launcher' });
    await el.open();
    await typeMessage(el, 'typing is not sending');
    expect(backend.sessionRequests).toHaveLength(0);
    expect(backend.serviceRequests).toHaveLength(0);
  });

  test('the first message makes one session and one chat request and renders the streamed markdown answer', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const ended = nextAnswerEnd(el);
    await typeMessage(el, 'How do I theme the widget?');
    textareaOf(el).dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }),
    );
    expect((await ended).outcome).toBe('complete');
    await el.updateComplete;
    expect(backend.sessionRequests).toHaveLength(1);
    expect(backend.chatRequests()).toHaveLength(1);
    expect(messagesOf(el).map((m) => m.message?.role)).toEqual(['user', 'assistant']);
    const answer = messagesOf(el)[1];
    await answer.updateComplete;
    // The source card names the article: the answer does not open with its title as a heading.
    expect(answer.shadowRoot!.querySelector('h3')).toBeNull();
    expect(answer.shadowRoot!.querySelector('pre code')?.textContent).toContain('--agent-chat-color-accent');
    const sources = Array.from(answer.shadowRoot!.querySelectorAll<HTMLAnchorElement>('.sources a'));
    expect(sources.map((a) => a.href)).toContain('https://agent-chat.example/docs/theming');
    expect(textareaOf(el).value).toBe('');
  });

  test('sessionRequestHeaders: each session request carries the headers the page returns at that moment', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    let issued = 0;
    // What WordPress's plugin does: a fresh nonce from the site before every session request.
    el.sessionRequestHeaders = async () => ({ 'X-WP-Nonce': `nonce-${++issued}` });
    await el.send('install');
    await el.clearSession();
    expect(await el.send('theming')).not.toBe(false);
    expect(backend.sessionRequests.map((r) => r.headers.get('X-WP-Nonce'))).toEqual(['nonce-1', 'nonce-2']);
    expect(backend.sessionRequests.map((r) => r.headers.get('Accept'))).toEqual([
      'application/json',
      'application/json',
    ]);
    expect(lastAnswerText(el)).not.toBe('');
  });

  test('a second message reuses the token and continues the thread', async ({ backend }) => {
    const el = await fixtureChat();
    await el.send('What events are there?');
    await el.send('And theming?');
    expect(backend.sessionRequests).toHaveLength(1);
    const [first, second] = await Promise.all(backend.chatRequests().map((r) => r.clone().json()));
    expect(first.thread_id).toBeNull();
    expect(second.thread_id).toMatch(/^th_/);
    expect(second.integration_id).toBe(INTEGRATION_ID);
    expect(messagesOf(el)).toHaveLength(4);
  });

  describe('with a service clock the test moves', () => {
    const clock = new ManualClock(Date.now());
    test.override('backendOptions', { clock });

    test('on a 401 it fetches a fresh token once and the message still gets its answer', async ({
      backend,
    }) => {
      const el = await fixtureChat();
      await el.send('install');
      clock.advance(2 * 3_600_000); // the service now considers the token expired
      const ended = nextAnswerEnd(el);
      await el.send('theming');
      expect((await ended).outcome).toBe('complete');
      expect(backend.sessionRequests).toHaveLength(2);
      expect(backend.chatRequests()).toHaveLength(3);
    });
  });

  describe('with an agent that writes a little, then waits to be stopped', () => {
    const agent: Agent = {
      async *answer({ signal }) {
        yield { type: 'text', text: 'Partial answer ' };
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    };
    test.override('backendOptions', { agent });

    test('Stop aborts the answer, keeps what arrived and marks it stopped', async ({ backend }) => {
      const el = await fixtureChat();
      const started = new Promise((resolve) =>
        el.addEventListener('agent-chat-answer-start', resolve, { once: true }),
      );
      const ended = nextAnswerEnd(el);
      void el.send('hello');
      await started;
      await expect.poll(() => lastAnswerText(el)).toContain('Partial answer');
      const stop = buttonNamed(composerOf(el).shadowRoot!, 'Stop')!;
      expect(stop).toBeTruthy();
      stop.click();
      expect((await ended).outcome).toBe('aborted');
      await settled(el);
      const answer = messagesOf(el)[1];
      expect(answer.message?.status).toBe('stopped');
      expect(answer.shadowRoot!.textContent).toContain('Stopped');
      expect(lastAnswerText(el)).toBe('Partial answer');
      expect(buttonNamed(composerOf(el).shadowRoot!, 'Send')).toBeTruthy();
      // Closing the connection no longer stops an answer on the service: Stop also cancels it there.
      await expect
        .poll(() => backend.serviceRequests.filter((r) => r.url.endsWith('/cancel/')).length)
        .toBe(1);
    });
  });

  test('an interrupted stream keeps its text, offers Retry, and Retry gets the full answer', async ({
    worker,
    backend,
  }) => {
    let calls = 0;
    worker.use(
      http.post(CHAT_URL, () => {
        calls += 1;
        const records =
          calls === 1
            ? answerRecords('th_1', ['Half of ', 'an answer']).slice(0, 3)
            : answerRecords('th_1', ['Complete answer.']);
        return new HttpResponse(streamBody(records), { headers: STREAM_HEADERS });
      }),
    );
    const el = await fixtureChat();
    const errors: string[] = [];
    el.addEventListener('agent-chat-error', (e) => errors.push(e.detail.code));
    const first = nextAnswerEnd(el);
    void el.send('question');
    expect((await first).outcome).toBe('error');
    await settled(el);
    const answer = messagesOf(el)[1];
    expect(lastAnswerText(el)).toBe('Half of an answer');
    expect(answer.shadowRoot!.querySelector('[role="alert"]')?.textContent).toContain('interrupted');
    expect(errors).toEqual(['interrupted']);
    const second = nextAnswerEnd(el);
    answer.shadowRoot!.querySelector<HTMLButtonElement>('button.retry')!.click();
    expect((await second).outcome).toBe('complete');
    await settled(el);
    expect(messagesOf(el).map((m) => m.message?.role)).toEqual(['user', 'assistant']);
    expect(lastAnswerText(el)).toBe('Complete answer.');
  });

  test("a failing session endpoint shows a readable error and keeps the visitor's text", async ({
    worker,
    backend,
  }) => {
    let fail = true;
    worker.use(
      http.post(SESSION_ENDPOINT, () =>
        fail ? new HttpResponse('<h1>Internal Server Error</h1>', { status: 500 }) : undefined,
      ),
    );
    const el = await fixtureChat();
    const errors: Array<{ code: string; message: string; recoverable: boolean }> = [];
    el.addEventListener('agent-chat-error', (e) => errors.push(e.detail));
    await typeMessage(el, 'My important question');
    composerOf(el).shadowRoot!.querySelector('form')!.requestSubmit();
    await expect.poll(() => messagesOf(el)[0]?.message?.status).toBe('failed');
    await settled(el);
    const question = messagesOf(el)[0];
    expect(question.shadowRoot!.textContent).toContain('My important question');
    const alert = question.shadowRoot!.querySelector('[role="alert"]')!;
    expect(alert.textContent).toBe("The chat couldn't start. Please try again.");
    expect(errors).toEqual([
      { code: 'session_failed', status: 500, recoverable: true, message: alert.textContent },
    ]);
    expect(backend.chatRequests()).toHaveLength(0);

    fail = false;
    const ended = nextAnswerEnd(el);
    question.shadowRoot!.querySelector<HTMLButtonElement>('button.retry')!.click();
    expect((await ended).outcome).toBe('complete');
    await settled(el);
    expect(messagesOf(el).map((m) => m.message?.status)).toEqual(['sent', 'complete']);
  });

  describe('with a service that allows no message for 30 s', () => {
    test.override('backendOptions', { rateLimit: { requests: 0, windowMs: 30_000 } });

    test('a 429 tells the visitor how long to wait', async ({ backend }) => {
      const el = await fixtureChat();
      await el.send('hello');
      await settled(el);
      const question = messagesOf(el)[0];
      expect(question.shadowRoot!.querySelector('[role="alert"]')?.textContent).toBe(
        'Too many messages right now. Try again in 30 s.',
      );
      expect(backend.chatRequests()).toHaveLength(1);
    });
  });

  test('a network failure is a readable error, not a trace', async ({ worker, backend }) => {
    worker.use(http.post(CHAT_URL, () => HttpResponse.error()));
    const el = await fixtureChat();
    await el.send('hello');
    await settled(el);
    const question = messagesOf(el)[0];
    expect(question.shadowRoot!.querySelector('[role="alert"]')?.textContent).toBe(
      "The assistant can't be reached. Check your connection and try again.",
    );
  });

  test('agent-chat-message-send is cancelable: a veto sends nothing and keeps the text', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    el.addEventListener('agent-chat-message-send', (e) => {
      expect(e.detail).toEqual({ threadId: null, text: 'blocked words' });
      e.preventDefault();
    });
    await typeMessage(el, 'blocked words');
    composerOf(el).shadowRoot!.querySelector('form')!.requestSubmit();
    await el.updateComplete;
    expect(messagesOf(el)).toHaveLength(0);
    expect(textareaOf(el).value).toBe('blocked words');
    expect(backend.sessionRequests).toHaveLength(0);
  });

  test('fires typed, composed answer and thread events', async ({ backend }) => {
    const el = await fixtureChat();
    const seen: string[] = [];
    const record = (e: Event) => seen.push(`${e.type}:${(e as CustomEvent).composed}`);
    for (const name of [
      'agent-chat-message-send',
      'agent-chat-answer-start',
      'agent-chat-answer-end',
      'agent-chat-thread-change',
    ] as const) {
      document.addEventListener(name, record);
    }
    let threadId: string | null = null;
    el.addEventListener('agent-chat-thread-change', (e) => (threadId = e.detail.threadId));
    const started = new Promise<{ threadId: string; messageId: string }>((resolve) =>
      el.addEventListener('agent-chat-answer-start', (e) => resolve(e.detail), { once: true }),
    );
    await el.send('events');
    for (const name of [
      'agent-chat-message-send',
      'agent-chat-answer-start',
      'agent-chat-answer-end',
      'agent-chat-thread-change',
    ] as const) {
      document.removeEventListener(name, record);
    }
    expect(seen).toEqual([
      'agent-chat-message-send:true',
      'agent-chat-thread-change:true',
      'agent-chat-answer-start:true',
      'agent-chat-answer-end:true',
    ]);
    expect((await started).threadId).toBe(threadId);
    el.newConversation();
    expect(threadId).toBeNull();
  });

  test('the start screen shows the greeting and sends a starter prompt when chosen', async ({ backend }) => {
    const el = await fixtureChat({ prompts: 'How do I install it? | Can I theme it?' });
    el.greeting = 'Ask me about agent-chat';
    await el.updateComplete;
    const list = el.shadowRoot!.querySelector('agent-chat-message-list')!;
    await list.updateComplete;
    expect(list.shadowRoot!.querySelector('.greeting')?.textContent).toBe('Ask me about agent-chat');
    const buttons = Array.from(list.shadowRoot!.querySelectorAll<HTMLButtonElement>('.prompts button'));
    expect(buttons.map((b) => b.textContent)).toEqual(['How do I install it?', 'Can I theme it?']);
    const ended = nextAnswerEnd(el);
    buttons[1].click();
    await ended;
    expect(messagesOf(el)[0].message?.content).toBe('Can I theme it?');
  });

  test('announces "Thinking…", then the finished answer, each once in the polite live region, not while streaming', async ({
    backend,
  }) => {
    const el = await fixtureChat();
    const region = el.shadowRoot!.querySelector('[aria-live="polite"]')!;
    const observed: string[] = [];
    new MutationObserver(() => observed.push(region.textContent?.trim() ?? '')).observe(region, {
      childList: true,
      subtree: true,
      characterData: true,
    });
    await el.send('events');
    await el.updateComplete;
    await expect.poll(() => region.textContent?.trim()).toMatch(/^Every event is named agent-chat/);
    // Decision 712: the start is said too, once; never a token.
    expect(observed.filter(Boolean)).toEqual(['Thinking…', region.textContent?.trim()]);
    expect(region.textContent).not.toContain('**');
    expect(deepQuery(el, '[role="log"]')?.getAttribute('aria-live')).toBe('off');
  });

  test('clearSession() forgets the token: the next message starts a new session', async ({ backend }) => {
    const el = await fixtureChat();
    await el.send('hello');
    await el.clearSession();
    await el.updateComplete;
    expect(messagesOf(el)).toHaveLength(0);
    await el.send('hello again');
    expect(backend.sessionRequests).toHaveLength(2);
  });
});
