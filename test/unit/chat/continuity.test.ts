import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../../src/api/api-client.js';
import type { StreamEvent } from '../../../src/api/types.js';
import { ApiError, NetworkError } from '../../../src/api/errors.js';
import { Conversation } from '../../../src/chat/conversation.js';
import { REATTACH_ATTEMPTS, reattachDelay } from '../../../src/chat/reattach.js';
import type { ChatMessage } from '../../../src/chat/types.js';

type Api = Pick<ApiClient, 'chat' | 'reattach' | 'cancelAnswer'>;

function conversationWith(api: Api) {
  const changes: string[][] = [];
  const ends: string[] = [];
  const errors: string[] = [];
  const conversation = new Conversation(() => api as ApiClient, {
    onChange: (s) => changes.push(s.messages.map((m) => m.content)),
    onAnswerEnd: (d) => ends.push(`${d.outcome}:${d.text}`),
    onError: (e) => errors.push(e.code),
  });
  return { conversation, changes, ends, errors };
}

async function* records(...events: StreamEvent[]): AsyncIterable<StreamEvent> {
  for (const event of events) yield event;
}

const cut: ChatMessage = {
  id: 'a1',
  role: 'assistant',
  content: 'Hello wor',
  sources: [],
  status: 'interrupted',
  questionAnswerId: 'qa1',
};

