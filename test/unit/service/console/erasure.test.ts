/** The console's erasures (decisions 599-602) and the retention period (decision 603), through the routes. */
import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../../../contract/owner-key.js';
import { consoleClient, withConsole } from '../../../fixtures/console.js';
import { AGENT, PROJECT, readRecords, scriptedAgent, sessionsEndedHeard } from '../../../fixtures/service.js';

const DAY = 86_400_000;
const conversations = `projects/${PROJECT.id}/conversations`;

describe('console erasure', () => {
  it('deletes one conversation: gone for the visitor and the console, audited without its text', async () => {
    const { admin, session, chat, call } = await withConsole();
    const alice = await session('alice');
    const kept = await chat(alice, 'How do I theme the widget?');
    const gone = await chat(alice, 'My card number is 4242');
    expect((await admin.call('DELETE', `${conversations}/${gone.threadId}`)).status).toBe(204);
    expect((await admin.call('DELETE', `${conversations}/${gone.threadId}`)).status).toBe(404);
    const list = (await admin.call('GET', conversations)).body;
    expect(list.threads.map((t: { id: string }) => t.id)).toEqual([kept.threadId]);
    // The visitor's widget finds it gone, as after their own delete in another tab.
    expect((await call('GET', `${AGENT}/threads/${gone.threadId}/`, { token: alice })).status).toBe(404);
    const theirs = await (await call('GET', `${AGENT}/threads/`, { token: alice })).json();
    expect(theirs.threads.map((t: { id: string }) => t.id)).toEqual([kept.threadId]);
    const [entry] = (await admin.call('GET', 'audit')).body.entries;
    expect([entry.actor, entry.action, entry.project_id, entry.target]).toEqual([
      'ada',
      'conversation.delete',
      PROJECT.id,
      gone.threadId,
    ]);
    expect(JSON.stringify(entry)).not.toContain('4242');
  });

  it("another project's console path finds neither the conversation nor its owner (404, not 403), and deletes nothing", async () => {
    const { admin, session, chat } = await withConsole();
    const { threadId } = await chat(await session('alice'), 'hello');
    const other = (await admin.call('POST', 'projects', { name: 'Other' })).body.id as string;
    const path = `projects/${other}/conversations/${threadId}`;
    for (const [method, at] of [
      ['DELETE', path],
      ['GET', `${path}/owner`],
      ['DELETE', `${path}/owner`],
    ]) {
      const response = await admin.call(method, at);
      expect([method, at, response.status]).toEqual([method, at, 404]);
    }
    expect((await admin.call('GET', `${conversations}/${threadId}`)).status).toBe(200);
  });

  it("erases a visitor: their conversations and sessions; the confirmation's count first; another visitor keeps theirs", async () => {
    const { admin, session, chat, service } = await withConsole();
    const alice = await session('alice');
    const first = await chat(alice, 'one');
    await chat(alice, 'two');
    const bob = await session('bob');
    const bobs = await chat(bob, 'three');
    const key = await ownerKey(
      'alice',
      (await service.storage.directory.getProject(PROJECT.id))!.ownerSecret,
    );
    expect((await admin.call('GET', `${conversations}/${first.threadId}/owner`)).body).toEqual({
      owner_key: key,
      conversations: 2,
    });
    const erased = await admin.call('DELETE', `${conversations}/${first.threadId}/owner`);
    expect(erased.body).toMatchObject({ owner_key: key, conversations: 2, sessions: 1 });
    // Their session is gone: the site's server mints a new one, which finds nothing.
    const threads = (token: string) =>
      service.handle(new Request(`${AGENT}/threads/`, { headers: { Authorization: `Bearer ${token}` } }));
    expect((await threads(alice)).status).toBe(401);
    const again = await session('alice');
    expect((await (await threads(again)).json()).threads).toEqual([]);
    const list = (await admin.call('GET', conversations)).body;
    expect(list.threads.map((t: { id: string }) => t.id)).toEqual([bobs.threadId]);
    const [entry] = (await admin.call('GET', 'audit')).body.entries;
    expect([entry.action, entry.target, entry.detail.conversations]).toEqual(['owner.erase', key, 2]);
    expect(JSON.stringify(entry)).not.toMatch(/alice/);
  });

  it('a public or anonymous visitor has no owner to erase (409); their conversation can still be deleted', async () => {
    const { admin, session, chat } = await withConsole();
    const { threadId } = await chat(await session(), 'hello');
    const refused = await admin.call('GET', `${conversations}/${threadId}/owner`);
    expect([refused.status, refused.body.code]).toEqual([409, 'no_owner']);
    expect((await admin.call('DELETE', `${conversations}/${threadId}/owner`)).status).toBe(409);
    expect((await admin.call('DELETE', `${conversations}/${threadId}`)).status).toBe(204);
  });

  it('a session another instance was using is refused there at once after the erasure (decision 630)', async () => {
    const { session, chat, services } = await withConsole();
    const alice = await session('alice');
    const bob = await session('bob');
    const { threadId } = await chat(alice, 'hi');
    // B is the fleet's last instance, the console signed in on the first (one alone: the same).
    const b = services[services.length - 1];
    const threads = (token: string) =>
      b.handle(new Request(`${AGENT}/threads/`, { headers: { Authorization: `Bearer ${token}` } }));
    // Used on B, twice: B has the session in memory.
    for (let i = 0; i < 2; i++) expect((await threads(alice)).status).toBe(200);
    // A fleet's B hears the signal; one instance has no other to tell.
    const heard = services.length > 1 ? await sessionsEndedHeard(b.storage) : async () => {};
    const console1 = consoleClient(services[0]);
    expect((await console1.signIn()).status).toBe(200);
    expect((await console1.call('DELETE', `${conversations}/${threadId}/owner`)).body.sessions).toBe(1);
    // Once B has heard it (milliseconds), not when B's memory of the session runs out.
    await heard();
    const refused = await threads(alice);
    expect([refused.status, (await refused.json()).code]).toEqual([401, 'invalid_token']);
    expect((await threads(bob)).status).toBe(200);
  });

  it('an erasure on one instance stops the answer another instance is streaming in that thread', async () => {
    const script = scriptedAgent();
    const { session, services } = await withConsole({ agent: script.agent });
    const alice = await session('alice');
    // The answer streams on the fleet's last instance; the console is signed in on another (one alone: the same).
    const streaming = services[services.length - 1];
    const console1 = consoleClient(services[0]);
    expect((await console1.signIn()).status).toBe(200);
    const response = await streaming.handle(
      new Request(`${AGENT}/chat/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${alice}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ integration_id: 'int_demo', message: 'hi' }),
      }),
    );
    const reader = response.body!.getReader();
    script.say('Some ');
    const [start] = await readRecords(reader, 2);
    const threadId = start.content.thread_id as string;
    const erased = await console1.call('DELETE', `${conversations}/${threadId}/owner`);
    expect(erased.body.conversations).toBe(1);
    // The stream ends without the rest of the answer, and the agent was told to stop.
    const rest = await readRecords(reader, Number.POSITIVE_INFINITY);
    expect(rest.some((r) => r.type === 'text' && JSON.stringify(r.content).includes('never'))).toBe(false);
    expect(script.aborted()).toBe(1);
    script.say('never');
    expect(await services[0].storage.conversations.getThread(threadId)).toBeUndefined();
  });
});

describe('retention period', () => {
  it('maintenance deletes conversations whose last message is older than the period; the console shows it', async () => {
    const { admin, session, chat, service, clock } = await withConsole({ conversationRetentionMs: 30 * DAY });
    const alice = await session('alice');
    const old = await chat(alice, 'old question');
    clock.advance(20 * DAY);
    const recent = await chat(await session('bob'), 'recent question');
    clock.advance(11 * DAY);
    expect((await service.maintain()).conversations).toBe(1);
    expect(await service.storage.conversations.getThread(old.threadId!)).toBeUndefined();
    expect(await service.storage.conversations.getThread(recent.threadId!)).toBeDefined();
    // A month on, the console's session has run out too.
    await admin.signIn();
    const list = (await admin.call('GET', conversations)).body;
    expect(list.retention_days).toBe(30);
    expect(list.threads.map((t: { id: string }) => t.id)).toEqual([recent.threadId]);
  });

  it('without a period nothing is deleted, however old, and the console says conversations are kept', async () => {
    const { admin, session, chat, service, clock } = await withConsole();
    const { threadId } = await chat(await session('alice'), 'old question');
    clock.advance(3650 * DAY);
    expect((await service.maintain()).conversations).toBe(0);
    expect(await service.storage.conversations.getThread(threadId!)).toBeDefined();
    await admin.signIn();
    expect((await admin.call('GET', conversations)).body.retention_days).toBeNull();
  });
});
