import { describe, expect, it } from 'vitest';
import { type Agent, type AgentOutput } from '../../../../service/index.js';
import { makeService, chatRecords, threadJson } from '../../../fixtures/service.js';

describe('§4 records: stream_start names the answer; activity updates', () => {
  it('sends question_answer_id in stream_start, the same id as in identifiers', async () => {
    const ctx = makeService();
    const { records } = await chatRecords(ctx, await ctx.session('alice'), {
      message: 'How do I theme the widget?',
    });
    expect(records[0]).toEqual({
      type: 'stream_start',
      content: { thread_id: expect.any(String), question_answer_id: expect.stringMatching(/^msg_/) },
      stream_end: false,
    });
    expect(records.at(-1)?.content.question_answer_id).toBe(records[0].content.question_answer_id);
  });

  it("reports the demo agent's search as agent_activity_update records, upserted by id", async () => {
    const ctx = makeService();
    const { records } = await chatRecords(ctx, await ctx.session('alice'), {
      message: 'How do I theme the widget?',
    });
    const updates = records.filter((r) => r.type === 'agent_activity_update').map((r) => r.content);
    expect(updates).toEqual([
      expect.objectContaining({
        id: 'search-1',
        name: 'search_knowledge_base',
        status: 'started',
        num_results: null,
      }),
      expect.objectContaining({
        id: 'search-1',
        name: 'search_knowledge_base',
        status: 'completed',
        num_results: expect.any(Number),
      }),
    ]);
  });

  it('sends metadata is_uncertain when the agent says so, and keeps it on the stored answer', async () => {
    const unsure: Agent = {
      async *answer() {
        yield { type: 'uncertain' } satisfies AgentOutput;
        yield { type: 'text', text: 'Maybe.' } satisfies AgentOutput;
      },
    };
    const ctx = makeService({ agent: unsure });
    const token = await ctx.session('alice');
    const { records } = await chatRecords(ctx, token, { message: 'hi' });
    expect(records.find((r) => r.type === 'metadata')?.content).toEqual({ is_uncertain: true });
    const detail = await threadJson(ctx, token, records[0].content.thread_id as string);
    expect(detail.messages[1].is_uncertain).toBe(true);
  });
});
