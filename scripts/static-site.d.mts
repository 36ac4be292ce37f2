import type { IncomingMessage, ServerResponse } from 'node:http';

export interface StaticSite {
  url: string;
  /** Each request answered: `at` is when it arrived (ms since the epoch), `bytes` its body's length as sent. */
  requests: { method: string; path: string; status: number; at: number; bytes: number }[];
  /** Connections accepted so far, and those still open. */
  connections: { accepted: number; open: number };
  close(): Promise<void>;
}

export declare function serveFolder(
  mounts: string | Record<string, string>,
  options?: {
    routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
    /** Sees every request first; true when it answered it (a rate limit). */
    gate?: (req: IncomingMessage, res: ServerResponse) => boolean;
    /** Served over HTTPS with this key and certificate. */
    tls?: { key: string | Buffer; cert: string | Buffer };
  },
): Promise<StaticSite>;
