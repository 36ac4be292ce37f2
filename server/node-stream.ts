/**
 * What a Fetch handler on node:http needs both ways: a request's headers and body for the
 * Request, the Response's status and headers for the socket. Shared by toNodeHandler and the
 * service's own Node handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A Node request's headers as Fetch Headers (a repeated one joined, as Headers would). */
export function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/** The response's status and headers on `res`, every `Set-Cookie` kept. */
export function writeHead(res: ServerResponse, response: Response): void {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value);
  });
  // Headers joins nothing for Set-Cookie, but forEach + setHeader would keep only the last.
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader('Set-Cookie', cookies);
}

/** A Node request's body as a web stream, pull-based so a slow handler applies backpressure to the socket. */
export function bodyStream(req: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = req[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
