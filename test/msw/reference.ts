import { http } from 'msw';
import { createSessionHandler } from '../../server/session-handler.js';
import { createReferenceService, type ReferenceServiceOptions } from '../../service/index.js';

export const SERVICE_BASE = 'https://agent.test';
export const PROJECT_ID = 'proj_demo';
export const INTEGRATION_ID = 'int_demo';
export const SESSION_ENDPOINT = '/api/agent-session';
const API_KEY = 'key_demo';

/**
 * The reference service and a site owner's session endpoint (built with createSessionHandler),
 * both reached through msw, so browser tests exercise the real contract end to end.
 * `signIn(owner)` plays the site owner's login state.
 */
export function referenceBackend(options: Partial<ReferenceServiceOptions> = {}) {
  const service = createReferenceService({
    projects: [{ id: PROJECT_ID, apiKey: API_KEY, integrationIds: [INTEGRATION_ID] }],
    rateLimit: false,
    ...options,
  });
  let owner: string | null = null;
  const sessionRequests: Request[] = [];
  const serviceRequests: Request[] = [];
  const sessionHandler = createSessionHandler({
    apiKey: API_KEY,
    projectId: PROJECT_ID,
    baseUrl: SERVICE_BASE,
    getOwnerId: () => owner,
    fetch: (input, init) => service.handle(new Request(input, init)),
  });
  const handlers = [
    http.post(SESSION_ENDPOINT, ({ request }) => {
      sessionRequests.push(request.clone());
      return sessionHandler(request);
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
    chatRequests: () => serviceRequests.filter((r) => r.url.endsWith('/agent/chat/')),
    signIn(next: string | null) {
      owner = next;
    },
  };
}
