import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serviceNodeHandler } from './node-handler.js';
import type { AgentService, DrainReport, LogEntry } from './service.js';

/**
 * `agent-chat-service` for Node: the Fetch handler, the storage and agent interfaces, the
 * database opener and a node:http server around them.
 */
export * from './index.js';
export { openStorage } from './storage/open.js';
export { DataDirLockedError } from './storage/data-dir-lock.js';
export { openSqlStores, type SqlClient } from './storage/sql/index.js';
export { OpenAiAgent, type OpenAiAgentOptions } from './agents/openai.js';
export { loadDocsFolder, readDocsFolder } from './docs/folder.js';
export { nodeConsole, nodeWidgetRelease, scryptPasswords } from './console-node.js';

export interface ServeOptions {
  port?: number;
  host?: string;
  log?: (entry: LogEntry) => void;
  /** How often expired sessions, old events and rate windows are purged. Default 60 s. */
  maintainEveryMs?: number;
  /**
   * Connections the kernel may hold before they are accepted. Node's default (511) overflows
   * in a burst of visitors, who then wait 1, 3, 7 s for SYN retries. Default 4096; Linux caps
   * it at net.core.somaxconn (4096 since 5.4).
   */
  backlog?: number;
}

export interface RunningService {
  server: Server;
  url: string;
  /**
   * The first step of a graceful stop (decision 456): `/readyz` fails, chats answer 503 with
   * `Retry-After`, every response closes its connection, and the answers generating here run to
   * their end for at most `deadlineMs`; reattach, history, the console and the widget's files
   * are served meanwhile. `close` then ends what is left.
   */
  drain(deadlineMs: number): Promise<DrainReport>;
  /** Stops accepting, ends answers in flight as errors with their text kept (447), closes the store. */
  close(): Promise<void>;
}

/**
 * `/healthz` (liveness: the process serves; 200 while it drains, so an orchestrator does not kill
 * it early) and `/readyz` (readiness: send it visitors; 503 once it drains, so a load balancer
 * stops routing to it). True when the request was one of them.
 */
function probe(service: AgentService, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '').split('?')[0];
  if ((path !== '/healthz' && path !== '/readyz') || (req.method !== 'GET' && req.method !== 'HEAD'))
    return false;
  const down = path === '/readyz' && service.draining;
  const body = down
    ? { detail: 'This instance is draining: it takes no new answers.', code: 'draining' }
    : { status: path === '/healthz' ? 'ok' : 'ready' };
  res
    .writeHead(down ? 503 : 200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      // As every answer of the service says it (decision 724).
      'X-Content-Type-Options': 'nosniff',
    })
    .end(req.method === 'GET' ? JSON.stringify(body) : undefined);
  return true;
}

let logLines = '';
let flushOnExit = false;
const flushLog = () => {
  if (!logLines) return;
  const lines = logLines;
  logLines = '';
  process.stdout.write(lines);
};

/**
 * JSON lines on stdout: method, path without its query, status and time; nothing secret.
 * Lines wait for the end of the event loop's turn and go out in one write: stdout is a
 * synchronous system call per write on Linux, and a busy service logs hundreds of requests a
 * turn. Whatever waits is written on exit too.
 */
export function jsonLog(entry: LogEntry): void {
  if (!logLines) {
    setImmediate(flushLog);
    if (!flushOnExit) {
      flushOnExit = true;
      process.once('exit', flushLog);
    }
  }
  logLines += `${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`;
}

export async function serve(service: AgentService, options: ServeOptions = {}): Promise<RunningService> {
  const log = options.log ?? jsonLog;
  const handle = serviceNodeHandler(service);
  const server = createServer((req, res) => {
    const started = performance.now();
    res.on('finish', () => {
      // The path only: the query may hold a cursor, and nothing here holds a token.
      log({
        level: 'info',
        msg: 'request',
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0],
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      });
    });
    // A draining instance hands its clients to the others: a kept-alive connection would bring
    // the next request back here (a balancer's pooled connection, a browser's).
    if (service.draining) res.setHeader('Connection', 'close');
    if (probe(service, req, res)) return;
    // The socket's address goes with the request; the service's trustProxy decides what to make of it.
    void handle(req, res);
  });
  // A slow or silent client must not hold a socket forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(
      { port: options.port ?? 0, host: options.host ?? '127.0.0.1', backlog: options.backlog ?? 4096 },
      () => resolve(),
    );
  });
  const { port } = server.address() as AddressInfo;
  const host =
    options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // Maintenance, the fleet lease and the activity rollup, on timers (they log through the service).
  const stopDuties = service.startDuties({ maintainEveryMs: options.maintainEveryMs });
  let closing: Promise<void> | undefined;
  return {
    server,
    url,
    drain: (deadlineMs) => {
      const drained = service.drain(deadlineMs);
      server.closeIdleConnections();
      return drained;
    },
    close: () =>
      (closing ??= (async () => {
        stopDuties();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Ends every live answer (stored as stopped); their streams then end on their own.
        await service.close();
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
        await closed;
      })()),
  };
}
