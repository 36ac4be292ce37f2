import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../../../service/agents/history-budget.js';
import { loadDocsFolder, OpenAiAgent, type OpenAiAgentOptions } from '../../../../service/node.js';
import { AGENT, allRecords, makeService } from '../../../fixtures/service.js';
import { completion, type MockLlm, startMockLlm } from '../../../fixtures/mock-llm.js';

/**
 * The model agent against an independent OpenAI-compatible server: `@dwmkerr/mock-llm` from
 * npm, run as its own program. What it cannot produce (HTTP errors with Retry-After, cuts,
 * malformed events, slow first tokens, tool-call deltas, usage) is in model-failures.test.ts.
 */
let mock: MockLlm;
beforeAll(async () => {
  mock = await startMockLlm();
}, 30_000);
afterAll(async () => mock?.close());

const QUESTION = 'How do I change the accent color of the theme?';
const rateLimited = JSON.stringify({
  error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
});
const serverError = JSON.stringify({
  error: {
    message: 'The server had an error while processing your request.',
    type: 'server_error',
    code: null,
  },
});
const badKey = JSON.stringify({
  error: {
    message: 'Incorrect API key provided.',
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
});

async function setup(options: Partial<OpenAiAgentOptions> = {}) {
  const docs = await loadDocsFolder(
    join(import.meta.dirname, '../../../fixtures/docs'),
    'https://example.test/docs',
  );
  const agent = new OpenAiAgent({
    baseUrl: mock.baseUrl,
    model: 'test-model',
    apiKey: 'sk-mock',
    docs,
    retryBaseMs: 20,
    ...options,
  });
  const ctx = makeService({ agent });
  const token = await ctx.session('alice');
  async function ask(message = QUESTION, extra: Record<string, unknown> = {}) {
    const records = await allRecords(
      await ctx.call('POST', `${AGENT}/chat/`, {
        token,
        body: { integration_id: 'int_demo', message, ...extra },
      }),
    );
    const threadId = records[0].content.thread_id as string;
    const stored = (await ctx.service.storage.conversations.getThread(threadId))!.messages.at(-1)!;
    const deltas = records.filter((r) => r.type === 'partial_answer').map((r) => r.content.text as string);
    return { records, deltas, text: deltas.join(''), end: records.at(-1)!, stored, threadId };
  }
  return { ctx, ask, agent };
}

describe(`model agent against @dwmkerr/mock-llm`, { timeout: 20_000 }, () => {
  it('streams its answer in pieces and stores it complete; the request asked for a stream with usage', async () => {
    await mock.rules([
      {
        response: {
          status: 200,
          content: completion(
            'stream={{jmes request body.stream}} usage={{jmes request body.stream_options.include_usage}} messages={{jmes request length(body.messages)}} model={{jmes request body.model}} auth={{jmes request headers.authorization}}',
          ),
        },
      },
    ]);
    const { ask, agent } = await setup();
    const { text, end, stored } = await ask();
    expect(text).toBe('stream=true usage=true messages=2 model=test-model auth=Bearer sk-mock');
    // In pieces from the model; the service then sends what came within one tick as one record
    // (decision 161), so the pieces are counted at the agent.
    let pieces = 0;
    for await (const out of agent.answer({
      message: QUESTION,
      history: [],
      tools: [],
      rounds: [],
      partial: '',
      signal: new AbortController().signal,
    }))
      if (out.type === 'text') pieces += 1;
    expect(pieces).toBeGreaterThan(3);
    expect(end.type).toBe('identifiers');
    expect(stored).toMatchObject({ status: 'complete', content: text });
    expect(mock.version).toBe('0.1.29');
  });

  it('an error inside its 200 stream (a 401 rule) ends the answer as an error, stored as error, not retried', async () => {
    await mock.rules([
      { sequence: 0, response: { status: 401, content: badKey } },
      { sequence: 1, response: { status: 200, content: completion('a retry happened') } },
    ]);
    const { ask } = await setup();
    const { end, text, stored } = await ask();
    expect(text).toBe('');
    expect(end).toMatchObject({ type: 'error', stream_end: true });
    expect(stored.status).toBe('error');
  });

  it('a rate-limit error event before the first token is retried, and the second try answers', async () => {
    await mock.rules([
      { sequence: 0, response: { status: 429, content: rateLimited } },
      { sequence: 1, response: { status: 200, content: completion('Second try answers.') } },
    ]);
    const { ask } = await setup();
    const { text, stored } = await ask();
    expect(text).toBe('Second try answers.');
    expect(stored.status).toBe('complete');
  });

  it('a server error on every try: at most 3 tries, then an error', async () => {
    await mock.rules(
      [0, 1, 2]
        .map((sequence) => ({ sequence, response: { status: 500, content: serverError } }))
        .concat([{ sequence: 3, response: { status: 200, content: completion('a fourth try happened') } }]),
    );
    const { ask } = await setup();
    const { end, stored } = await ask();
    expect(end).toMatchObject({
      type: 'error',
      content: { reason: 'The assistant is not available right now. Please try again in a moment.' },
    });
    expect(stored).toMatchObject({ status: 'error', content: '' });
  });

  it("asks in the visitor's language: the model is told, the steps are written in it", async () => {
    await mock.rules([
      { response: { status: 200, content: completion('English') } },
      {
        match: "contains(body.messages[0].content, 'The visitor reads German (de)')",
        response: { status: 200, content: completion('Deutsch') },
      },
    ]);
    const { ask } = await setup();
    const german = await ask(QUESTION, { locale: 'de' });
    expect(german.text).toBe('Deutsch');
    const steps = german.records
      .filter((r) => r.type === 'agent_activity_update')
      .map((r) => r.content.summary);
    expect(steps).toEqual([`Durchsuche die Dokumentation nach „${QUESTION}“`, '1 Artikel gefunden']);
    expect((await ask(QUESTION)).text).toBe('English');
  });

  it('keeps the history it sends within the token budget, oldest turns first, the system prompt always', async () => {
    await mock.rules([
      {
        response: {
          status: 200,
          content: completion(
            '{{jmes request length(body.messages)}} {{jmes request body.messages[0].role}} {{jmes request body.messages[-1].role}}',
          ),
        },
      },
    ]);
    // Each question costs about 104 tokens, each answer 6: two turns fit in 250, three do not.
    const question = (n: number) => `Question ${n}: ${'about theming the widget '.repeat(16)}`.slice(0, 400);
    expect(estimateTokens(question(1))).toBe(104);
    const { ask } = await setup({ historyTokens: 250 });
    let threadId: string | null = null;
    const counts: string[] = [];
    for (let n = 1; n <= 5; n++) {
      const answer = await ask(question(n), { thread_id: threadId });
      threadId = answer.threadId;
      counts.push(answer.text);
    }
    // system + the kept turns (a question and its answer each) + this question.
    expect(counts).toEqual([
      '2 system user',
      '4 system user',
      '6 system user',
      '6 system user',
      '6 system user',
    ]);
  });
});
