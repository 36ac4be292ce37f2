import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FetchHandler } from './session-handler.js';

type Next = (error?: unknown) => void;

/**
 * Mounts a Fetch handler in Express, connect (Vite) or plain `node:http`. Streams the body
 * with backpressure, and aborts the request when the client disconnects, so a streaming
 * handler stops generating instead of talking to nobody.
 */
export function toNodeHandler(handler: FetchHandler) {
  return async (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next?: Next): Promise<void> => {
    const aborter = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborter.abort();
    });
    try {
      const host = req.headers.host ?? 'localhost';
      const url = new URL(req.originalUrl ?? req.url ?? '/', `http://${host}`);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(url, {
        method: req.method,
        headers,
        body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
        signal: aborter.signal,
        // Required by Node's fetch for a streamed request body.
        ...(hasBody ? { duplex: 'half' } : {}),
      } as RequestInit);
      const response = await handler(request);
      res.statusCode = response.status;
      response.headers.forEach((value, name) => res.setHeader(name, value));
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
