import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/api-client.js';
import { ApiError, NetworkError, SessionError } from '../../../src/api/errors.js';
import type { ChatRequest, StreamEvent } from '../../../src/api/types.js';
import { Conversation, fromThreadMessage, type ConversationHooks } from '../../../src/chat/conversation.js';
import type { ConversationSnapshot } from '../../../src/chat/types.js';
import type { FileInfo } from '../../../src/api/types.js';
import { SUPPORTED_LOCALES, loadLocale, translator } from '../../../src/i18n/index.js';
import { failingStream } from '../../helpers/requests.js';

type Script = (request: ChatRequest, signal?: AbortSignal) => AsyncIterable<StreamEvent>;

function fakeApi(script: Script): ApiClient {
  return {
    chat: (request, options) => script(request, options?.signal),
    listThreads: async () => ({ threads: [], next_cursor: null }),
    getThread: async () => {
      throw new Error('unused');
    },
    deleteThread: async () => {},
    cancelAnswer: async () => {},
    reattach: () => {
      throw new Error('unused');
    },
    renameThread: async () => {
      throw new Error('unused');
    },
    sendFeedback: async () => {},
    reportHandoff: async () => {},
    uploadFile: async () => {
      throw new Error('unused');
    },
    fileBlob: async () => {
      throw new Error('unused');
    },
  };
}

async function* answer(threadId: string, ...deltas: string[]): AsyncIterable<StreamEvent> {
  yield { type: 'start', threadId };
  for (const text of deltas) yield { type: 'delta', text };
  yield { type: 'end', threadId, questionAnswerId: 'qa' };
}

function setup(script: Script) {
  const snapshots: ConversationSnapshot[] = [];
  const log: string[] = [];
  const hooks: ConversationHooks = {
    onChange: (s) => snapshots.push(s),
    onAnswerStart: (d) => log.push(`start:${d.threadId}`),
    onAnswerEnd: (d) => log.push(`end:${d.outcome}:${d.text}`),
    onThreadChange: (id) => log.push(`thread:${id}`),
    onError: (e) => log.push(`error:${e.code}`),
  };
  let ticks: Array<() => void> = [];
  const conversation = new Conversation(() => fakeApi(script), hooks, { schedule: (cb) => ticks.push(cb) });
  const flush = () => {
    const pending = ticks;
    ticks = [];
    pending.forEach((cb) => cb());
  };
  return { conversation, snapshots, log, flush, last: () => snapshots.at(-1)! };
}

