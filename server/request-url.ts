import type { IncomingMessage, ServerResponse } from 'node:http';

/** A host name or an IP literal, with an optional port: all a request URL may be built on. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?)(?::\d{1,5})?$/;

/**
 * A Node request's URL. When its Host header cannot be part of one, the request is answered
 * here, 400 (the client's mistake, not a server error), and the caller gets undefined.
 */
export function requestUrl(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
): URL | undefined {
  const host = req.headers.host ?? 'localhost';
  try {
    if (HOST.test(host)) return new URL(req.originalUrl ?? req.url ?? '/', `http://${host}`);
  } catch {
    // answered below, as a malformed Host
  }
  res
    .writeHead(400, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
    .end(JSON.stringify({ detail: 'The Host header is malformed.', code: 'invalid_request' }));
  return undefined;
}
