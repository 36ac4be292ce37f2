import type { IncomingMessage } from 'node:http';

/** A host name or an IP literal, with an optional port: all a request URL may be built on. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?)(?::\d{1,5})?$/;

/** A Node request's URL, or undefined when its Host header cannot be part of one. */
export function requestUrl(req: IncomingMessage & { originalUrl?: string }): URL | undefined {
  const host = req.headers.host ?? 'localhost';
  if (!HOST.test(host)) return undefined;
  try {
    return new URL(req.originalUrl ?? req.url ?? '/', `http://${host}`);
  } catch {
    return undefined;
  }
}
