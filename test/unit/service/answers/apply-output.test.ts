import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_CHARS, MAX_TOOL_ROUNDS } from '../../../../contract/limits.js';
import { RECORD_SEPARATOR } from '../../../../contract/records.js';
import {
  type AnswerRun,
  agentFailure,
  applyOutput,
  quietEnd,
  stoppedEnd,
} from '../../../../service/answers/apply-output.js';
import { AgentError } from '../../../../service/agents/types.js';
import { answerOf } from '../../../fixtures/records.js';

const source = (n: number) => ({
  title: `Doc ${n}`,
  subtitle: null,
  source_url: `https://docs.test/${n}`,
  source_type: 'doc',
});
const step = (id: string, status: 'started' | 'completed') => ({
  id,
  name: 'search',
  status,
  summary: null,
  num_results: null,
});

/** A record as the widget reads it: its chunk. */
function chunk(record: string | null) {
  expect(record?.endsWith(RECORD_SEPARATOR)).toBe(true);
  return JSON.parse(record!.slice(0, -1)).chunk as {
    type: string;
    content: Record<string, unknown>;
    stream_end: boolean;
  };
}

const fresh = (rounds = 0): AnswerRun => ({ message: answerOf('msg_a'), runUsage: null, rounds });

describe('applyOutput', () => {
  it(`ends an answer that would pass ${MAX_ANSWER_CHARS} characters as an error, with the text that fits`, () => {
    const near = applyOutput(fresh(), { type: 'text', text: 'a'.repeat(MAX_ANSWER_CHARS - 3) });
    expect(near.end).toBeNull();
    // A surrogate pair that does not fit whole is left out whole.
    const over = applyOutput(near.run, { type: 'text', text: 'bc😀d' });
    expect(over.text).toBe('bc');
    expect(over.run.message.content).toHaveLength(MAX_ANSWER_CHARS - 1);
    expect(over.end).toMatchObject({ status: 'error' });
    expect(chunk(over.end!.record)).toEqual({
      type: 'error',
      content: { reason: 'The answer was too long and was ended.' },
      stream_end: true,
    });
  });

  it('clamps what a run reports as usage to whole tokens below 2³¹ (the store keeps 64-bit sums)', () => {
    const applied = applyOutput(fresh(), { type: 'usage', promptTokens: 1e20, completionTokens: -4 });
    const again = applyOutput(applied.run, {
      type: 'usage',
      promptTokens: Number.NaN,
      completionTokens: 2.6,
    });
    expect(again.run.runUsage).toEqual({ promptTokens: 2 ** 31 - 1, completionTokens: 3 });
    expect(again.run.message.usage).toEqual({ promptTokens: 2 ** 31 - 1, completionTokens: 3 });
  });

  it('appends text to the answer and sends it as text, leaving the run it was given as it was', () => {
    const before = fresh();
    const first = applyOutput(before, { type: 'text', text: 'Hello' });
    const second = applyOutput(first.run, { type: 'text', text: ', world' });
    expect(second.run.message.content).toBe('Hello, world');
    expect([first.text, second.text]).toEqual(['Hello', ', world']);
    expect([first.record, second.record, second.end]).toEqual([null, null, null]);
    expect(before.message.content).toBe('');
    expect(first.run.message).not.toBe(before.message);
  });

  it('adds sources and sends them as one relevant_sources record', () => {
    const once = applyOutput(fresh(), { type: 'sources', sources: [source(1)] });
    const twice = applyOutput(once.run, { type: 'sources', sources: [source(2), source(3)] });
    expect(twice.run.message.sources.map((s) => s.title)).toEqual(['Doc 1', 'Doc 2', 'Doc 3']);
    expect(chunk(twice.record)).toEqual({
      type: 'relevant_sources',
      content: { relevant_sources: [source(2), source(3)] },
      stream_end: false,
    });
    expect(once.run.message.sources).toHaveLength(1);
  });

  it('keeps the last state of each step, in the order the steps began', () => {
    let run = fresh();
    for (const s of [step('a', 'started'), step('b', 'started'), step('a', 'completed')])
      run = applyOutput(run, { type: 'activity', step: s }).run;
    expect(run.message.activity.map((s) => [s.id, s.status])).toEqual([
      ['a', 'completed'],
      ['b', 'started'],
    ]);
    const last = applyOutput(run, { type: 'activity', step: step('b', 'completed') });
    expect(chunk(last.record)).toMatchObject({
      type: 'agent_activity_update',
      content: { id: 'b', status: 'completed' },
    });
  });

  it('sums usage into the answer (every run) and into this run, and sends nothing', () => {
    const resumed: AnswerRun = {
      ...fresh(),
      message: { ...answerOf('msg_a'), usage: { promptTokens: 100, completionTokens: 10 } },
    };
    const once = applyOutput(resumed, { type: 'usage', promptTokens: 50, completionTokens: 5 });
    const twice = applyOutput(once.run, { type: 'usage', promptTokens: 7, completionTokens: 3 });
    expect(twice.run.message.usage).toEqual({ promptTokens: 157, completionTokens: 18 });
    expect(twice.run.runUsage).toEqual({ promptTokens: 57, completionTokens: 8 });
    expect([twice.record, twice.text, twice.end]).toEqual([null, '', null]);
    expect(resumed.message.usage).toEqual({ promptTokens: 100, completionTokens: 10 });
  });

  it('marks the answer uncertain with a metadata record', () => {
    const applied = applyOutput(fresh(), { type: 'uncertain' });
    expect(applied.run.message.uncertain).toBe(true);
    expect(chunk(applied.record)).toEqual({
      type: 'metadata',
      content: { is_uncertain: true },
      stream_end: false,
    });
  });

  it('pauses on tool calls: pending calls of the next round, the run ends streaming with tool_calls', () => {
    const calls = [{ id: 'call_1', name: 'lookup', arguments: { q: 'x' } }];
    const applied = applyOutput(fresh(2), { type: 'tool_calls', calls });
    expect(applied.run.message.toolCalls).toEqual([{ ...calls[0], round: 3, status: 'pending' }]);
    expect(applied.end?.status).toBe('streaming');
    expect(chunk(applied.end!.record)).toEqual({
      type: 'tool_calls',
      content: { tool_calls: calls },
      stream_end: true,
    });
    expect(applied.record).toBeNull();
  });

  it(`ends with an error when the agent asks for more than ${MAX_TOOL_ROUNDS} tool rounds`, () => {
    const calls = [{ id: 'call_9', name: 'lookup', arguments: {} }];
    const applied = applyOutput(fresh(MAX_TOOL_ROUNDS), { type: 'tool_calls', calls });
    expect(applied.end?.status).toBe('error');
    expect(chunk(applied.end!.record).content.reason).toBe(
      `The agent asked for more than ${MAX_TOOL_ROUNDS} tool rounds.`,
    );
    expect(applied.run.message.toolCalls).toEqual([]);
  });
});

