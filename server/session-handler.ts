export type FetchHandler = (request: Request) => Promise<Response>;

export interface SessionHandlerOptions {
  /** The secret API key. It is used here, on your server, and never sent to a browser. */
  apiKey: string;
  projectId: string;
  /** The agent service base URL, e.g. `https://agent.example.com`. */
  baseUrl: string;
  /**
   * Who the visitor is, from *your* login state (cookie, session, JWT). Return nothing for an
   * anonymous visitor: they can chat but get no history. Never read this from the request body.
   */
  getOwnerId: (request: Request) => string | null | undefined | Promise<string | null | undefined>;
  /** How long to wait for the service before answering 502. Default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

function errorJson(status: number, code: string, detail: string, headers: Record<string, string> = {}): Response {
  return Response.json({ detail, code }, { status, headers: { ...NO_STORE, ...headers } });
}

/**
 * The site owner's session endpoint (wire contract §2) as a Fetch handler: mints a session
 * with the API key and passes the service's answer through unchanged.
 */
export function createSessionHandler(options: SessionHandlerOptions): FetchHandler {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const url = `${options.baseUrl.replace(/\/+$/, '')}/agent/v1/projects/${encodeURIComponent(options.projectId)}/agent/sessions/`;
  const timeoutMs = options.timeoutMs ?? 10_000;

  return async (request) => {
    if (request.method !== 'POST') return errorJson(405, 'method_not_allowed', 'Use POST.', { Allow: 'POST' });
    // The browser's body is never read: whatever it says about an owner is ignored.
    const owner = await options.getOwnerId(request);
    let upstream: Response;
    try {
      upstream = await doFetch(url, {
        method: 'POST',
        headers: { 'X-API-Key': options.apiKey, ...(owner ? { 'Content-Type': 'application/json' } : {}) },
        body: owner ? JSON.stringify({ external_owner_id: owner }) : undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      return errorJson(502, 'service_unavailable', timedOut ? `The agent service did not answer within ${timeoutMs} ms.` : 'The agent service could not be reached.');
    }
    const headers = new Headers(NO_STORE);
    for (const name of ['Content-Type', 'Date', 'Retry-After']) {
      const value = upstream.headers.get(name);
      if (value) headers.set(name, value);
    }
    return new Response(await upstream.arrayBuffer(), { status: upstream.status, headers });
  };
}
