import { describe, expect, it, vi } from 'vitest';
import { inWords, runTool, toolSpecs, viewOf, MAX_TOOL_ROUNDS } from '../../../src/chat/tools.js';
import type { ClientTool } from '../../../src/public-types.js';
import { Conversation } from '../../../src/chat/conversation.js';
import type { ApiClient } from '../../../src/api/api-client.js';
import type { ChatRequest, StreamEvent } from '../../../src/api/types.js';

const call = { id: 'call_1', name: 'echo', arguments: { a: 1 } };
const tool = (execute: ClientTool['execute'], extra: Partial<ClientTool> = {}): ClientTool => ({
  name: 'echo',
  description: 'd',
  parameters: { type: 'object' },
  execute,
  ...extra,
});

describe('runTool', () => {
  it('returns the output as JSON, undefined as null', async () => {
    const signal = new AbortController().signal;
    expect(
      await runTool(
        tool((args) => args),
        call,
        'th',
        signal,
      ),
    ).toEqual({ tool_call_id: 'call_1', output: { a: 1 } });
    expect(
      await runTool(
        tool(() => undefined),
        call,
        'th',
        signal,
      ),
    ).toEqual({ tool_call_id: 'call_1', output: null });
  });

  it('turns a throw, a rejection and an unknown tool into error results', async () => {
    const signal = new AbortController().signal;
    expect(
      await runTool(
        tool(() => {
          throw new Error('boom');
        }),
        call,
        null,
        signal,
      ),
    ).toEqual({ tool_call_id: 'call_1', error: 'boom' });
    expect(
      await runTool(
        tool(async () => Promise.reject(new TypeError('bad'))),
        call,
        null,
        signal,
      ),
    ).toEqual({ tool_call_id: 'call_1', error: 'bad' });
    expect(await runTool(undefined, call, null, signal)).toEqual({
      tool_call_id: 'call_1',
      error: 'unknown tool echo',
    });
  });

  it('gives up on a slow tool after its timeout (default 30 s) and aborts its signal', async () => {
    vi.useFakeTimers();
    try {
      let seen: AbortSignal | undefined;
      const slow = tool((_, context) => {
        seen = context.signal;
        return new Promise(() => {});
      });
      const result = runTool(slow, call, null, new AbortController().signal);
      await vi.advanceTimersByTimeAsync(29_999);
      expect(seen?.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await result).toEqual({ tool_call_id: 'call_1', error: 'timed out after 30000 ms' });
      expect(seen?.aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends name, description and parameters only', () => {
    expect(toolSpecs([tool(() => 1, { displayName: 'Echo', needsApproval: true })])).toEqual([
      { name: 'echo', description: 'd', parameters: { type: 'object' } },
    ]);
  });
});

describe('Conversation tool rounds', () => {
  it('runs at most MAX_TOOL_ROUNDS rounds and ends a 9th request for tools with an error instead of looping', async () => {
    const requests: ChatRequest[] = [];
    async function* paused(): AsyncIterable<StreamEvent> {
      yield { type: 'start', threadId: 'th', questionAnswerId: 'qa' };
      yield { type: 'tool_calls', calls: [{ ...call, id: `call_${requests.length}` }] };
      yield { type: 'end', threadId: 'th', questionAnswerId: 'qa' };
    }
    const api = {
      chat: (request: ChatRequest) => {
        requests.push(request);
        return paused();
      },
      cancelAnswer: async () => {},
    } as unknown as ApiClient;
    const ends: string[] = [];
    const conversation = new Conversation(
      () => api,
      { onChange: () => {}, onAnswerEnd: (d) => ends.push(d.outcome) },
      { tools: () => [tool(() => 'ok')] },
    );
    await conversation.send('loop');
    expect(requests).toHaveLength(MAX_TOOL_ROUNDS + 1);
    expect(ends).toEqual(['error']);
    const answer = conversation.snapshot.messages.at(-1)!;
    expect(answer.toolCalls).toHaveLength(MAX_TOOL_ROUNDS);
    expect(conversation.snapshot.messages.filter((m) => m.role === 'assistant')).toHaveLength(1);
  });
});

describe('Conversation reattaching to a paused answer', () => {
  it('shows each tool call once when the replay repeats calls the page remembered (a reload while a tool waited)', async () => {
    const requests: ChatRequest[] = [];
    async function* replay(): AsyncIterable<StreamEvent> {
      yield { type: 'start', threadId: 'th', questionAnswerId: 'qa' };
      yield { type: 'tool_calls', calls: [call] };
      yield { type: 'end', threadId: 'th', questionAnswerId: 'qa' };
    }
    async function* finish(): AsyncIterable<StreamEvent> {
      yield { type: 'start', threadId: 'th', questionAnswerId: 'qa' };
      yield { type: 'delta', text: 'Done.' };
      yield { type: 'end', threadId: 'th', questionAnswerId: 'qa' };
    }
    const api = {
      reattach: () => replay(),
      chat: (request: ChatRequest) => {
        requests.push(request);
        return finish();
      },
      cancelAnswer: async () => {},
    } as unknown as ApiClient;
    const conversation = new Conversation(
      () => api,
      { onChange: () => {} },
      { tools: () => [tool(() => 'ok')] },
    );
    conversation.reset('th', [
      { id: 'q', role: 'user', content: 'echo', sources: [], status: 'sent' },
      {
        id: 'a',
        role: 'assistant',
        content: '',
        sources: [],
        status: 'interrupted',
        questionAnswerId: 'qa',
        toolCalls: [
          {
            id: call.id,
            name: 'echo',
            displayName: 'echo',
            arguments: call.arguments,
            state: 'awaiting-approval',
          },
        ],
      },
    ]);
    await conversation.reattach('a');
    const answer = conversation.snapshot.messages.at(-1)!;
    expect(answer.toolCalls?.map((c) => [c.id, c.state])).toEqual([[call.id, 'done']]);
    expect(requests.map((r) => r.toolResults)).toEqual([[{ tool_call_id: call.id, output: 'ok' }]]);
  });
});

describe('viewOf: what a card says about a call', () => {
  it("takes the tool's describe(args) sentence, trimmed", () => {
    const view = viewOf(
      call,
      tool(() => 1, { displayName: 'Echo', describe: ({ a }) => `  Echo the number ${String(a)} ` }),
    );
    expect(view).toMatchObject({ displayName: 'Echo', sentence: 'Echo the number 1' });
  });

  it('leaves the sentence out when describe throws, returns nothing or returns no string', () => {
    for (const describe of [
      () => {
        throw new Error('x');
      },
      () => '   ',
      () => 42 as unknown as string,
    ]) {
      expect(
        'sentence' in
          viewOf(
            call,
            tool(() => 1, { describe }),
          ),
      ).toBe(false);
    }
  });

  it('names a call by its display name, else its wire name in words', () => {
    expect(
      viewOf(
        call,
        tool(() => 1, { displayName: 'Echo it' }),
      ).displayName,
    ).toBe('Echo it');
    expect(viewOf({ ...call, name: 'open_page' }, undefined).displayName).toBe('Open page');
    expect(inWords('searchKnowledge-base')).toBe('Search knowledge base');
  });
});

describe('Conversation asking again', () => {
  async function* paused(id: string): AsyncIterable<StreamEvent> {
    yield { type: 'start', threadId: 'th', questionAnswerId: `qa_${id}` };
    yield { type: 'tool_calls', calls: [{ ...call, id }] };
    yield { type: 'end', threadId: 'th', questionAnswerId: `qa_${id}` };
  }
  async function* done(): AsyncIterable<StreamEvent> {
    yield { type: 'start', threadId: 'th', questionAnswerId: 'qa' };
    yield { type: 'delta', text: 'Done.' };
    yield { type: 'end', threadId: 'th', questionAnswerId: 'qa' };
  }

  it('marks an approval card re-asked by a retry of an answer whose call ran, and sends the locale on every call', async () => {
    const requests: ChatRequest[] = [];
    let round = 0;
    const api = {
      chat: (request: ChatRequest) => {
        requests.push(request);
        return request.toolResults ? done() : paused(`call_${++round}`);
      },
      cancelAnswer: async () => {},
    } as unknown as ApiClient;
    const conversation = new Conversation(
      () => api,
      { onChange: () => {} },
      { tools: () => [tool(() => 'ok', { needsApproval: true })], locale: () => 'de-AT' },
    );
    const waiting = () =>
      conversation.snapshot.messages.at(-1)?.toolCalls?.find((c) => c.state === 'awaiting-approval');
    const allow = async () => {
      await vi.waitFor(() => expect(waiting()).toBeDefined());
      const card = waiting()!;
      conversation.tools.decide(card.id, true);
      return card;
    };
    const first = conversation.send('echo');
    expect((await allow()).askedAgain).toBeUndefined();
    await first;
    const again = conversation.retry(conversation.snapshot.messages.at(-1)!.id);
    expect((await allow()).askedAgain).toBe(true);
    await again;
    expect(requests.map((r) => r.locale)).toEqual(['de-AT', 'de-AT', 'de-AT', 'de-AT']);
    expect(requests.map((r) => Boolean(r.toolResults))).toEqual([false, true, false, true]);
  });
});
