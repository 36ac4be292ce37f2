import { describe, expect, it } from 'vitest';
import { AGENT, allRecords, errorBody, makeService, scriptedAgent } from '../../../fixtures/service.js';

describe('chat body: locale (§4, version 3)', () => {
  it('reaches the agent as a canonical BCP 47 tag, on questions and on tool results', async () => {
    const script = scriptedAgent();
    const ctx = makeService({ agent: script.agent });
    const token = await ctx.session('alice');
    const response = ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi', locale: 'PT-br' },
    });
    script.say('olá');
    script.end();
    await allRecords(await response);
    expect(script.inputs()[0].locale).toBe('pt-BR');
    const none = ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'hi', locale: null },
    });
    script.say('hi');
    script.end();
    await allRecords(await none);
    expect(script.inputs()[1].locale).toBeUndefined();
  });

  it.each([
    ['an empty string', ''],
    ['36 characters', `en-${'a'.repeat(8)}-${'b'.repeat(8)}-${'c'.repeat(8)}-${'d'.repeat(6)}`],
    ['not a tag', 'english please'],
    ['a number', 42],
    ['an underscore form', 'de_DE'],
  ])('answers 400 for %s', async (_name, locale) => {
    const ctx = makeService();
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token: await ctx.session('alice'),
      body: { integration_id: 'int_demo', message: 'hi', locale },
    });
    expect(response.status).toBe(400);
    expect(await errorBody(response)).toEqual({
      code: 'invalid_request',
      detail: expect.stringContaining('BCP 47'),
    });
  });

  it('takes a 35-character tag', async () => {
    const ctx = makeService();
    const tag = `en-${'a'.repeat(8)}-${'b'.repeat(8)}-${'c'.repeat(8)}-${'d'.repeat(5)}`;
    expect(tag).toHaveLength(35);
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token: await ctx.session('alice'),
      body: { integration_id: 'int_demo', message: 'hi', locale: tag },
    });
    expect(response.status).toBe(200);
    await response.text();
  });
});
