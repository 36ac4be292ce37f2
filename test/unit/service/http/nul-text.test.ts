/**
 * PostgreSQL's text and jsonb hold no NUL (decision 759): a visitor's message, a JSON key or an
 * address with one is refused at the door, a 400 that says why, where it failed the statement
 * that stored it (a 500, an internal error in the log) on PGlite and PostgreSQL.
 */
import { expect, it } from 'vitest';
import { openSqlStores } from '../../../../service/storage/sql/index.js';
import { withConsole } from '../../../fixtures/console.js';
import { AGENT, BASE, PROJECT } from '../../../fixtures/service.js';
import { sqlEngines } from '../../../fixtures/storages.js';

it.each(sqlEngines().map((e) => [e.name, e] as const))(
  'refuses text with a NUL character on %s',
  async (_, engine) => {
    const { admin, session, chat, call } = await withConsole({
      storage: await openSqlStores(await engine.client()),
    });
    const token = await session('alice');
    const refused = await chat(token, 'hello\u0000there');
    expect(refused.response.status).toBe(400);
    expect(await refused.response.json()).toMatchObject({ code: 'invalid_request', detail: /NUL/ });
    const key = await call('POST', `${AGENT}/chat/`, {
      token,
      rawBody: '{"integration_id":"int_demo","message":"hi","x\\u0000":1}',
    });
    expect(key.status).toBe(400);
    // Nothing was stored: the visitor's list of threads is empty.
    const threads = await call('GET', `${AGENT}/threads/`, { token });
    expect((await threads.json()).threads).toEqual([]);
    for (const query of ['q=a%00', 'integration_id=%00'])
      expect((await admin.call('GET', `projects/${PROJECT.id}/conversations?${query}`)).status).toBe(400);
    expect((await call('GET', `${BASE}/widget/1.0.0%00/agent-chat.js`)).status).toBe(400);
    // Text without one goes on as before.
    expect((await chat(token, 'hello there')).response.status).toBe(200);
  },
  60_000,
);
