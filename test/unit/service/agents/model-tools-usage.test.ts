import { describe, expect, it } from 'vitest';
import { AGENT, PROJECT, QUERY, allRecords } from '../../../fixtures/service.js';
import {
  DONE,
  SSE,
  type Script,
  answers,
  delta,
  finish,
  setup,
  upstream,
  usage,
} from '../../../fixtures/model-upstream.js';

describe('model agent: tool calls and usage', () => {
  it('assembles tool-call deltas of two calls, sums usage over the tool round, and reports it per day', async () => {
    const toolStream: Script = (res) => {
      res.writeHead(200, SSE);
      const part = (tool_calls: unknown[]) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls }, finish_reason: null }] })}\n\n`;
      res.write(
        part([{ index: 0, id: 'call_a', type: 'function', function: { name: 'open_page', arguments: '' } }]),
      );
      res.write(
        part([{ index: 1, id: 'call_b', type: 'function', function: { name: 'open_', arguments: '{"pa' } }]),
      );
      res.write(
        part([
          { index: 0, function: { arguments: '{"page":"pri' } },
          { index: 1, function: { name: 'page', arguments: 'ge":"team"}' } },
        ]),
      );
      res.write(part([{ index: 0, function: { arguments: 'cing"}' } }]));
      // A call of a tool the page never offered is dropped.
      res.write(
        part([
          { index: 2, id: 'call_x', type: 'function', function: { name: 'delete_account', arguments: '{}' } },
        ]),
      );
      res.end(finish('tool_calls') + usage(900, 40) + DONE);
    };
    const model = await upstream(toolStream, answers(['I opened both pages.'], [1000, 12]));
    const { ctx, token, ask } = await setup(model.baseUrl);
    const tools = [
      {
        name: 'open_page',
        description: 'Opens a page',
        parameters: { type: 'object', properties: { page: { type: 'string' } } },
      },
    ];
    const first = await ask('Open the pricing and team pages', { tools });
    expect(first.end).toEqual({
      type: 'tool_calls',
      stream_end: true,
      content: {
        tool_calls: [
          { id: 'call_a', name: 'open_page', arguments: { page: 'pricing' } },
          { id: 'call_b', name: 'open_page', arguments: { page: 'team' } },
        ],
      },
    });
    expect((model.requests[0].stream_options as { include_usage: boolean }).include_usage).toBe(true);
    expect(first.stored.usage).toEqual({ promptTokens: 900, completionTokens: 40 });

    const next = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: {
          integration_id: 'int_demo',
          thread_id: first.threadId,
          tools,
          tool_results: [
            { tool_call_id: 'call_a', output: { ok: true } },
            { tool_call_id: 'call_b', output: { ok: true } },
          ],
        },
      }),
    );
    expect(next.at(-1)?.type).toBe('identifiers');
    const stored = (await ctx.service.storage.conversations.getThread(first.threadId))!.messages.at(-1)!;
    expect(stored).toMatchObject({ status: 'complete', usage: { promptTokens: 1900, completionTokens: 52 } });

    ctx.clock.advance(86_400_000);
    await ask('And the theme?', {}, await ctx.session('alice'));
    await ctx.service.refreshActivity();
    const report = await (
      await ctx.call('GET', `${QUERY}/activity/?start=2026-11-21&end=2026-11-22`, { apiKey: PROJECT.apiKey })
    ).json();
    expect(report.totals).toMatchObject({ prompt_tokens: 2900, completion_tokens: 64 });
    expect(
      report.by_day.map((d: { prompt_tokens: number; completion_tokens: number }) => [
        d.prompt_tokens,
        d.completion_tokens,
      ]),
    ).toEqual([
      [1900, 52],
      [1000, 12],
    ]);
  });

  it('does not ask for usage when told not to, and an answer without usage counts 0', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.end(delta('No usage here.') + finish() + DONE);
    });
    const { ctx, ask } = await setup(model.baseUrl, { usage: false });
    const { stored } = await ask();
    expect(model.requests[0].stream_options).toBeUndefined();
    expect(stored.status).toBe('complete');
    expect(stored.usage).toBeUndefined();
    await ctx.service.refreshActivity();
    const report = await (
      await ctx.call('GET', `${QUERY}/activity/?start=2026-11-21&end=2026-11-21`, { apiKey: PROJECT.apiKey })
    ).json();
    expect(report.totals).toMatchObject({ prompt_tokens: 0, completion_tokens: 0 });
  });
});
