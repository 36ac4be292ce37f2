import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../../src/api/api-client.js';
import { NetworkError } from '../../../src/api/errors.js';
import type { StreamEvent } from '../../../src/api/types.js';
import { TokenManager } from '../../../src/session/token-manager.js';
import { createAgentService, DemoAgent } from '../../../service/index.js';
import type { TokenSource } from '../../../src/session/types.js';

const PROJECT = { id: 'proj_old', apiKey: 'key_old', integrationIds: ['int_old'] };
const BASE = 'https://agent.test';

/**
 * The headers a wire contract v4 service from before the Idempotency-Key (decision 453) allows,
 * recorded from that release: its `OPTIONS …/agent/chat/` answered 204 with
 * `Access-Control-Allow-Headers: Authorization, Content-Type`.
 */
const OLDER_ALLOW_HEADERS = 'Authorization, Content-Type';
/** This service's (decision 453). */
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key';

/** Headers a browser sends cross-origin without asking the preflight (the CORS-safelisted ones). */
const SAFELISTED = new Set(['accept', 'accept-language', 'content-language', 'content-type']);

/**
 * The service as a page on another origin reaches it, in a browser: a request with a header the
 * preflight does not allow is refused before it leaves, with the TypeError fetch throws for an
 * unreachable server; the others reach the service. `down` refuses what it matches, as a dropped
 * network does.
 */
function behindCors(allowHeaders: string, down: (request: Request) => boolean = () => false) {
  const service = createAgentService({ projects: [PROJECT], rateLimit: false, agent: new DemoAgent() });
  const allowed = allowHeaders.toLowerCase().split(/,\s*/);
  const reached: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const asked = [...request.headers.keys()].filter((name) => !SAFELISTED.has(name));
    if (asked.some((name) => !allowed.includes(name)) || down(request))
      throw new TypeError('Failed to fetch');
    reached.push(request.clone());
    return service.handle(request);
  };
  // The site's session endpoint (§2): its server mints the session with the project's key.
  const source: TokenSource = async () => {
    const response = await service.handle(
      new Request(`${BASE}/agent/v1/projects/${PROJECT.id}/agent/sessions/`, {
        method: 'POST',
        headers: { 'X-API-Key': PROJECT.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ external_owner_id: 'visitor-1' }),
      }),
    );
    return response.json();
  };
  const api = createApiClient({
    baseUrl: BASE,
    projectId: PROJECT.id,
    integrationId: PROJECT.integrationIds[0],
    tokens: new TokenManager(source),
    fetch,
  });
  return {
    api,
    reached,
    chats: () => reached.filter((r) => r.method === 'POST' && r.url.endsWith('/chat/')),
  };
}

async function answer(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

afterEach(() => vi.restoreAllMocks());

describe('the widget against a v4 service whose CORS predates the Idempotency-Key (decision 730)', () => {
  it('asks its question without the key, says so to the site owner once, and asks the next one without it at once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { api, chats, reached } = behindCors(OLDER_ALLOW_HEADERS);
    const events = await answer(api.chat({ message: 'How do I theme it?', idempotencyKey: 'a'.repeat(32) }));
    expect(events.at(-1)).toMatchObject({ type: 'end' });
    expect(chats()).toHaveLength(1);
    expect(chats()[0].headers.has('Idempotency-Key')).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/refuses the Idempotency-Key header; update it/);

    const before = reached.length;
    const next = await answer(api.chat({ message: 'And tokens?', idempotencyKey: 'b'.repeat(32) }));
    expect(next.at(-1)).toMatchObject({ type: 'end' });
    expect(chats()).toHaveLength(2);
    // Straight to the question: no second look at the service's CORS.
    expect(reached.slice(before).map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      `POST /agent/v1/projects/${PROJECT.id}/agent/chat/`,
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('an unreachable service is still a NetworkError, and no question goes without its key', async () => {
    const { api, chats } = behindCors(OLDER_ALLOW_HEADERS, () => true);
    const error = await answer(api.chat({ message: 'Hi', idempotencyKey: 'c'.repeat(32) })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(chats()).toEqual([]);
  });

  it('a question lost to the network alone (the service reachable with the key) fails as before and keeps its key', async () => {
    let drops = 1;
    const dropped = (request: Request) => request.url.endsWith('/chat/') && drops-- > 0;
    const { api, chats } = behindCors(ALLOW_HEADERS, dropped);
    const error = await answer(api.chat({ message: 'Hi', idempotencyKey: 'd'.repeat(32) })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(chats()).toEqual([]);
    await answer(api.chat({ message: 'Hi', idempotencyKey: 'd'.repeat(32) }));
    expect(chats().map((r) => r.headers.get('Idempotency-Key'))).toEqual(['d'.repeat(32)]);
  });
});
