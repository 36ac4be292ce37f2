import { describe, expect, it } from 'vitest';
import type { Agent, LogEntry } from '../../../../service/index.js';
import { AgentError } from '../../../../service/agents/types.js';
import { AGENT, PROJECT, allRecords, makeService } from '../../../fixtures/service.js';

describe('the answer runner never hides a failure', () => {
  const run = async (agent: Agent) => {
    const logs: LogEntry[] = [];
    const ctx = makeService({ agent, log: (e) => logs.push(e) });
    const token = await ctx.session('alice');
    const records = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: 'int_demo', message: 'hi' },
      }),
    );
    const stored = (await ctx.service.storage.conversations.getThread(
      records[0].content.thread_id as string,
    ))!.messages.at(-1)!;
    return { end: records.at(-1)!, stored, logs, ctx };
  };

  it('an agent that ends quietly without a word is an error, not an empty complete answer', async () => {
    const { end, stored } = await run({ async *answer() {} });
    expect(end).toEqual({
      type: 'error',
      content: { reason: 'The agent ended without an answer.' },
      stream_end: true,
    });
    expect(stored.status).toBe('error');
    expect(stored.failure).toEqual({
      code: 'answer_empty',
      message: 'The agent ended without a word and without a tool call.',
      reason: 'The agent ended without an answer.',
    });
  });

  it('an AgentError ends with its own reason, keeps the text and logs its code and hint', async () => {
    const { end, stored, logs, ctx } = await run({
      async *answer() {
        yield { type: 'text', text: 'So far, ' };
        throw new AgentError('The knowledge base is offline.', 'kb_offline', 'start the search service');
      },
    });
    expect(end).toEqual({
      type: 'error',
      content: { reason: 'The knowledge base is offline.' },
      stream_end: true,
    });
    expect(stored).toMatchObject({ status: 'error', content: 'So far, ' });
    // The console shows the hint, as a sentence (decision 496); a reattach ends with the reason (524).
    expect(stored.failure).toEqual({
      code: 'kb_offline',
      message: 'Start the search service.',
      reason: 'The knowledge base is offline.',
    });
    // The log line names the answer, to find it in the console, and no one who asked.
    const thread = (await ctx.service.storage.conversations.getMessage(stored.id))!.thread;
    expect(logs.find((l) => l.msg === 'agent_failed')).toEqual({
      level: 'warn',
      msg: 'agent_failed',
      project: PROJECT.id,
      thread: thread.id,
      answer: stored.id,
      error: 'AgentError',
      code: 'kb_offline',
      hint: 'start the search service',
    });
    expect(JSON.stringify(logs.find((l) => l.msg === 'agent_failed'))).not.toContain('alice');
  });

  it('any other exception ends with a generic reason and logs only its name', async () => {
    const { end, stored, logs } = await run({
      async *answer() {
        yield { type: 'text', text: 'Partly' };
        throw new RangeError('the visitor asked about secret-project-x');
      },
    });
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The agent could not finish this answer.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: 'Partly' });
    expect(stored.failure).toMatchObject({
      code: 'agent_threw',
      message: expect.stringContaining('RangeError'),
    });
    expect(JSON.stringify(stored.failure)).not.toContain('secret-project-x');
    expect(JSON.stringify(logs)).not.toContain('secret-project-x');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'agent_failed', error: 'RangeError' }));
  });
});
