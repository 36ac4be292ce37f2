import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_CHARS } from '../../../../contract/limits.js';
import { retryAfterMs } from '../../../../service/kernel/retry-after.js';
import type { Stores } from '../../../../service/index.js';
import { OpenAiAgent, loadDocsFolder } from '../../../../service/node.js';
import { AGENT, allRecords, makeService } from '../../../fixtures/service.js';
import {
  DONE,
  SSE,
  type Script,
  answers,
  delta,
  finish,
  setup,
  status,
  upstream,
  usage,
} from '../../../fixtures/model-upstream.js';
import { engines } from '../../../fixtures/storages.js';

const TOOLS = [{ name: 'open_page', description: 'Opens a page', parameters: { type: 'object' } }];
const toolCall =
  (part: Record<string, unknown>): Script =>
  (res) => {
    res.writeHead(200, SSE);
    res.write(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [part] }, finish_reason: null }] })}\n\n`,
    );
    res.end(finish('tool_calls') + DONE);
  };

describe('model agent: a broken or hostile model server is bounded', () => {
  it('reads at most about 1 MiB of an event whose data lines never end', async () => {
    let written = 0;
    const endless: Script = (res) =>
      new Promise<void>((resolve) => {
        res.writeHead(200, SSE);
        const line = `data: ${'x'.repeat(1018)}\n`;
        res.on('close', () => resolve());
        const pump = () => {
          while (written < 32 * 2 ** 20) {
            if (res.destroyed) return resolve();
            written += line.length;
            if (!res.write(line)) return void res.once('drain', pump);
          }
          res.end();
          resolve();
        };
        pump();
      });
    const model = await upstream(endless);
    const { ask, logs } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end.type).toBe('error');
    expect(stored.status).toBe('error');
    expect(logs.find((l) => l.msg === 'agent_failed')).toMatchObject({ code: 'model_malformed_stream' });
    // The service stopped reading: what the server got to write is 1 MiB and the sockets' buffers.
    expect(written).toBeLessThan(8 * 2 ** 20);
  });

  it('refuses a tool-call index that is not a whole number below 32, at once and without touching a prototype', async () => {
    const model = await upstream(
      toolCall({ index: 200_000_000, id: 'call_far', function: { name: 'open_page', arguments: '{}' } }),
      toolCall({ index: '__proto__', id: 'call_proto', function: { name: 'open_page', arguments: '{}' } }),
      toolCall({ index: -1, id: 'call_neg', function: { name: 'open_page', arguments: '{}' } }),
    );
    const { ask, logs } = await setup(model.baseUrl, { maxTries: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const { end, stored } = await ask('Open the pricing page', { tools: TOOLS });
        expect(end.type).toBe('error');
        expect(stored.status).toBe('error');
        expect(Date.now() - started).toBeLessThan(2_000);
      }
      expect(logs.filter((l) => l.msg === 'agent_failed').map((l) => l.code)).toEqual(
        Array(3).fill('model_malformed_stream'),
      );
      expect(Object.hasOwn(Array.prototype, 'id')).toBe(false);
    } finally {
      // Before the fix the second stream wrote these onto every array of the process.
      for (const key of ['id', 'name', 'args'])
        delete (Array.prototype as unknown as Record<string, unknown>)[key];
    }
  });

  it('sends max_tokens (8,192 unless told otherwise; none with 0)', async () => {
    const model = await upstream(answers(['Hi.']));
    await (await setup(model.baseUrl)).ask();
    expect(model.requests[0].max_tokens).toBe(8_192);
    await (await setup(model.baseUrl, { maxTokens: 1_000 })).ask();
    expect(model.requests[1].max_tokens).toBe(1_000);
    await (await setup(model.baseUrl, { maxTokens: 0 })).ask();
    expect(model.requests[2]).not.toHaveProperty('max_tokens');
  });

  it('never waits a negative or unreadable Retry-After: it backs off instead of retrying at once', async () => {
    expect(retryAfterMs(new Headers({ 'Retry-After': '-5' }))).toBeNull();
    expect(retryAfterMs(new Headers({ 'Retry-After': '5 GMT' }))).toBeNull();
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '-5' }))).toBeNull();
    expect(retryAfterMs(new Headers({ 'Retry-After': '2' }))).toBe(2_000);
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMs(new Headers({ 'Retry-After': 'Wed, 21 Oct 2015 07:28:03 GMT' }), now)).toBe(3_000);

    const model = await upstream(status(503, { 'Retry-After': '-5' }), answers(['ok']));
    const { ask } = await setup(model.baseUrl, { retryBaseMs: 400 });
    expect((await ask()).stored.status).toBe('complete');
    // The backoff's first step is 400 ms with up to half taken off at random.
    expect(model.times[1] - model.times[0]).toBeGreaterThanOrEqual(190);
  });
});

describe.each(engines())('model agent: hostile answers on $name', { timeout: 60_000 }, (engine) => {
  let storage: Stores | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
  });

  async function service(baseUrl: string) {
    const docs = await loadDocsFolder(
      join(import.meta.dirname, '../../../fixtures/docs'),
      'https://example.test/docs',
    );
    storage = await engine.open();
    const agent = new OpenAiAgent({ baseUrl, model: 'test-model', docs, maxTries: 1 });
    const ctx = makeService({ agent, storage, maxConcurrentAnswers: 3 });
    const token = await ctx.session('alice');
    const ask = async (extra: Record<string, unknown> = {}) => {
      const records = await allRecords(
        await ctx.call('POST', `${AGENT}/chat/`, {
          token,
          body: { integration_id: 'int_demo', message: 'Theme colors?', ...extra },
        }),
      );
      const threadId = records[0]?.content.thread_id as string | undefined;
      const stored = threadId && (await storage!.conversations.getThread(threadId))!.messages.at(-1)!;
      return { records, end: records.at(-1), stored };
    };
    return { ask };
  }

  it('keeps an answer whose model wrote a NUL character, without it, as streamed', async () => {
    // PostgreSQL's text holds none: the answer was streamed whole and then not saved (decision 759).
    const { ask } = await service((await upstream(answers(['Hello', '\u0000', ' wor\u0000ld.']))).baseUrl);
    const { records, end, stored } = await ask();
    expect(end?.type).toBe('identifiers');
    const sent = records
      .filter((r) => r.type === 'partial_answer')
      .map((r) => r.content.text)
      .join('');
    expect(sent).toBe('Hello world.');
    expect(stored).toMatchObject({ status: 'complete', content: 'Hello world.' });
  });

  it("keeps an answer whose model's tool call holds a NUL character, without it, as sent to the page", async () => {
    const { ask } = await service(
      (
        await upstream(
          toolCall({
            index: 0,
            id: 'call_\u00001',
            function: { name: 'open_page', arguments: '{"path":"/pri\\u0000cing"}' },
          }),
        )
      ).baseUrl,
    );
    const { records, stored } = await ask({ tools: TOOLS });
    const calls = records.find((r) => r.type === 'tool_calls')?.content.tool_calls;
    expect(JSON.stringify(calls)).not.toContain('\\u0000');
    const call = { id: 'call_1', name: 'open_page', arguments: { path: '/pricing' } };
    expect(calls).toEqual([call]);
    // Stored, so the page's results find their call (on PGlite and PostgreSQL it was not).
    expect(stored).toMatchObject({ status: 'streaming', toolCalls: [expect.objectContaining(call)] });
  });

  it('clamps usage past 2⁶³: every answer is stored complete and frees its slot', async () => {
    const huge: Script = (res) => {
      res.writeHead(200, SSE);
      res.end(delta('Hi.') + finish() + usage(1e20, 2 ** 70) + DONE);
    };
    const { ask } = await service((await upstream(huge)).baseUrl);
    for (let i = 0; i < 4; i++) {
      const { end, stored } = await ask();
      expect(end?.type).toBe('identifiers');
      expect(stored).toMatchObject({
        status: 'complete',
        usage: { promptTokens: 2 ** 31 - 1, completionTokens: 2 ** 31 - 1 },
      });
    }
  });

  it(`ends an answer past ${MAX_ANSWER_CHARS.toLocaleString('en')} characters as an error, keeping what fits`, async () => {
    const long: Script = (res) => {
      res.writeHead(200, SSE);
      for (let i = 0; i < 260; i++) res.write(delta(`${'é'.repeat(999)}\n`));
      res.end(finish() + DONE);
    };
    const { ask } = await service((await upstream(long)).baseUrl);
    const { records, end, stored } = await ask();
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The answer was too long and was ended.' },
    });
    const sent = records
      .filter((r) => r.type === 'partial_answer')
      .map((r) => r.content.text)
      .join('');
    expect(sent).toHaveLength(MAX_ANSWER_CHARS);
    expect(stored).toMatchObject({ status: 'error' });
    expect((stored as { content: string }).content).toBe(sent);
  });
});
