import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the misbehaving service does with the next session request. */
export type Misbehaviour = 'redirect' | 'stall' | 'huge' | 'huge-declared' | 'html' | 'error-json' | 'older';

/** The JSON error body it answers with `error-json` (429, Retry-After: 7). */
export const ERROR_BODY = '{"detail":"Slow down.","code":"rate_limited","extra":[1,2]}';

async function listen(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

/**
 * An agent service that misbehaves on purpose, as createSessionHandler's tests make it
 * (test/unit/upstream-safety.test.ts), and the host its redirect points to, which records every
 * API key that reaches it: a session endpoint must never send one there.
 */
export async function startMisbehavingService() {
  let mode: Misbehaviour = 'html';
  const keysElsewhere: unknown[] = [];
  const elsewhere = await listen((req, res) => {
    keysElsewhere.push(req.headers['x-api-key']);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"session_token":"t","expires_at":"x"}');
  });
  const service = await listen((_req, res) => {
    if (mode === 'redirect') return void res.writeHead(307, { Location: `${elsewhere.url}/steal` }).end();
    if (mode === 'stall') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.write('{"session_token":');
    }
    if (mode === 'huge-declared')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '10000000' })
        .end();
    if (mode === 'huge') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = 'x'.repeat(16 * 1024);
      for (let i = 0; i < 64; i++) res.write(chunk);
      return void res.end();
    }
    // A service from before a path was added: the router's JSON 404 for any unknown path.
    if (mode === 'older')
      return void res
        .writeHead(404, { 'Content-Type': 'application/json' })
        .end('{"detail":"Not found.","code":"not_found"}');
    if (mode === 'error-json')
      return void res
        .writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '7' })
        .end(ERROR_BODY);
    res.writeHead(503, { 'Content-Type': 'text/html', 'Retry-After': '30' }).end('<h1>Down</h1>');
  });
  return {
    url: service.url,
    keysElsewhere,
    set: (next: Misbehaviour) => void (mode = next),
    close: async () => {
      await service.close();
      await elsewhere.close();
    },
  };
}
