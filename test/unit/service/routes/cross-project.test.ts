/**
 * Two projects on one service whose sites both name a visitor "alice" (owner ids are each
 * site's own): nothing of one project's alice is reachable from the other's sessions, by any
 * route, nor with the other project's token in its paths. Runs on every storage engine
 * (npm run test:postgres), where each route is one query of its own.
 */
import { describe, expect, it } from 'vitest';
import { uploadRequest, pngHeader } from '../../../fixtures/files.js';
import { AGENT, BASE, PROJECT, allRecords, makeService } from '../../../fixtures/service.js';

const OTHER = { id: 'proj_other', apiKey: 'key_other', integrationIds: ['int_demo'] };
const AGENT_OTHER = `${BASE}/agent/v1/projects/${OTHER.id}/agent`;

describe("one project's visitor is out of another project's reach", () => {
  it("lists, reads, streams, cancels, rates, attaches, renames or deletes nothing of the other project's alice", async () => {
    const ctx = makeService({ projects: [PROJECT, OTHER] });
    const alice = await ctx.session('alice');
    const asked = await ctx.call('POST', `${AGENT}/chat/`, {
      token: alice,
      body: { integration_id: 'int_demo', message: 'How do I theme the widget?' },
    });
    const records = await allRecords(asked);
    const threadId = records[0].content.thread_id as string;
    const answerId = records[0].content.question_answer_id as string;
    const file = await (await ctx.service.handle(uploadRequest(alice, pngHeader(), 'a.png'))).json();

    const minted = await ctx.call('POST', `${AGENT_OTHER}/sessions/`, {
      apiKey: OTHER.apiKey,
      body: { external_owner_id: 'alice' },
    });
    const other = (await minted.json()).session_token;
    const list = await ctx.call('GET', `${AGENT_OTHER}/threads/`, { token: other });
    expect((await list.json()).threads).toEqual([]);
    const attempts: [string, string, unknown?][] = [
      ['GET', `${AGENT_OTHER}/threads/${threadId}/`],
      ['PATCH', `${AGENT_OTHER}/threads/${threadId}/`, { title: 'mine now' }],
      ['DELETE', `${AGENT_OTHER}/threads/${threadId}/`],
      ['GET', `${AGENT_OTHER}/answers/${answerId}/stream/`],
      ['POST', `${AGENT_OTHER}/answers/${answerId}/cancel/`],
      ['POST', `${AGENT_OTHER}/feedback/`, { question_answer_id: answerId, reaction: 'downvote' }],
      ['GET', `${AGENT_OTHER}/files/${file.file_id}/`],
      ['POST', `${AGENT_OTHER}/chat/`, { integration_id: 'int_demo', message: 'more', thread_id: threadId }],
    ];
    for (const [method, url, body] of attempts) {
      const response = await ctx.call(method, url, { token: other, body });
      expect(response.status, `${method} ${url}`).toBe(404);
    }
    const attach = await ctx.call('POST', `${AGENT_OTHER}/chat/`, {
      token: other,
      body: { integration_id: 'int_demo', message: 'see file', attachments: [file.file_id] },
    });
    expect(attach.status).toBe(400);
    expect((await attach.json()).code).toBe('file_unavailable');

    // The first project's token in the other project's paths authenticates nothing.
    for (const [method, url] of [
      ['GET', `${AGENT_OTHER}/threads/`],
      ['GET', `${AGENT_OTHER}/files/${file.file_id}/`],
      ['GET', `${AGENT_OTHER}/answers/${answerId}/stream/`],
    ])
      expect((await ctx.call(method, url, { token: alice })).status, url).toBe(401);

    const thread = await (await ctx.call('GET', `${AGENT}/threads/${threadId}/`, { token: alice })).json();
    expect(thread.title).not.toBe('mine now');
    expect(thread.messages).toHaveLength(2);
    expect(thread.messages[1].reaction ?? null).toBeNull();
    expect((await ctx.call('GET', `${AGENT}/files/${file.file_id}/`, { token: alice })).status).toBe(200);
  });
});
