import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Plugin, ViteDevServer, PreviewServer } from 'vite';
import { createSessionHandler, ownerKey, toNodeHandler } from '../server/node.js';
import { nodeConsole, nodeWidgetRelease, scryptPasswords } from '../service/console-node.js';
import { readDocsFolder } from '../service/docs/folder.js';
import {
  type AccountStore,
  createAgentService,
  DemoAgent,
  DocsLibrary,
  systemClock,
} from '../service/index.js';
import { openStorage } from '../service/storage/open.js';

export const DEMO = {
  projectId: 'proj_demo',
  integrationId: 'int_demo',
  /** A made-up key for the in-process agent service; not a secret of any real account. */
  apiKey: 'demo-key-not-secret',
  servicePath: '/service',
  /** The embedded database: the demo's conversations survive a restart of `npm run demo`. */
  dataDir: '.data/demo',
  sessionPath: '/api/agent-session',
  /** What a site's page template would render into `owner-key` for the signed-in visitor. */
  ownerKeyPath: '/api/owner-key',
  ownerCookie: 'demo_user',
  owners: ['alice', 'bob'],
  /** The console's local account; its password is made on first run and kept beside the data. */
  consoleUser: 'dev',
} as const;

/** The demo's console account: created once with a random password kept in the (git-ignored) data folder. */
async function devAccount(accounts: AccountStore): Promise<string> {
  const file = `${DEMO.dataDir}/console-dev-password`;
  const existing = await readFile(file, 'utf8').catch(() => '');
  if (existing && (await accounts.getAdmin(DEMO.consoleUser))) return existing.trim();
  const password = randomBytes(12).toString('base64url');
  await mkdir(DEMO.dataDir, { recursive: true });
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  const passwordHash = await scryptPasswords.hash(password);
  if (!(await accounts.createAdmin({ username: DEMO.consoleUser, passwordHash, createdAt: Date.now() }))) {
    // An account from an older run whose password file is gone: nothing to print but how to reset.
    return '(unknown: delete .data/demo to start over)';
  }
  return password;
}

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
    return new Response(body, {
      headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-store' },
    });
  } catch {
    return new Response('Not found', { status: 404 });
  }
}

/**
 * `npm run demo`: the agent service at /service and a session endpoint built with
 * createSessionHandler at /api/agent-session, on the dev server's own origin. The
 * "signed in as" cookie plays the site owner's login; only that server-side code reads it.
 */
export function demoServices(): Plugin {
  async function mount(server: ViteDevServer | PreviewServer) {
    const storage = await openStorage({ dataDir: DEMO.dataDir });
    // A library with no sources: the demo agent answers from the widget's own articles until the
    // console's Sources page is given a site or folder, which is then what it answers from.
    // Its sources may be on this machine too, for the same reason as its webhooks (decision 650).
    const docs = new DocsLibrary({
      store: storage.docs,
      clock: systemClock,
      readFolder: readDocsFolder,
      network: { allowPrivate: true },
    });
    const service = createAgentService({
      projects: [{ id: DEMO.projectId, apiKey: DEMO.apiKey, integrationIds: [DEMO.integrationId] }],
      basePath: DEMO.servicePath,
      storage,
      agent: new DemoAgent({ wordDelayMs: 25 }),
      docs,
      // The demo's operator is the person at this machine: a webhook receiver of theirs on it is
      // what trying the Notifications page takes (decision 627).
      allowPrivateWebhooks: true,
      console: await nodeConsole(),
      widget: await nodeWidgetRelease(),
    });
    const password = await devAccount(storage.accounts);
    server.httpServer?.once('listening', () => {
      const address = server.httpServer?.address();
      const base = `http://127.0.0.1:${address && typeof address === 'object' ? address.port : 5173}`;
      server.config.logger.info(
        `  ➜  Console: ${base}${DEMO.servicePath}/console/  (sign in as ${DEMO.consoleUser} / ${password})`,
      );
    });
    server.httpServer?.once('close', () => void service.close());
    const signedIn = (request: Request) => {
      const owner = readCookie(request.headers.get('Cookie'), DEMO.ownerCookie);
      return owner && (DEMO.owners as readonly string[]).includes(owner) ? owner : null;
    };
    const sessionHandler = createSessionHandler({
      apiKey: DEMO.apiKey,
      projectId: DEMO.projectId,
      baseUrl: `http://127.0.0.1${DEMO.servicePath}`,
      getOwnerId: signedIn,
      // In process: the demo needs no second port, and the path is the same as over HTTP.
      fetch: (input, init) => service.handle(new Request(input, init)),
    });
    // toNodeHandler passes the socket's address to both, for their per-address limits.
    server.middlewares.use(DEMO.servicePath, toNodeHandler(service.handle));
    server.middlewares.use(DEMO.sessionPath, toNodeHandler(sessionHandler));
    // A real page renders this server-side (ownerKey() from agent-chat/server); the static demo asks for it.
    server.middlewares.use(
      DEMO.ownerKeyPath,
      toNodeHandler(async (request) =>
        Response.json({ ownerKey: await ownerKey(signedIn(request), DEMO.apiKey) }),
      ),
    );
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
