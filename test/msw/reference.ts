import { createChallenge } from 'altcha-lib/v1';
import { http } from 'msw';
import { createSessionHandler } from '../../server/session-handler.js';
import { createAgentService, type AgentServiceOptions } from '../../service/index.js';

export const SERVICE_BASE = 'https://agent.test';
export const PROJECT_ID = 'proj_demo';
export const INTEGRATION_ID = 'int_demo';
export const SESSION_ENDPOINT = '/api/agent-session';
const OWNER_KEY_HEADER = 'Agent-Chat-Owner-Key';

/** The owner key a page renders into `owner-key` for `owner` (opaque in real life: an HMAC). */
export function ownerKeyOf(owner: string | null): string {
  return owner === null ? '-' : `key-${owner}`;
}
export const API_KEY = 'key_demo';
const AGENT_BASE = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent`;

/**
 * The reference service and a site owner's session endpoint (built with createSessionHandler),
 * both reached through msw, so browser tests exercise the real contract end to end.
 * `signIn(owner)` plays the site owner's login state.
 */
export function referenceBackend(options: Partial<AgentServiceOptions> = {}) {
  const service = createAgentService({
    projects: [{ id: PROJECT_ID, apiKey: API_KEY, integrationIds: [INTEGRATION_ID] }],
    rateLimit: false,
    ...options,
  });
  let owner: string | null = null;
  /** Whether the session endpoint names the owner (`Agent-Chat-Owner-Key`); a site may send none. */
  let namesOwner = true;
  const sessionRequests: Request[] = [];
  /** Every token handed to the browser, to prove none of them is ever stored. */
  const issuedTokens: string[] = [];
  const serviceRequests: Request[] = [];
  const sessionHandler = createSessionHandler({
    apiKey: API_KEY,
    projectId: PROJECT_ID,
    baseUrl: SERVICE_BASE,
    getOwnerId: () => owner,
    // The whole site runs in this page: there is no visitor's address to limit by.
    rateLimit: false,
    fetch: (input, init) => service.handle(new Request(input, init)),
  });
  /** A session for `threadOwner`, minted directly on the service (not through the widget). */
  async function mintToken(threadOwner: string): Promise<string> {
    const minted = await service.handle(
      new Request(`${AGENT_BASE}/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': API_KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ external_owner_id: threadOwner }),
      }),
    );
    return (await minted.json()).session_token;
  }
  const handlers = [
    http.post(SESSION_ENDPOINT, async ({ request }) => {
      sessionRequests.push(request.clone());
      const response = await sessionHandler(request);
      const body = await response
        .clone()
        .json()
        .catch(() => ({}));
      if (typeof body.session_token === 'string') issuedTokens.push(body.session_token);
      // The tests' readable owner keys (ownerKeyOf) stand in for the helper's HMAC, so a page's
      // owner-key attribute and the session agree as they do with ownerKey() on a real site.
      if (response.ok) {
        const headers = new Headers(response.headers);
        if (namesOwner) headers.set(OWNER_KEY_HEADER, ownerKeyOf(owner));
        else headers.delete(OWNER_KEY_HEADER);
        return new Response(response.body, { status: response.status, headers });
      }
      return response;
    }),
    http.all(`${SERVICE_BASE}/*`, ({ request }) => {
      serviceRequests.push(request.clone());
      return service.handle(request);
    }),
  ];
  return {
    service,
    handlers,
    sessionRequests,
    serviceRequests,
    issuedTokens,
    chatRequests: () => serviceRequests.filter((r) => r.url.endsWith('/agent/chat/')),
    /** The session endpoint stops (false) or starts sending the owner-key header. */
    namingOwner(names: boolean) {
      namesOwner = names;
    },
    signIn(next: string | null) {
      owner = next;
    },
    /**
     * Creates threads for `threadOwner` directly on the service, oldest first; returns their ids.
     * A thread given as a list asks its first question (the title), then the others in turn.
     */
    async seed(threadOwner: string, threads: (string | string[])[]): Promise<string[]> {
      const token = await mintToken(threadOwner);
      const ids: string[] = [];
      for (const questions of threads) {
        let threadId: string | undefined;
        for (const message of [questions].flat()) {
          const response = await service.handle(
            new Request(`${AGENT_BASE}/chat/`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({ integration_id: INTEGRATION_ID, message, thread_id: threadId }),
            }),
          );
          const text = await response.text();
          threadId = /"thread_id":"(th_[0-9a-f]+)"/.exec(text)![1];
        }
        ids.push(threadId!);
        // Distinct updated_at values, so "newest first" is well defined.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      return ids;
    },
    /** Deletes a thread on the service behind the widget's back (another device, say). */
    async deleteBehindTheScenes(threadOwner: string, threadId: string): Promise<void> {
      const token = await mintToken(threadOwner);
      await service.handle(
        new Request(`${AGENT_BASE}/threads/${threadId}/`, {
          method: 'DELETE',
          headers: { Authorization: `Bearer ${token}` },
        }),
      );
    },
  };
}

export type ReferenceBackend = ReturnType<typeof referenceBackend>;

/**
 * §2b's routes as the service answers a page on an allowed origin. msw's worker never sees the
 * browser's `Origin` header (the service refuses a page it cannot name), so the challenge is
 * made here and the session minted as the service mints a public one: without owner.
 */
export function publicSessionRoutes(backend: ReferenceBackend) {
  const routes = `${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/integrations/${INTEGRATION_ID}`;
  return [
    http.get(`${routes}/challenge/`, async () =>
      Response.json(await createChallenge({ hmacKey: 'test', maxnumber: 1_000 })),
    ),
    http.post(`${routes}/sessions/`, async () => {
      const minted = await backend.service.handle(
        new Request(`${SERVICE_BASE}/agent/v1/projects/${PROJECT_ID}/agent/sessions/`, {
          method: 'POST',
          headers: { 'X-API-Key': API_KEY, 'Content-Type': 'application/json' },
          body: '{}',
        }),
      );
      return new Response(minted.body, {
        status: minted.status,
        headers: { 'Content-Type': 'application/json', 'Agent-Chat-Owner-Key': '-' },
      });
    }),
  ];
}
