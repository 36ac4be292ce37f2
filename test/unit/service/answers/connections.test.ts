import { describe, expect, it } from 'vitest';
import { PROJECT, readRecords, scriptedAgent } from '../../../fixtures/service.js';
import { served } from '../../../fixtures/served.js';

const agentPath = `/agent/v1/projects/${PROJECT.id}/agent`;

describe('connections', () => {
  it('keeps generating after the HTTP connection drops, and stores the whole answer', async () => {
    const script = scriptedAgent();
    const { url, service } = await served({ projects: [PROJECT], agent: script.agent, rateLimit: false });
    const { session_token: token } = await (
      await fetch(`${url}${agentPath}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
        body: '{"external_owner_id":"alice"}',
      })
    ).json();
    const controller = new AbortController();
    const response = await fetch(`${url}${agentPath}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify({ integration_id: 'int_demo', message: 'hi' }),
      signal: controller.signal,
    });
    script.say('Before ');
    const [start] = await readRecords(response.body!.getReader(), 2);
    controller.abort();
    script.say('and after.');
    script.end();
    const threadId = start.content.thread_id as string;
    await expect
      .poll(async () => (await service.storage.conversations.getThread(threadId))?.messages[1])
      .toMatchObject({ content: 'Before and after.', status: 'complete' });
    expect(script.aborted()).toBe(0);
  });

  it('ends answers in flight with an error when the server closes, their text kept', async () => {
    // The visitor did not stop it: ended with `identifiers` it read as a whole answer (decision 447).
    const script = scriptedAgent();
    const { url, service, close } = await served({ projects: [PROJECT], agent: script.agent });
    const { session_token: token } = await (
      await fetch(`${url}${agentPath}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey },
      })
    ).json();
    const response = await fetch(`${url}${agentPath}/chat/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify({ integration_id: 'int_demo', message: 'hi' }),
    });
    script.say('Half ');
    const reader = response.body!.getReader();
    const [start] = await readRecords(reader, 2);
    const storage = service.storage;
    await close();
    const ended = await readRecords(reader, Number.POSITIVE_INFINITY);
    expect(ended.map((r) => [r.type, r.content.reason])).toEqual([
      ['error', 'The service restarted while answering. Ask again.'],
    ]);
    expect(
      (await storage.conversations.getThread(start.content.thread_id as string))?.messages[1],
    ).toMatchObject({
      content: 'Half ',
      status: 'error',
    });
  });
});
