import { readFile } from 'node:fs/promises';
import type { Plugin } from 'vite';
import { createSessionHandler, toNodeHandler } from '../server/node.js';
import { createReferenceService, DemoAgent } from '../service/index.js';
import { openStorage } from '../service/storage/open.js';

export const DEMO = {
  projectId: 'proj_demo',
  integrationId: 'int_demo',
  /** A made-up key for the in-process reference service; not a secret of any real account. */
  apiKey: 'demo-key-not-secret',
  servicePath: '/service',
  /** The embedded database: the demo's conversations survive a restart of `npm run demo`. */
  dataDir: '.data/demo',
  sessionPath: '/api/agent-session',
  ownerCookie: 'demo_user',
  owners: ['alice', 'bob'],
} as const;

function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/**
 * The built files as a site owner's server sends them. Vite's dev server would treat a `.js`
 * under the project as a module and rewrite its `import()` with a static helper import, which a
 * classic `<script src>` (the CMS page) cannot run.
 */
async function serveBuiltFile(request: Request): Promise<Response> {
  const name = new URL(request.url).pathname.replace(/^(\/dist)?\/+/, '');
  if (!/^[\w.-]+\.js$/.test(name)) return new Response('Not found', { status: 404 });
  try {
    const body = await readFile(new URL(`../dist/${name}`, import.meta.url));
    return new Response(body, { headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' } });
  } catch {
    return new Response('Not found', { status: 404 });
  }
}

/**
 * `npm run demo`: the reference service at /service and a session endpoint built with
 * createSessionHandler at /api/agent-session, on the dev server's own origin. The
 * "signed in as" cookie plays the site owner's login; only that server-side code reads it.
 */
export function demoServices(): Plugin {
  async function mount(server: { middlewares: { use: (path: string, handler: ReturnType<typeof toNodeHandler>) => void }; httpServer?: { once(event: 'close', fn: () => void): unknown } | null }) {
    const service = createReferenceService({
      projects: [{ id: DEMO.projectId, apiKey: DEMO.apiKey, integrationIds: [DEMO.integrationId] }],
      basePath: DEMO.servicePath,
      storage: await openStorage({ dataDir: DEMO.dataDir }),
      agent: new DemoAgent({ wordDelayMs: 25 }),
    });
    server.httpServer?.once('close', () => void service.close());
    const sessionHandler = createSessionHandler({
      apiKey: DEMO.apiKey,
      projectId: DEMO.projectId,
      baseUrl: `http://127.0.0.1${DEMO.servicePath}`,
      getOwnerId: (request) => {
        const owner = readCookie(request.headers.get('Cookie'), DEMO.ownerCookie);
        return owner && (DEMO.owners as readonly string[]).includes(owner) ? owner : null;
      },
      // In process: the demo needs no second port, and the path is the same as over HTTP.
      fetch: (input, init) => service.handle(new Request(input, init)),
    });
    // toNodeHandler passes the socket's address to both, for their per-address limits.
    server.middlewares.use(DEMO.servicePath, toNodeHandler(service.handle));
    server.middlewares.use(DEMO.sessionPath, toNodeHandler(sessionHandler));
    server.middlewares.use('/dist', toNodeHandler(serveBuiltFile));
  }
  return {
    name: 'agent-chat-demo-services',
    async configureServer(server) {
      if (!process.env.VITEST) await mount(server);
    },
    configurePreviewServer: mount,
  };
}
