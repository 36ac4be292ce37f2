import { describe, expect, it } from 'vitest';
import { DONE, SSE, delta, finish, setup, upstream } from '../../../fixtures/model-upstream.js';

describe('model agent: failures end as errors and keep the text', () => {
  it('an error event inside a 200 stream, after text: error record, text kept, stored as error', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.write(delta('Set the accent '));
      res.end(
        `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } })}\n\n`,
      );
    });
    const { ask, logs } = await setup(model.baseUrl);
    const { end, text, stored } = await ask();
    expect(text).toBe('Set the accent ');
    expect(end).toEqual({
      type: 'error',
      content: { reason: 'The assistant is not available right now. Please try again in a moment.' },
      stream_end: true,
    });
    expect(stored).toMatchObject({ status: 'error', content: 'Set the accent ' });
    // Text had streamed: retrying would say it twice.
    expect(model.requests).toHaveLength(1);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'agent_failed', code: 'model_stream_error' }));
    // The model's own message (which may quote the conversation) is never logged.
    expect(JSON.stringify(logs)).not.toContain('processing your request');
  });

  it('a stream cut mid-answer (the socket dies): error, text kept', async () => {
    const model = await upstream((res, { socket }) => {
      res.writeHead(200, SSE);
      res.write(delta('Half an '));
      res.write(delta('answer'));
      setTimeout(() => socket.destroy(), 30);
    });
    const { ask } = await setup(model.baseUrl);
    const { end, text, stored } = await ask();
    expect(text).toBe('Half an answer');
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The answer was cut off because the connection to the model broke.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: 'Half an answer' });
  });

  it('a stream that closes cleanly without [DONE] or a finish reason is cut, not complete', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.end(delta('Set the accent'));
    });
    const { ask } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end.type).toBe('error');
    expect(stored).toMatchObject({ status: 'error', content: 'Set the accent' });
  });

  it.each([
    ['an event that is not JSON', 'data: {"choices": [{"delta": {"content": "x"\n\n'],
    ['an event that is not an object', 'data: 42\n\n'],
    ['a line over 1 MiB', `data: ${'x'.repeat(1.1 * 1024 * 1024)}`],
  ])('malformed SSE (%s) after text: error, text kept', async (_name, bad) => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.write(delta('Before the break. '));
      res.end(bad);
    });
    const { ask } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end).toMatchObject({ type: 'error', stream_end: true });
    expect(stored).toMatchObject({ status: 'error', content: 'Before the break. ' });
  });

  it('finish_reason "length": the cut answer is an error, not a whole one', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.end(delta('A long answer that') + finish('length') + DONE);
    });
    const { ask } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: "The answer was cut off: it reached the model's length limit." },
    });
    expect(stored).toMatchObject({ status: 'error', content: 'A long answer that' });
  });

  it('an empty answer ([DONE] and nothing said) is an error', async () => {
    const model = await upstream((res) => {
      res.writeHead(200, SSE);
      res.end(finish() + DONE);
    });
    const { ask } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end).toMatchObject({ type: 'error', content: { reason: 'The model sent an empty answer.' } });
    expect(stored.status).toBe('error');
  });

  it('a 200 that is an HTML page, not an event stream: error, with a hint for the operator', async () => {
    const model = await upstream((res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>Captive portal</html>'),
    );
    const { ask, logs } = await setup(model.baseUrl);
    const { end, stored } = await ask();
    expect(end.type).toBe('error');
    expect(stored.status).toBe('error');
    expect(logs).toContainEqual(
      expect.objectContaining({
        code: 'model_not_streaming',
        hint: expect.stringContaining('OPENAI_BASE_URL'),
      }),
    );
  });

  it('a server that ignores stream:true and sends one JSON completion still answers', async () => {
    const model = await upstream((res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          choices: [
            { index: 0, message: { role: 'assistant', content: 'Whole answer.' }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 50, completion_tokens: 3 },
        }),
      ),
    );
    const { ask } = await setup(model.baseUrl);
    const { end, text, stored } = await ask();
    expect(text).toBe('Whole answer.');
    expect(end.type).toBe('identifiers');
    expect(stored.usage).toEqual({ promptTokens: 50, completionTokens: 3 });
  });
});
