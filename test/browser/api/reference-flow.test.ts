import { describe, expect } from 'vitest';
import { test } from '../../msw/test.js';
import { INTEGRATION_ID, PROJECT_ID, SERVICE_BASE, SESSION_ENDPOINT } from '../../msw/reference.js';
import { createApiClient } from '../../../src/api/api-client.js';
import { endpointTokenSource } from '../../../src/session/endpoint-source.js';
import { TokenManager } from '../../../src/session/token-manager.js';

function browserClient() {
  const tokens = new TokenManager(endpointTokenSource(SESSION_ENDPOINT));
  return {
    tokens,
    api: createApiClient({
      baseUrl: SERVICE_BASE,
      projectId: PROJECT_ID,
      integrationId: INTEGRATION_ID,
      tokens,
    }),
  };
}

async function ask(api: ReturnType<typeof browserClient>['api'], message: string) {
  let threadId = '';
  for await (const event of api.chat({ message })) if (event.type === 'start') threadId = event.threadId;
  return threadId;
}

describe('reference service through msw in Chromium', () => {
  test('the browser gets a token from the session endpoint and never learns or sets the owner', async ({
    backend,
  }) => {
    backend.signIn('alice');
    const alice = browserClient();
    const threadId = await ask(alice.api, 'How do I theme it?');
    expect(backend.sessionRequests).toHaveLength(1);
    expect(await backend.sessionRequests[0].text()).toBe('');
    for (const request of backend.serviceRequests) {
      expect(request.headers.has('X-API-Key')).toBe(false);
      expect(request.url).not.toContain('owner');
      expect(await request.clone().text()).not.toContain('external_owner_id');
    }
    expect((await alice.api.listThreads()).threads.map((t) => t.id)).toEqual([threadId]);

    backend.signIn('bob');
    const bob = browserClient();
    expect((await bob.api.listThreads()).threads).toEqual([]);
    await expect(bob.api.getThread(threadId)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(bob.api.deleteThread(threadId)).rejects.toMatchObject({ status: 404 });
    expect((await alice.api.getThread(threadId)).messages).toHaveLength(2);

    backend.signIn(null);
    const anonymous = browserClient();
    await expect(anonymous.api.listThreads()).rejects.toMatchObject({
      status: 403,
      code: 'session_without_owner',
    });
  });
});
