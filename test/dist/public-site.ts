import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DemoAgent,
  createAgentService,
  memoryStores,
  nodeWidgetRelease,
  serve,
  type RunningService,
  type Stores,
} from '../../service/node.js';
import { utcDay } from '../../service/kernel/clock.js';

export const PUBLIC = { projectId: 'proj_static', integrationId: 'int_static', apiKey: 'key_static' };

/** A plain HTTP server on its own origin: nothing but `html` at `/`, under `csp`. */
export async function listen(handler: (path: string) => { html: string; csp: string } | null) {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/favicon.ico') return void res.writeHead(204).end();
    const page = handler(path);
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': page.csp });
    res.end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A static site, as a docs generator or a hosted CMS publishes it: HTML pages and no server
 * code. `/` loads the widget from the service with its SRI hash, `/following` through
 * `/widget/latest/` with none (the tag that follows the service's upgrades), under a CSP that
 * allows scripts and connections from the service alone; neither names a session endpoint.
 */
export function staticSite(
  serviceOf: () => { url: string; version: string; integrity: string },
  lang = 'en',
) {
  return listen((path) => {
    if (path !== '/' && path !== '/following') return null;
    const service = serviceOf();
    const script =
      path === '/'
        ? `<script src="${service.url}/widget/${service.version}/agent-chat.iife.js" integrity="${service.integrity}" crossorigin="anonymous"></script>`
        : `<script src="${service.url}/widget/latest/agent-chat.iife.js" crossorigin="anonymous"></script>`;
    return {
      csp: `default-src 'self'; script-src ${service.url}; style-src 'self'; connect-src ${service.url}`,
      html: `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Docs</title>
${script}
</head><body><h1>Static docs</h1>
<agent-chat mode="inline" project-id="${PUBLIC.projectId}" integration-id="${PUBLIC.integrationId}" base-url="${service.url}"></agent-chat>
</body></html>`,
    };
  });
}

/**
 * The service with the widget release its build copied, on a free port: one public integration
 * whose only allowed origin is `allowedOrigin`; the directory read at every request, so a budget
 * set in the store holds at once.
 */
export async function startPublicService(allowedOrigin: string): Promise<{
  url: string;
  version: string;
  integrity: string;
  storage: Stores;
  running: RunningService;
}> {
  const widget = await nodeWidgetRelease();
  if (!widget) throw new Error('service/dist/widget is missing: run npm run build');
  const storage = memoryStores();
  const service = createAgentService({
    projects: [
      {
        id: PUBLIC.projectId,
        // The site owner's server has a key too (the integration's description, decision 464).
        apiKey: PUBLIC.apiKey,
        integrationIds: [PUBLIC.integrationId],
        allowedOrigins: [allowedOrigin],
        public: true,
      },
    ],
    storage,
    widget,
    agent: new DemoAgent({ wordDelayMs: 0 }),
    rateLimit: false,
    directoryCacheMs: 0,
  });
  const running = await serve(service, { port: 0, log: () => {} });
  return {
    url: running.url,
    version: widget.version,
    integrity: widget.sri['agent-chat.iife.js'],
    storage,
    running,
  };
}

/**
 * Sets the public integration's daily budget in the store (the console's Save does the same) to
 * today's use plus `more`: what the earlier tests spent stays spent.
 */
export async function allowMore(storage: Stores, more: { sessions: number; answers: number }) {
  const used = (await storage.gate.budgetUse(PUBLIC.projectId, utcDay(Date.now()))).get(PUBLIC.integrationId);
  const budget = {
    sessions: (used?.sessions ?? 0) + more.sessions,
    answers: (used?.answers ?? 0) + more.answers,
  };
  await storage.directory.updateIntegration(PUBLIC.projectId, PUBLIC.integrationId, { budget });
}
