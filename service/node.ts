import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '../server/node.js';
import type { LogEntry, ReferenceService } from './service.js';

/**
 * `agent-chat-service` for Node: the Fetch handler, the storage and agent interfaces, the
 * database opener and a node:http server around them.
 */
export * from './index.js';
export { openStorage } from './storage/open.js';
export { SqlStorage, type SqlClient } from './storage/sql.js';
export { OpenAiAgent, type OpenAiAgentOptions } from './agents/openai.js';
export { loadMarkdownDocs } from './agents/markdown-docs.js';
export { nodeConsole, scryptPasswords } from './console-node.js';

export interface ServeOptions {
  port?: number;
  host?: string;
  log?: (entry: LogEntry) => void;
  /** How often expired sessions, old events and rate windows are purged. Default 60 s. */
  maintainEveryMs?: number;
}

export interface RunningService {
  server: Server;
  url: string;
  /** Stops accepting, stores answers in flight as stopped, closes the store. */
  close(): Promise<void>;
}

/** JSON lines on stdout: method, path without its query, status and time; nothing secret. */
export const jsonLog = (entry: LogEntry) => process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);

export async function serve(service: ReferenceService, options: ServeOptions = {}): Promise<RunningService> {
  const log = options.log ?? jsonLog;
  const server = createServer((req, res) => {
    const started = performance.now();
    res.on('finish', () => {
      // The path only: the query may hold a cursor, and nothing here holds a token.
      log({ level: 'info', msg: 'request', method: req.method ?? '', path: (req.url ?? '').split('?')[0], status: res.statusCode, ms: Math.round(performance.now() - started) });
    });
    if (req.url === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(req.method === 'GET' ? '{"status":"ok"}' : undefined);
      return;
    }
    // toNodeHandler passes the socket's address; the service's trustProxy decides what to make of it.
    void toNodeHandler(service.handle)(req, res);
  });
  // A slow or silent client must not hold a socket forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const timer = setInterval(() => {
    service.maintain().then(
      (done) => log({ level: 'info', msg: 'maintenance', ...done }),
      (error) => log({ level: 'error', msg: 'maintenance_failed', error: error instanceof Error ? error.name : 'unknown' }),
    );
  }, options.maintainEveryMs ?? 60_000);
  timer.unref();
  let closing: Promise<void> | undefined;
  return {
    server,
    url,
    close: () => (closing ??= (async () => {
      clearInterval(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Ends every live answer (stored as stopped); their streams then end on their own.
      await service.close();
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 2_000).unref();
      await closed;
    })()),
  };
}