describe('how a run ends', () => {
  it('completes with the ids when the answer has text or tool calls, and fails when it has neither', () => {
    const done = quietEnd({ ...answerOf('msg_a'), content: 'Yes.' }, 'th_1');
    expect(done.status).toBe('complete');
    expect(chunk(done.record)).toEqual({
      type: 'identifiers',
      content: { thread_id: 'th_1', question_answer_id: 'msg_a' },
      stream_end: true,
    });
    const paused = {
      ...answerOf('msg_a'),
      toolCalls: [{ id: 'c', name: 'n', arguments: {}, round: 1, status: 'completed' as const }],
    };
    expect(quietEnd(paused, 'th_1').status).toBe('complete');
    const blank = quietEnd({ ...answerOf('msg_a'), content: ' \n ' }, 'th_1');
    expect(blank.status).toBe('error');
    expect(chunk(blank.record).content.reason).toBe('The agent ended without an answer.');
  });

  it('keeps a stopped answer as stopped; one past its time limit or cut by a shutdown ends as an error', () => {
    expect(stoppedEnd('cancel', 'th_1', 'msg_a')).toMatchObject({ status: 'stopped' });
    expect(chunk(stoppedEnd('cancel', 'th_1', 'msg_a').record).type).toBe('identifiers');
    const late = stoppedEnd('time_limit', 'th_1', 'msg_a');
    expect(late.status).toBe('error');
    expect(chunk(late.record).content.reason).toBe('The answer took too long and was ended.');
    const cut = stoppedEnd('shutdown', 'th_1', 'msg_a');
    expect(cut.status).toBe('error');
    expect(chunk(cut.record).content.reason).toBe('The service restarted while answering. Ask again.');
  });

  it("shows an AgentError's reason and logs its code and hint; any other error only by its name", () => {
    const told = agentFailure(new AgentError('The model is busy.', 'model_busy', 'raise the limit'));
    expect(chunk(told.end.record).content.reason).toBe('The model is busy.');
    // The log line's code is the one stored (decision 513): a plain word, as here, is kept.
    expect(told.end.failure?.code).toBe('model_busy');
    expect(told.log).toEqual({ error: 'AgentError', hint: 'raise the limit' });
    const thrown = agentFailure(new TypeError('secret text the visitor wrote'));
    expect(chunk(thrown.end.record).content.reason).toBe('The agent could not finish this answer.');
    expect(thrown.log).toEqual({ error: 'TypeError' });
    expect(JSON.stringify(thrown)).not.toContain('secret');
  });
});
