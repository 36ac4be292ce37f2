import { describe, expect, it } from 'vitest';
import { estimateTokens, fitHistory } from '../../../../service/agents/history-budget.js';
import { OpenAiAgent, StaticDocs } from '../../../../service/node.js';
import type { MessageRecord } from '../../../../service/index.js';
import { AGENT, allRecords, makeService } from '../../../fixtures/service.js';
import { answers, upstream } from '../../../fixtures/model-upstream.js';

describe('estimateTokens: a cheap, upper-leaning count', () => {
  it('counts 4 ASCII characters a token, one token per other character, and 4 per message', () => {
    expect(estimateTokens('')).toBe(4);
    expect(estimateTokens('abcd')).toBe(5);
    expect(estimateTokens('abcde')).toBe(6);
    expect(estimateTokens('日本語')).toBe(7);
    // An emoji is one character (two UTF-16 units), counted once.
    expect(estimateTokens('😀')).toBe(5);
    expect(estimateTokens('café')).toBe(6);
  });
});

describe('fitHistory', () => {
  const turn = (n: number, size = 40) => [
    { role: 'user', content: `q${n} ${'x'.repeat(size)}` },
    { role: 'assistant', content: `a${n}` },
  ];

  it('keeps the newest whole turns that fit and drops the oldest first', () => {
    const history = [...turn(1), ...turn(2), ...turn(3)];
    const cost = estimateTokens(turn(1)[0].content) + estimateTokens('a1');
    expect(fitHistory(history, 3 * cost).map((m) => m.content.slice(0, 2))).toEqual([
      'q1',
      'a1',
      'q2',
      'a2',
      'q3',
      'a3',
    ]);
    expect(fitHistory(history, 2 * cost).map((m) => m.content.slice(0, 2))).toEqual(['q2', 'a2', 'q3', 'a3']);
    expect(fitHistory(history, 2 * cost - 1).map((m) => m.content.slice(0, 2))).toEqual(['q3', 'a3']);
    expect(fitHistory(history, 0)).toEqual([]);
  });

  it('never keeps an answer without its question, nor an older turn past one that did not fit', () => {
    const history = [...turn(1, 4), ...turn(2, 4000), ...turn(3, 4)];
    expect(fitHistory(history, 200).map((m) => m.content.slice(0, 2))).toEqual(['q3', 'a3']);
  });
});

describe('the history the model agent sends', () => {
  it('stays within the budget on a long thread: the 121st question of 2,000-character turns sends kilobytes, not megabytes', async () => {
    const model = await upstream(answers(['ok']));
    const agent = new OpenAiAgent({ baseUrl: model.baseUrl, model: 'm', docs: new StaticDocs([]) });
    const ctx = makeService({ agent });
    const token = await ctx.session('alice');
    const first = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: 'int_demo', message: 'turn 0' },
      }),
    );
    const threadId = first[0].content.thread_id as string;
    // 120 earlier turns of 2,000 characters each way, written straight to the store.
    const now = ctx.clock.now();
    for (let n = 1; n <= 120; n++) {
      for (const role of ['user', 'assistant'] as const) {
        const message: MessageRecord = {
          id: `msg_${role}_${n}`,
          role,
          content: `${role} turn ${n} ${'lorem ipsum '.repeat(166)}`,
          sources: [],
          createdAt: now + n,
          updatedAt: now + n,
          status: 'complete',
          toolCalls: [],
          activity: [],
          uncertain: false,
        };
        await ctx.service.storage.conversations.appendMessage(threadId, message);
      }
    }
    await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: 'int_demo', message: 'And the newest question?', thread_id: threadId },
      }),
    );
    const sent = model.requests.at(-1) as { messages: { role: string; content: string }[] };
    const history = sent.messages.slice(1, -1);
    const tokens = history.reduce((sum, m) => sum + estimateTokens(m.content), 0);
    expect(tokens).toBeLessThanOrEqual(8_000);
    expect(tokens).toBeGreaterThan(7_000);
    expect(JSON.stringify(sent).length).toBeLessThan(32_000);
    expect(history.at(-1)!.content).toMatch(/^assistant turn 120 /);
    expect(history[0].content).toMatch(/^user turn \d+ /);
    expect(sent.messages.some((m) => m.content.startsWith('user turn 1 '))).toBe(false);
    expect(sent.messages[0].role).toBe('system');
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'And the newest question?' });
  });
});
