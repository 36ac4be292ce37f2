import { describe, expect, it } from 'vitest';
import { SSE, answers, delta, setup, status, upstream } from '../../../fixtures/model-upstream.js';

describe('model agent: retries before the first token', () => {
  it('429 with Retry-After: waits the seconds it says, then answers', async () => {
    const model = await upstream(
      status(
        429,
        { 'Retry-After': '1' },
        '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
      ),
      answers(['Set ', 'the accent.']),
    );
    const { ask, logs } = await setup(model.baseUrl);
    const { end, text, stored, steps } = await ask();
    expect(text).toBe('Set the accent.');
    expect(end.type).toBe('identifiers');
    expect(stored.status).toBe('complete');
    expect(model.requests).toHaveLength(2);
    expect(model.times[1] - model.times[0]).toBeGreaterThanOrEqual(950);
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'model_retry', status: 429, attempt: 1, delay_ms: 1000 }),
    );
    // The visitor was told, in plain words, and the step ends when the answer starts.
    expect(steps.filter((s) => s.id === 'model-1').map((s) => [s.status, s.summary])).toEqual([
      ['started', 'The assistant is busy; trying again…'],
      ['completed', 'Started answering after 1 s'],
    ]);
  });

  it('honours retry-after-ms and HTTP-date forms too', async () => {
    const model = await upstream(
      status(503, { 'retry-after-ms': '150' }),
      status(502, { 'Retry-After': new Date(Date.now() + 1000).toUTCString() }),
      answers(['ok']),
    );
    const { ask } = await setup(model.baseUrl);
    expect((await ask()).stored.status).toBe('complete');
    expect(model.times[1] - model.times[0]).toBeGreaterThanOrEqual(140);
    // An HTTP date has whole seconds: somewhere up to a second, never at once.
    expect(model.times[2] - model.times[1]).toBeGreaterThan(0);
  });

  it('an HTML 502 from a load balancer, then an answer: retried', async () => {
    const model = await upstream(
      (res) =>
        res.writeHead(502, { 'Content-Type': 'text/html' }).end('<html><h1>502 Bad Gateway</h1></html>'),
      answers(['Fine now.']),
    );
    const { ask } = await setup(model.baseUrl);
    const { text, stored } = await ask();
    expect(text).toBe('Fine now.');
    expect(stored.status).toBe('complete');
    expect(model.requests).toHaveLength(2);
  });

  it('an error event before the first token that says busy is retried like a 429', async () => {
    const model = await upstream(
      (res) => {
        res.writeHead(200, SSE);
        res.end(
          `data: ${JSON.stringify({ error: { message: 'Rate limit', type: 'rate_limit_error', code: 'rate_limit_exceeded' } })}\n\n`,
        );
      },
      answers(['Second try.']),
    );
    const { ask } = await setup(model.baseUrl);
    expect((await ask()).text).toBe('Second try.');
    expect(model.requests).toHaveLength(2);
  });

  it('gives up after 3 tries: error, stored as error, no text', async () => {
    const model = await upstream(status(500));
    const { ask, logs } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(model.requests).toHaveLength(3);
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The assistant is not available right now. Please try again in a moment.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: '' });
    expect(logs.filter((e) => e.msg === 'model_retry').map((e) => e.attempt)).toEqual([1, 2]);
  });

  it('retries a refused connection, then ends as an error naming the setting to check', async () => {
    const gone = await upstream(answers(['never']));
    await gone.close();
    const { ask, logs } = await setup(gone.baseUrl);
    const { end, stored, steps } = await ask();
    expect(end.type).toBe('error');
    expect(stored.status).toBe('error');
    expect(logs.filter((e) => e.msg === 'model_retry')).toHaveLength(2);
    // The wait ended in about a second, not at the first-token timeout: the step says so.
    expect(steps.filter((s) => s.id === 'model-1').map((s) => [s.status, s.summary])).toEqual([
      ['started', 'The assistant is busy; trying again…'],
      ['started', 'The assistant is busy; trying again…'],
      ['error', "The assistant couldn't answer"],
    ]);
    expect(logs).toContainEqual(
      expect.objectContaining({
        msg: 'agent_failed',
        code: 'model_unreachable',
        hint: expect.stringContaining('OPENAI_BASE_URL'),
      }),
    );
  });

  it("a refused connection fails within the bounded retry at the service's own backoff, the docs search done first", async () => {
    const gone = await upstream(answers(['never']));
    await gone.close();
    // The service's defaults: 3 tries, waits from 0.5 s then 1 s, each with up to half off (decision 172).
    const { ask, logs } = await setup(gone.baseUrl, { retryBaseMs: undefined });
    const started = performance.now();
    const { end, records } = await ask();
    const elapsed = performance.now() - started;
    expect(end.type).toBe('error');
    const waits = logs.filter((e) => e.msg === 'model_retry').map((e) => e.delay_ms as number);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(250);
    expect(waits[0]).toBeLessThanOrEqual(500);
    expect(waits[1]).toBeGreaterThanOrEqual(500);
    expect(waits[1]).toBeLessThanOrEqual(1_000);
    // At most 1.5 s of waits and three refused connects: never the 5 s a field test saw.
    expect(elapsed).toBeLessThan(2_500);
    // "Searching the docs…" ends before the model is tried: the wait that follows is the model's.
    const steps = records
      .filter((r) => r.type === 'agent_activity_update')
      .map((r) => [r.content.id, r.content.status]);
    expect(steps.slice(0, 3)).toEqual([
      ['search-1', 'started'],
      ['search-1', 'completed'],
      ['model-1', 'started'],
    ]);
  });

  it('does not wait out a Retry-After longer than the limit: fails at once', async () => {
    const model = await upstream(status(429, { 'Retry-After': '120' }));
    const { ask } = await setup(model.baseUrl);
    const started = Date.now();
    const { end } = await ask();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The assistant is busy right now. Please try again in a minute.' },
    });
    expect(model.requests).toHaveLength(1);
  });

  it.each([
    [401, 'model_unauthorized', 'OPENAI_API_KEY'],
    [400, 'model_rejected', 'AGENT_CHAT_MODEL_USAGE'],
  ])('does not retry %i, and tells the operator what to fix', async (code, logCode, setting) => {
    const model = await upstream(
      status(
        code,
        {},
        '{"error":{"message":"Incorrect API key provided: sk-…","type":"invalid_request_error","code":"invalid_api_key"}}',
      ),
    );
    const { ask, logs } = await setup(model.baseUrl);
    const { end } = await ask();
    expect(end.type).toBe('error');
    expect(model.requests).toHaveLength(1);
    const failed = logs.find((e) => e.msg === 'agent_failed')!;
    expect(failed).toMatchObject({ code: logCode, hint: expect.stringContaining(setting) });
    expect(failed.hint).toContain('invalid_api_key');
    expect(JSON.stringify(logs)).not.toContain('Incorrect API key');
  });

  it('never retries once text has streamed', async () => {
    const model = await upstream(
      (res, { socket }) => {
        res.writeHead(200, SSE);
        res.write(delta('Partial'));
        setTimeout(() => socket.destroy(), 20);
      },
      answers(['should not be asked']),
    );
    const { ask } = await setup(model.baseUrl);
    const { stored } = await ask();
    expect(model.requests).toHaveLength(1);
    expect(stored).toMatchObject({ status: 'error', content: 'Partial' });
  });
});
