import type { IncomingMessage, ServerResponse } from 'node:http';

export interface StaticSite {
  url: string;
  requests: { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

export declare function serveFolder(
  mounts: string | Record<string, string>,
  options?: { routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void> },
): Promise<StaticSite>;
