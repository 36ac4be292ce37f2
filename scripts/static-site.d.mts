import type { IncomingMessage, ServerResponse } from 'node:http';

export interface StaticSite {
  url: string;
  /** Each request answered: `at` is when it arrived (ms since the epoch), `bytes` its body's length as sent. */
  requests: { method: string; path: string; status: number; at: number; bytes: number }[];
  close(): Promise<void>;
}

export declare function serveFolder(
  mounts: string | Record<string, string>,
  options?: {
    routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
    /** Sees every request first; true when it answered it (a rate limit). */
    gate?: (req: IncomingMessage, res: ServerResponse) => boolean;
  },
): Promise<StaticSite>;
