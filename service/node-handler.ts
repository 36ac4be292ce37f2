import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES } from '../contract/limits.js';
import { requestUrl } from '../server/request-url.js';
import { takeRecordStream } from './answers/record-stream.js';
import type { AgentService } from './service.js';
import { bodyStream, requestHeaders, writeHead } from '../server/node-stream.js';

/**
 * The service on node:http, for `serve()`: what `toNodeHandler` does for any Fetch handler, with
 * the web-stream plumbing off the hot path. A small body is read whole before the Request is
 * made (no stream pulled from the socket), and a streamed answer is written to the socket as its
 * records come (`takeRecordStream`) instead of through a ReadableStream and a reader. Measured
 * at 1,000 concurrent answers, that plumbing was about a tenth of the service's CPU.
 */
export function serviceNodeHandler(service: AgentService) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = requestUrl(req, res);
    if (!url) return;
    let cancel: (() => void) | undefined;
    res.on('close', () => {
      if (!res.writableFinished) cancel?.();
    });
    try {
      // The socket's address: limits key on it (a trusted proxy's header may refine it).
      const response = await service.handle(await toRequest(req, url), {
        clientAddress: req.socket.remoteAddress,
      });
      await send(res, response, (stop) => (cancel = stop));
    } catch (error) {
      if (res.destroyed) return;
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end();
      } else res.destroy(error as Error);
    }
  };
}

/** The Fetch Request for a node:http request: its headers, and its body read or streamed. */
async function toRequest(req: IncomingMessage, url: URL): Promise<Request> {
  const body = await requestBody(req);
  return new Request(url, {
    method: req.method,
    headers: requestHeaders(req),
    body,
    ...(body instanceof ReadableStream && { duplex: 'half' }),
  } as RequestInit);
}

/**
 * Writes the response to the socket: a record stream piece by piece as it comes, any other body
 * through its reader. `onCancel` gets what stops it when the client leaves first.
 */
async function send(
  res: ServerResponse,
  response: Response,
  onCancel: (stop: () => void) => void,
): Promise<void> {
  writeHead(res, response);
  const records = takeRecordStream(response);
  if (records) {
    if (res.destroyed) return records.cancel();
    onCancel(() => records.cancel());
    // The first piece (stream_start) waits in the stream: it goes out with the headers.
    records.pipe({ write: (bytes) => void res.write(bytes), end: () => res.end() });
    return;
  }
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  onCancel(() => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

/**
 * The request body for the Request: none for GET and HEAD; read whole when its declared length
 * is within the service's limit; otherwise a stream (a chunked body, or one the limit refuses:
 * the service reads it counting bytes and stops at the limit).
 */
async function requestBody(
  req: IncomingMessage,
): Promise<Uint8Array | ReadableStream<Uint8Array> | undefined> {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  const declared = req.headers['content-length'];
  // Neither a length nor chunks: no body (RFC 9112 §6.3), as for preflights and most deletes.
  if (declared === undefined && req.headers['transfer-encoding'] === undefined) return undefined;
  if (declared !== undefined && Number(declared) <= MAX_BODY_BYTES) {
    return new Promise<Uint8Array>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      req.once('error', reject);
      // A client that leaves mid-body: nothing to answer.
      req.once('close', () => req.complete || reject(new Error('request body cut off')));
    });
  }
  return bodyStream(req);
}