describe('Conversation', () => {
  it('a restored thread whose messages share an id (a page that restarted its ids) keeps each one apart, and new ids are new', async () => {
    const { conversation } = setup((request) => answer('th', `re: ${request.message}`));
    const question = (id: string, content: string) =>
      ({ id, role: 'user', content, sources: [], status: 'sent' }) as const;
    // What an earlier version stored: each page counted from 1.
    conversation.reset('th', [
      question('local-user-1', 'How do I theme it?'),
      { id: 'local-assistant-2', role: 'assistant', content: 'Theming…', sources: [], status: 'complete' },
      question('local-user-1', 'How do tokens work?'),
      { id: 'local-assistant-2', role: 'assistant', content: 'Tok', sources: [], status: 'error' },
    ]);
    const ids = conversation.snapshot.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(4);
    await conversation.retry(ids[3]);
    const after = conversation.snapshot.messages;
    expect(after.map((m) => m.content)).toEqual([
      'How do I theme it?',
      'Theming…',
      'How do tokens work?',
      're: How do tokens work?',
    ]);
    await conversation.send('and the colors?');
    const all = conversation.snapshot.messages.map((m) => m.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all.slice(-2).every((id) => !/^local-\w+-\d+$/.test(id))).toBe(true);
  });

  it('sends a turn, streams the answer and continues the same thread', async () => {
    const requests: Array<string | null | undefined> = [];
    const { conversation, log, last } = setup((request) => {
      requests.push(request.threadId);
      return answer('th_1', 'Hello ', 'world');
    });
    await conversation.send('Hi');
    await conversation.send('Again');
    expect(requests).toEqual([null, 'th_1']);
    expect(last().messages.map((m) => [m.role, m.status, m.content])).toEqual([
      ['user', 'sent', 'Hi'],
      ['assistant', 'complete', 'Hello world'],
      ['user', 'sent', 'Again'],
      ['assistant', 'complete', 'Hello world'],
    ]);
    expect(log).toEqual([
      'thread:th_1',
      'start:th_1',
      'end:complete:Hello world',
      'start:th_1',
      'end:complete:Hello world',
    ]);
  });

  it('coalesces deltas into one snapshot per scheduler tick', async () => {
    const { conversation, snapshots, flush } = setup(() =>
      answer('th_1', ...Array.from({ length: 50 }, () => 'x')),
    );
    const done = conversation.send('Hi');
    await done;
    const before = snapshots.length;
    flush();
    // sending, start, end: the 50 deltas never published one by one.
    expect(before).toBeLessThan(6);
  });

  it('keeps a question that failed before the stream, with a readable error, and retries it in place', async () => {
    let fail = true;
    const { conversation, log, last } = setup(() => {
      if (fail) return failingStream(new SessionError('session_failed', 'down', { status: 500 }));
      return answer('th_1', 'ok');
    });
    await conversation.send('Keep me');
    const [question] = last().messages;
    expect(question).toMatchObject({
      role: 'user',
      status: 'failed',
      content: 'Keep me',
      error: { code: 'session_failed', recoverable: true },
    });
    // The answer it asked for ended in an error (decision 336): the page hears it once.
    expect(log).toEqual(['error:session_failed', 'end:error:']);
    fail = false;
    await conversation.retry(question.id);
    expect(last().messages.map((m) => m.status)).toEqual(['sent', 'complete']);
  });

  it('keeps the partial text of an interrupted answer and replaces it on retry', async () => {
    let calls = 0;
    const { conversation, last, log } = setup(() => {
      calls += 1;
      if (calls === 1)
        return (async function* (): AsyncIterable<StreamEvent> {
          yield { type: 'start', threadId: 'th_1' };
          yield { type: 'delta', text: 'Half' };
          yield { type: 'interrupted', reason: 'broke' };
        })();
      return answer('th_1', 'Whole');
    });
    await conversation.send('Q');
    const broken = last().messages[1];
    expect(broken).toMatchObject({ status: 'interrupted', content: 'Half' });
    expect(log).toContain('end:error:Half');
    await conversation.retry(broken.id);
    expect(last().messages.map((m) => m.content)).toEqual(['Q', 'Whole']);
  });

  it('fires one error for an answer whose connection fails, not one from the failure and one from its end', async () => {
    const { conversation, last, log } = setup(() =>
      (async function* (): AsyncIterable<StreamEvent> {
        yield { type: 'start', threadId: 'th_1' };
        yield { type: 'delta', text: 'Half' };
        throw new NetworkError('Sending the message: the service could not be reached.');
      })(),
    );
    await conversation.send('Q');
    expect(last().messages[1]).toMatchObject({ status: 'interrupted', content: 'Half' });
    expect(log.filter((entry) => entry.startsWith('error:'))).toEqual(['error:network']);
    expect(log).toContain('end:error:Half');
  });

  it('marks an answer stopped on stop(), keeping what arrived', async () => {
    const { conversation, last, log } = setup((_request, signal) =>
      (async function* (): AsyncIterable<StreamEvent> {
        yield { type: 'start', threadId: 'th_1' };
        yield { type: 'delta', text: 'Some' };
        await new Promise((_, reject) =>
          signal!.addEventListener('abort', () => reject(new DOMException('stop', 'AbortError'))),
        );
      })(),
    );
    const sending = conversation.send('Q');
    await new Promise((resolve) => setTimeout(resolve, 0));
    conversation.stop();
    await sending;
    expect(last().messages[1]).toMatchObject({ status: 'stopped', content: 'Some' });
    expect(last().streaming).toBe(false);
    expect(log.at(-1)).toBe('end:aborted:Some');
  });

  it('drops a stream that a reset() abandoned', async () => {
    const { conversation, last } = setup((_request, signal) =>
      (async function* (): AsyncIterable<StreamEvent> {
        yield { type: 'start', threadId: 'th_old' };
        await new Promise((_, reject) =>
          signal!.addEventListener('abort', () => reject(new DOMException('x', 'AbortError'))),
        );
      })(),
    );
    const sending = conversation.send('Q');
    await new Promise((resolve) => setTimeout(resolve, 0));
    conversation.reset();
    await sending;
    expect(last()).toEqual({ threadId: null, messages: [], streaming: false });
  });

  it('describes a 429 with the wait time and a 413 as not worth retrying', async () => {
    let status = 429;
    const { conversation, last } = setup(() =>
      failingStream<StreamEvent>(
        new ApiError(status, status === 429 ? 'rate_limited' : 'payload_too_large', 'x', { retryAfter: 12 }),
      ),
    );
    await conversation.send('Q');
    expect(last().messages[0].error).toMatchObject({
      message: 'Too many messages right now. Try again in 12 s.',
      recoverable: true,
    });
    status = 413;
    await conversation.send('Q2');
    expect(last().messages[1].error).toMatchObject({ code: 'payload_too_large', recoverable: false });
  });

  describe('files the new session may not send (decision 671), named in every language', () => {
    /** How each language says "no longer available" of one file and of several, where the two differ. */
    const AGREES: Record<string, [one: string, several: string]> = {
      ar: ['لم يعد متاحًا', 'لم تعد متاحة'],
      es: ['ya no está disponible', 'ya no están disponibles'],
      fr: ['n’est plus disponible', 'ne sont plus disponibles'],
      he: ['אינו זמין עוד', 'אינם זמינים עוד'],
      it: ['non più disponibile', 'non più disponibili'],
      pl: ['już niedostępny', 'już niedostępne'],
      pt: ['não está mais disponível', 'não estão mais disponíveis'],
      sv: ['inte längre tillgänglig', 'inte längre tillgängliga'],
    };
    const file = (name: string): FileInfo => ({
      file_id: `file_${name}`,
      name,
      size: 26,
      content_type: 'text/plain',
      kind: 'text',
    });

    /** The failed question's words in `locale`, for a question of `text` whose `names` are gone. */
    async function gone(locale: string, text: string, names: string[]): Promise<string> {
      const { conversation, last } = setup(() =>
        failingStream<StreamEvent>(new ApiError(400, 'file_unavailable', 'x')),
      );
      await conversation.send(text, names.map(file));
      const { error } = last().messages[0];
      return translator(await loadLocale(locale))(error!.key!, error!.values);
    }

    it.each(SUPPORTED_LOCALES)(
      '%s: one file in the singular, several in the plural, with or without text',
      async (locale) => {
        for (const text of ['And this log?', '']) {
          const one = await gone(locale, text, ['a.log']);
          const several = await gone(locale, text, ['a.log', 'b.log']);
          expect(several).toContain('a.log, b.log');
          const agrees = AGREES[locale];
          if (!agrees) expect(several.replace('a.log, b.log', 'a.log')).toBe(one);
          else {
            expect(one).toContain(agrees[0]);
            expect(several).toContain(agrees[1]);
          }
        }
      },
    );
  });

  it('ignores blank messages and a second send while one is streaming', async () => {
    let calls = 0;
    const { conversation } = setup(() => {
      calls += 1;
      return answer('th_1', 'x');
    });
    await conversation.send('   ');
    const first = conversation.send('a');
    await conversation.send('b');
    await first;
    expect(calls).toBe(1);
  });
});

describe('fromThreadMessage', () => {
  const resumed = {
    id: 'm2',
    role: 'assistant' as const,
    content: 'Opened it.',
    sources: [],
    created_at: '2026-11-21T10:00:00Z',
    status: 'complete' as const,
    question_answer_id: 'qa1',
    tool_calls: [
      { id: 'c1', name: 'open_page', arguments: { page: 'pricing' }, status: 'completed' as const },
      { id: 'c2', name: 'gone_tool', arguments: {}, status: 'error' as const, error: 'unknown tool' },
    ],
  };

  it('shows a resumed tool call under the name the page gave its tool, else its own name in words', () => {
    const message = fromThreadMessage(resumed, [
      {
        name: 'open_page',
        description: 'Opens a page',
        parameters: {},
        displayName: 'Open a page',
        execute: () => null,
      },
    ]);
    expect(message.toolCalls).toEqual([
      {
        id: 'c1',
        name: 'open_page',
        displayName: 'Open a page',
        arguments: { page: 'pricing' },
        state: 'done',
      },
      {
        id: 'c2',
        name: 'gone_tool',
        displayName: 'Gone tool',
        arguments: {},
        state: 'error',
        error: 'unknown tool',
      },
    ]);
  });
});