/** An answer whose stream drops after its first words; each reattach does what `reattach` does. */
const droppedThen = (reattach: Api['reattach']): Api => ({
  chat: () =>
    records(
      { type: 'start', threadId: 'th', questionAnswerId: 'qa1' },
      { type: 'delta', text: 'part' },
      { type: 'interrupted', reason: 'drop' },
    ),
  cancelAnswer: async () => {},
  reattach,
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('Conversation.reattach (§9)', () => {
  it('replaces the text with the replay, never shows it shorter or twice, and does not ask again', async () => {
    const chat = vi.fn();
    const api: Api = {
      chat,
      cancelAnswer: async () => {},
      reattach: (qa) => {
        expect(qa).toBe('qa1');
        return records(
          { type: 'start', threadId: 'th', questionAnswerId: 'qa1' },
          { type: 'delta', text: 'Hello wor' },
          { type: 'delta', text: 'ld, again.' },
          { type: 'end', threadId: 'th', questionAnswerId: 'qa1' },
        );
      },
    };
    const { conversation, changes, ends } = conversationWith(api);
    conversation.reset('th', [{ id: 'q', role: 'user', content: 'Hi', sources: [], status: 'sent' }, cut]);
    await conversation.reattach('a1');
    expect(chat).not.toHaveBeenCalled();
    expect(ends).toEqual(['complete:Hello world, again.']);
    // Every published answer text starts with what was on screen: no blink, no duplicate.
    for (const texts of changes.slice(1))
      expect(texts[1].startsWith('Hello wor') || texts[1] === '').toBe(true);
    expect(changes.at(-1)).toEqual(['Hi', 'Hello world, again.']);
  });

  it('after a drop it tries a bounded number of times with backoff, then leaves the answer interrupted', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    const api = droppedThen(() => {
      attempts++;
      return records({ type: 'interrupted', reason: 'still down' });
    });
    const { conversation, ends } = conversationWith(api);
    const sent = conversation.send('Hi');
    for (let i = 0; i < REATTACH_ATTEMPTS; i++) await vi.advanceTimersByTimeAsync(reattachDelay(i));
    await sent;
    expect(attempts).toBe(REATTACH_ATTEMPTS);
    expect(ends).toEqual(['error:part']);
    expect(conversation.snapshot.messages.at(-1)!.status).toBe('interrupted');
  });
  it('keeps trying when a reattach cannot reach the service (a dead zone the browser calls online)', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    // The first two reattaches never get an answer; the third reaches the service again.
    const api = droppedThen(() => {
      attempts++;
      if (attempts <= 2)
        throw new NetworkError('Reconnecting to the answer: the service could not be reached.');
      return records(
        { type: 'start', threadId: 'th', questionAnswerId: 'qa1' },
        { type: 'delta', text: 'part and the rest.' },
        { type: 'end', threadId: 'th', questionAnswerId: 'qa1' },
      );
    });
    const { conversation, ends, errors } = conversationWith(api);
    const sent = conversation.send('Hi');
    for (let i = 0; i < 3; i++) await vi.advanceTimersByTimeAsync(reattachDelay(i));
    await sent;
    expect(attempts).toBe(3);
    expect(errors).toEqual([]);
    expect(ends).toEqual(['complete:part and the rest.']);
  });

  it('after the last reattach fails to reach the service, says so and offers Retry', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    const api = droppedThen(() => {
      attempts++;
      throw new NetworkError('Reconnecting to the answer: the service could not be reached.');
    });
    const { conversation, errors } = conversationWith(api);
    const sent = conversation.send('Hi');
    for (let i = 0; i < REATTACH_ATTEMPTS; i++) await vi.advanceTimersByTimeAsync(reattachDelay(i));
    await sent;
    expect(attempts).toBe(REATTACH_ATTEMPTS);
    expect(errors).toEqual(['network']);
    const answer = conversation.snapshot.messages.at(-1)!;
    expect(answer.content).toBe('part');
    expect(answer.status).toBe('interrupted');
    expect(answer.error?.key).toBe('errorNetwork');
    expect(answer.error?.recoverable).toBe(true);
  });

  it('reads "Reconnecting…" between attempts, never the interrupted alert, and counts a gateway error as an attempt (decision 587)', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    // Refused, then a proxy's 502 and 504 (the service behind it is down), then it is back.
    const api = droppedThen(() => {
      attempts++;
      if (attempts === 1)
        throw new NetworkError('Reconnecting to the answer: the service could not be reached.');
      if (attempts <= 3) throw new ApiError(attempts === 2 ? 502 : 504, 'http_error', 'Bad gateway');
      return records(
        { type: 'start', threadId: 'th', questionAnswerId: 'qa1' },
        { type: 'delta', text: 'part and the rest.' },
        { type: 'end', threadId: 'th', questionAnswerId: 'qa1' },
      );
    });
    const shown: string[] = [];
    const conversation = new Conversation(
      () => api as ApiClient,
      {
        onChange: (s) => {
          const answer = s.messages[1];
          const line = answer && `${answer.status}:${answer.error?.key ?? ''}`;
          if (line && line !== shown.at(-1)) shown.push(line);
        },
      },
      // As the element publishes a streaming answer: once a frame.
      { schedule: (callback) => void setTimeout(callback, 16) },
    );
    const sent = conversation.send('Hi');
    for (let i = 0; i < 4; i++) await vi.advanceTimersByTimeAsync(reattachDelay(i));
    await sent;
    expect(attempts).toBe(4);
    expect(shown).toEqual(['streaming:', 'interrupted:reconnecting', 'complete:']);
  });

  it('stopped while it reconnects, it is the interrupted answer it was, stopped', async () => {
    vi.useFakeTimers();
    const api = droppedThen(() => {
      throw new NetworkError('Reconnecting to the answer: the service could not be reached.');
    });
    const { conversation, ends } = conversationWith(api);
    const sent = conversation.send('Hi');
    await vi.advanceTimersByTimeAsync(reattachDelay(0));
    expect(conversation.snapshot.messages.at(-1)!.error?.key).toBe('reconnecting');
    conversation.stop();
    await vi.advanceTimersByTimeAsync(0);
    await sent;
    expect(ends).toEqual(['aborted:part']);
    const answer = conversation.snapshot.messages.at(-1)!;
    expect(answer.status).toBe('stopped');
    expect(answer.error?.key).toBe('errorInterrupted');
  });
});
