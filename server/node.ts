/**
 * `agent-chat/server/node`: everything of `agent-chat/server`, plus `toNodeHandler` to mount a
 * Fetch handler in Express, connect or plain `node:http`. Kept apart so the Fetch-only entry
 * runs in Workers without Node built-ins.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FetchHandler } from './session-handler.js';
import { requestUrl } from './request-url.js';
import type { Body } from './upstream.js';
import { bodyStream, requestHeaders, writeHead } from './node-stream.js';

export * from './index.js';

type Next = (error?: unknown) => void;

type NodeRequest = IncomingMessage & { originalUrl?: string; body?: unknown; _body?: boolean };

/** The request body, whether it is still in the stream or a body parser already took it. */
function requestBody(req: NodeRequest, headers: Headers): Body | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  // body-parser (express.json, express.urlencoded, express.text, express.raw) marks what it read.
  if (req._body || (req.readableEnded && req.body !== undefined)) {
    const parsed = req.body;
    if (parsed === undefined || parsed === null) return undefined;
    if (typeof parsed === 'string' || parsed instanceof Uint8Array) return parsed as Body;
    const type = headers.get('Content-Type') ?? '';
    if (type.includes('application/x-www-form-urlencoded'))
      return new URLSearchParams(parsed as Record<string, string>).toString();
    // The parser turned JSON into an object: serialise it again, so the length header must go.
    headers.delete('Content-Length');
    return JSON.stringify(parsed);
  }
  if (req.readableEnded) return undefined;
  return bodyStream(req);
}

/**
 * Mounts a Fetch handler in Express, connect (Vite) or plain `node:http`, before or after body
 * parsers. Streams the response with backpressure, keeps every `Set-Cookie`, and aborts the
 * request when the client disconnects, so a streaming handler stops talking to nobody.
 */
export function toNodeHandler(handler: FetchHandler) {
  return async (req: NodeRequest, res: ServerResponse, next?: Next): Promise<void> => {
    const aborter = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    const url = requestUrl(req, res);
    if (!url) return;
    try {
      const headers = requestHeaders(req);
      const body = requestBody(req, headers);
      const request = new Request(url, {
        method: req.method,
        headers,
        body,
        signal: aborter.signal,
        // Required by Node's fetch for a streamed request body.
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
      // The socket's address: limits key on it (a trusted proxy's header may refine it).
      const response = await handler(request, { clientAddress: req.socket?.remoteAddress });
      writeHead(res, response);
      if (!response.body) {
        res.end();
        return;
      }
      const reader = response.body.getReader();
      aborter.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
      res.flushHeaders();
      for (;;) {
        const { done, value } = await reader.read();
        if (done || aborter.signal.aborted) break;
        if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    } catch (error) {
      if (aborter.signal.aborted) return;
      if (next) next(error);
      else if (!res.headersSent) {
        res.statusCode = 500;
        res.end();
      } else res.destroy(error as Error);
    }
  };
}
