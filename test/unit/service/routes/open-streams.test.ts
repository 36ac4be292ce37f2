/**
 * A stream already open when its session is ended: the answer goes on (it is stored, and the
 * thread's owner reads it later), but the connection of an ended session carries no more of
 * it. Ended: the key that minted it revoked with "end its sessions", its public integration
 * made private (an owner's erasure stops the answers of the threads it deletes). A token that merely expires mid-answer keeps its stream:
 * the answer was asked in time (decision 684).
 */
import { solveChallenge } from 'altcha-lib/v1';
import { describe, expect, it } from 'vitest';
import { AGENT, BASE, PROJECT, makeService, readRecords, scriptedAgent } from '../../../fixtures/service.js';
import { CONSOLE, addAdmin, consoleClient } from '../../../fixtures/console.js';
import { takeRecordStream } from '../../../../service/answers/record-stream.js';

type Ctx = ReturnType<typeof makeService>;

const SITE = 'https://docs.example.com';

/** Everything a reader still gets, as text, until the stream ends. */
async function rest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const records = await readRecords(reader, Number.POSITIVE_INFINITY);
  return records.map((r) => JSON.stringify(r)).join('\n');
}

async function openAnswer(ctx: Ctx, token: string, scripted: ReturnType<typeof scriptedAgent>) {
  const response = await ctx.call('POST', `${AGENT}/chat/`, {
    token,
    body: { integration_id: 'int_demo', message: 'Tell me everything.' },
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  scripted.say('The first part. ');
  const first = await readRecords(reader, 2);
  expect(JSON.stringify(first)).toContain('The first part.');
  return { reader, answerId: first[0].content.question_answer_id as string };
}

describe('a stream already open when its session ends', () => {
  it('a key revoked with its sessions ended: the open stream carries nothing more; the answer is kept whole', async () => {
    const scripted = scriptedAgent();
    const ctx = makeService({ agent: scripted.agent, console: CONSOLE });
    await addAdmin(ctx.service.storage);
    const admin = consoleClient(ctx.service);
    await admin.signIn();
    const created = (await admin.call('POST', `projects/${PROJECT.id}/keys`, { name: 'Leaked' })).body;
    const minted = await ctx.call('POST', `${AGENT}/sessions/`, {
      apiKey: created.key,
      body: { external_owner_id: 'mallory' },
    });
    const token = (await minted.json()).session_token;
    const { reader, answerId } = await openAnswer(ctx, token, scripted);

    const ended = await admin.call('DELETE', `projects/${PROJECT.id}/keys/${created.id}?end_sessions=1`);
    expect(ended.status).toBe(200);
    ctx.clock.advance(6_000);
    scripted.say('The secret part.');
    scripted.end();
    expect(await rest(reader)).not.toContain('The secret part.');
    // Reattaching is refused as every route is; the answer itself went on and is kept whole.
    const again = await ctx.call('GET', `${AGENT}/answers/${answerId}/stream/`, { token });
    expect(again.status).toBe(401);
    await expect
      .poll(async () => (await ctx.service.storage.conversations.getMessage(answerId))?.message)
      .toMatchObject({ status: 'complete', content: 'The first part. The secret part.' });
  });

  it('a public integration made private: its open streams carry nothing more', async () => {
    const scripted = scriptedAgent();
    const ctx = makeService({
      agent: scripted.agent,
      projects: [{ ...PROJECT, allowedOrigins: [SITE], public: true }],
      challengeWork: 1_000,
    });
    const routes = `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo`;
    const c = await (await ctx.call('GET', `${routes}/challenge/`, { headers: { Origin: SITE } })).json();
    const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
    const altcha = btoa(JSON.stringify({ ...c, number: solution!.number, maxnumber: undefined }));
    const minted = await ctx.call('POST', `${routes}/sessions/`, {
      body: { altcha },
      headers: { Origin: SITE },
    });
    const token = (await minted.json()).session_token;
    const { reader, answerId } = await openAnswer(ctx, token, scripted);

    await ctx.service.storage.directory.updateIntegration(PROJECT.id, 'int_demo', { public: false });
    ctx.clock.advance(6_000);
    scripted.say('The secret part.');
    scripted.end();
    expect(await rest(reader)).not.toContain('The secret part.');
    expect((await ctx.call('GET', `${AGENT}/answers/${answerId}/stream/`, { token })).status).toBe(401);
  });

  it('a Node host still writes the watched stream straight to its socket, and it stops there too', async () => {
    const scripted = scriptedAgent();
    const ctx = makeService({
      agent: scripted.agent,
      projects: [{ ...PROJECT, allowedOrigins: [SITE], public: true }],
      challengeWork: 1_000,
    });
    const routes = `${BASE}/agent/v1/projects/${PROJECT.id}/integrations/int_demo`;
    const c = await (await ctx.call('GET', `${routes}/challenge/`, { headers: { Origin: SITE } })).json();
    const solution = await solveChallenge(c.challenge, c.salt, c.algorithm, c.maxnumber).promise;
    const altcha = btoa(JSON.stringify({ ...c, number: solution!.number, maxnumber: undefined }));
    const minted = await ctx.call('POST', `${routes}/sessions/`, {
      body: { altcha },
      headers: { Origin: SITE },
    });
    const token = (await minted.json()).session_token;
    const response = await ctx.call('POST', `${AGENT}/chat/`, {
      token,
      body: { integration_id: 'int_demo', message: 'Tell me everything.' },
    });
    // The direct path (node-handler.ts) skips two web streams per answer; a guard that wraps the
    // body in a stream of its own takes it away from every answer.
    const records = takeRecordStream(response);
    expect(records).toBeDefined();
    let written = '';
    let ended = false;
    records!.pipe({ write: (b) => (written += new TextDecoder().decode(b)), end: () => (ended = true) });
    scripted.say('The first part. ');
    await expect.poll(() => written).toContain('The first part.');

    await ctx.service.storage.directory.updateIntegration(PROJECT.id, 'int_demo', { public: false });
    ctx.clock.advance(6_000);
    scripted.say('The secret part.');
    scripted.end();
    await expect.poll(() => ended).toBe(true);
    expect(written).not.toContain('The secret part.');
  });

  it('a token that expires mid-answer keeps its stream to the end', async () => {
    const scripted = scriptedAgent();
    const ctx = makeService({ agent: scripted.agent, tokenTtlMs: 10_000 });
    const token = await ctx.session('alice');
    const { reader } = await openAnswer(ctx, token, scripted);
    ctx.clock.advance(20_000);
    expect((await ctx.call('GET', `${AGENT}/threads/`, { token })).status).toBe(401);
    scripted.say('The last part.');
    scripted.end();
    expect(await rest(reader)).toContain('The last part.');
  });
});
