/**
 * Failed answers in the console (decisions 496, 497), through the routes on every engine: why
 * an answer failed in the conversation, from what is stored; the failures counted on Activity
 * and found by the conversations' filter; the `agent_failed` log line naming the answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry, Stores } from '../../../../service/index.js';
import { OpenAiAgent } from '../../../../service/node.js';
import { withConsole } from '../../../fixtures/console.js';
import { answers, status, upstream } from '../../../fixtures/model-upstream.js';
import { AGENT, PROJECT, scriptedAgent } from '../../../fixtures/service.js';
import { engines } from '../../../fixtures/storages.js';
import { answerWith, threadWith } from '../../../fixtures/records.js';

const API_KEY = 'sk-live-Qx7pL2mN9rT4vW8yZ1aB3cD5eF6gH0jK';
/** A model server's 401 body: its message quotes the key, as OpenAI's does. */
const refused = (code: string) =>
  JSON.stringify({
    error: { message: `Incorrect API key provided: ${API_KEY}`, type: 'invalid_request_error', code },
  });

describe.each(engines())('failed answers in the console on $name', { timeout: 30_000 }, (engine) => {
  let storage: Stores | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
  });

  /** The console over a model server that answers `scripts` in turn, with the log kept. */
  const consoleOver = async (...scripts: Parameters<typeof upstream>) => {
    const model = await upstream(...scripts);
    const logs: LogEntry[] = [];
    const agent = new OpenAiAgent({
      baseUrl: model.baseUrl,
      apiKey: API_KEY,
      model: 'test-model',
      retryBaseMs: 20,
    });
    const made = await withConsole({
      agent,
      storage: (storage = await engine.open()),
      log: (e) => logs.push(e),
    });
    return { ...made, logs };
  };

  it('a model that refuses the key: the conversation says why, the Activity counts it, the filter finds it', async () => {
    const { admin, session, chat, call, service, clock, logs } = await consoleOver(
      answers(['Fine.']),
      status(401, {}, refused('invalid_api_key')),
    );
    const good = await chat(await session('bob'), 'Does it work?');
    clock.advance(1_000);
    const alice = await session('alice');
    const bad = await chat(alice, 'And now?');
    expect(bad.events.at(-1)).toMatchObject({ type: 'error' });

    // The conversation: the failed answer says what went wrong and what to check.
    const thread = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${bad.threadId}`)).body;
    const [question, answer] = thread.messages;
    expect(question.failure).toBeNull();
    expect(answer).toMatchObject({
      status: 'error',
      failure: {
        code: 'model_unauthorized',
        message: 'The model server refused the key: it answered 401 (invalid_api_key); check OPENAI_API_KEY.',
      },
    });
    // Never the key, nor the model server's own words.
    expect(JSON.stringify(thread)).not.toContain(API_KEY);
    expect(JSON.stringify(thread)).not.toContain('Incorrect API key');
    const fine = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${good.threadId}`)).body;
    expect(fine.messages[1]).toMatchObject({ status: 'complete', failure: null });

    // The visitor's own history has the failure, not the operator's words for it.
    const own = await (await call('GET', `${AGENT}/threads/${bad.threadId}/`, { token: alice })).json();
    expect(own.messages[1].status).toBe('error');
    expect(JSON.stringify(own)).not.toMatch(/failure|OPENAI_API_KEY|model_unauthorized/);

    // The filter finds the thread with the failed answer, and only it.
    const ids = async (query: string) =>
      (await admin.call('GET', `projects/${PROJECT.id}/conversations?${query}`)).body.threads.map(
        (t: { id: string }) => t.id,
      );
    expect(await ids('error=1')).toEqual([bad.threadId]);
    expect(await ids('')).toEqual([bad.threadId, good.threadId]);

    // Activity: one failed answer of two, in the period's figure, its day and its integration.
    await service.refreshActivity();
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const report = (await admin.call('GET', `projects/${PROJECT.id}/activity?start=${today}&end=${today}`))
      .body;
    expect(report.totals).toMatchObject({ messages: 4, failed_answers: 1 });
    expect(report.by_day).toEqual([expect.objectContaining({ date: today, failed_answers: 1 })]);
    expect(report.by_integration).toEqual([
      expect.objectContaining({ integration_id: 'int_demo', failed_answers: 1 }),
    ]);
    const csv = await admin.call(
      'GET',
      `projects/${PROJECT.id}/activity?start=${today}&end=${today}&format=csv`,
    );
    expect(csv.body.split('\r\n')[0].split(',').at(-1)).toBe('failed_answers');
    expect(csv.body.split('\r\n')[1].split(',').at(-1)).toBe('1');

    // The log line names the answer (project, thread, answer), and no one, nothing asked, no key.
    const failed = logs.filter((l) => l.msg === 'agent_failed');
    expect(failed).toEqual([
      expect.objectContaining({
        project: PROJECT.id,
        thread: bad.threadId,
        answer: answer.id,
        code: 'model_unauthorized',
      }),
    ]);
    expect(JSON.stringify(failed)).not.toMatch(/alice|And now|sk-live/);
  });

  it('a model server that puts the key in its error code: the code is left out, of the console and of the log', async () => {
    const { admin, session, chat, logs } = await consoleOver(status(401, {}, refused(API_KEY)));
    const { threadId } = await chat(await session('alice'), 'Hello?');
    const thread = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${threadId}`)).body;
    // Its type is a plain word and is named instead.
    expect(thread.messages[1].failure).toEqual({
      code: 'model_unauthorized',
      message:
        'The model server refused the key: it answered 401 (invalid_request_error); check OPENAI_API_KEY.',
    });
    expect(JSON.stringify(thread)).not.toContain(API_KEY);
    expect(JSON.stringify(logs)).not.toContain(API_KEY);
  });

  it("the service's own failures say why too; one stored before reasons were kept says it has none", async () => {
    const slow = scriptedAgent();
    const { admin, session, chat, service } = await withConsole({
      agent: slow.agent,
      maxAnswerMs: 50,
      storage: (storage = await engine.open()),
    });
    slow.say('Thinking');
    const { threadId } = await chat(await session('alice'), 'A hard one?');
    const thread = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${threadId}`)).body;
    expect(thread.messages[1]).toMatchObject({
      status: 'error',
      content: 'Thinking',
      failure: { code: 'answer_time_limit', message: expect.stringContaining('maxAnswerMs') },
    });
    // An answer stored failed by an older version: no reason kept, and the console says none, not a guess.
    const oldId = `th_${'0'.repeat(32)}`;
    await service.storage.conversations.createThread(
      threadWith(oldId, { projectId: PROJECT.id, integrationId: 'int_demo' }),
    );
    await service.storage.conversations.appendMessage(oldId, answerWith('m_old', { status: 'error' }));
    const old = (await admin.call('GET', `projects/${PROJECT.id}/conversations/${oldId}`)).body;
    expect(old.messages[0]).toMatchObject({ status: 'error', failure: null });
  });
});
