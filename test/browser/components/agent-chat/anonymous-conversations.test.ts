/**
 * A site's own session endpoint and no `owner-key` on the page (the Quickstart, WordPress, PHP):
 * an anonymous visitor's session says `-`, a session without owner, whose list the service never
 * gives (§5 answers 403). Opening Conversations asks only what can be given.
 */
import { describe, expect } from 'vitest';
import { page } from 'vitest/browser';
import { test } from '../../../msw/test.js';
import { fixtureChat, threadListOf } from '../../../helpers/chat-fixture.js';

const listRequests = (requests: Request[]) =>
  requests.filter((r) => r.method === 'GET' && new URL(r.url).pathname.endsWith('/threads/'));

describe('<agent-chat> Conversations for an anonymous visitor of a site endpoint', () => {
  test('opened before any question: no list request (no 403 in the console), the list says why it is empty', async ({
    backend,
  }) => {
    backend.signIn(null);
    const el = await fixtureChat();
    await page.getByRole('button', { name: 'Conversations' }).click();
    await expect
      .poll(() => threadListOf(el).shadowRoot?.textContent ?? '')
      .toContain('Sign in to see your past conversations.');
    // The session was asked (only it says who the visitor is); the list was not.
    expect(backend.sessionRequests).toHaveLength(1);
    expect(listRequests(backend.serviceRequests)).toEqual([]);
  });

  test('a signed-in visitor on the same page still gets her list from the service', async ({ backend }) => {
    backend.signIn('alice');
    await backend.seed('alice', ['Alice plan']);
    const el = await fixtureChat();
    await page.getByRole('button', { name: 'Conversations' }).click();
    await expect.poll(() => threadListOf(el).shadowRoot?.textContent ?? '').toContain('Alice plan');
    expect(listRequests(backend.serviceRequests)).toHaveLength(1);
  });
});
