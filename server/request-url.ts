import type { IncomingMessage, ServerResponse } from 'node:http';

/** A host name or an IP literal, with an optional port: all a request URL may be built on. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?)(?::\d{1,5})?$/;

/** Methods the Fetch standard forbids: `new Request` throws on them, so they never reach a handler. */
const FORBIDDEN_METHODS = /^(?:CONNECT|TRACE|TRACK)$/i;

/**
 * A Node request's URL. When its Host header cannot be part of one, or its method cannot be a
 * Fetch Request's, the request is answered here (the client's mistake, not a server error: 400,
 * or 501 for a method no route implements) and the caller gets undefined.
 */
export function requestUrl(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
): URL | undefined {
  if (FORBIDDEN_METHODS.test(req.method ?? '')) {
    answer(res, 501, { detail: `${req.method} is not served here.`, code: 'not_implemented' });
    return undefined;
  }
  const host = req.headers.host ?? 'localhost';
  const target = req.originalUrl ?? req.url ?? '/';
  try {
    // A target that starts with `/` is a path, even `//evil.test/x`: resolved as a reference
    // against the host it named another host, whose pages' Origin then passed for this one.
    // Only the absolute form (`http://host/path`, what proxies send) names its host (RFC 9112 §3.2.2).
    if (HOST.test(host))
      return target.startsWith('/') ? new URL(`http://${host}${target}`) : new URL(target, `http://${host}`);
  } catch {
    // answered below, as a malformed Host
  }
  answer(res, 400, { detail: 'The Host header is malformed.', code: 'invalid_request' });
  return undefined;
}

function answer(res: ServerResponse, status: number, body: { detail: string; code: string }) {
  res
    .writeHead(status, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      // As every answer of the service says it (decision 724).
      'X-Content-Type-Options': 'nosniff',
    })
    .end(JSON.stringify(body));
}
