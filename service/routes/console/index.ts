/** The console at `/console/`: its JSON API (one file per resource) and its built pages. */
import { CONSOLE_API, consolePaths } from '../../../contract/console.js';
import { SLOT, findRoute, routeTable } from '../../http/route-table.js';
import type { RequestInfo, RouteHandler, ServiceContext } from '../context.js';
import type { StoreRole } from '../../storage/types.js';
import { HttpError, notFound } from '../../http/errors.js';
import { consoleActivity } from './activity.js';
import {
  addConsoleAdmin,
  changeAdminRole,
  changeOwnPassword,
  endOtherSessions,
  listAdmins,
  removeConsoleAdmin,
} from './admins.js';
import { listAudit } from './audit.js';
import { currentSession, signIn, signOut } from './auth.js';
import {
  deleteConsoleConversation,
  eraseConversationOwner,
  getConversation,
  getConversationOwner,
} from './conversations.js';
import { listOrExportConversations } from './conversation-export.js';
import { getConsoleFile, getFileSettings, putFileSettings } from './files.js';
import {
  addSource,
  changeSource,
  listSources,
  staleConversations,
  putSynonyms,
  recrawlSource,
  removeSource,
  searchDocs,
} from './docs.js';
import { installInfo } from './install.js';
import { widgetReleases } from './widget-releases.js';
import { createKey, listKeys, revokeKey, rotateKey } from './keys.js';
import {
  createIntegration,
  createProject,
  deleteIntegration,
  deleteProject,
  listProjects,
  renameProject,
  updateIntegration,
} from './projects.js';
import { createWebhook, deleteWebhook, listWebhooks, testWebhook } from './webhooks.js';

export const CONSOLE = '/console';

/** Every route of the console's API and its handlers by method (each guards itself: requireAdmin). */
export const CONSOLE_ROUTES: [path: string, methods: Record<string, RouteHandler>][] = [
  [consolePaths.session, { GET: currentSession, POST: signIn, DELETE: signOut }],
  [consolePaths.otherSessions, { DELETE: endOtherSessions }],
  [consolePaths.admins, { GET: listAdmins, POST: addConsoleAdmin }],
  [consolePaths.admin(SLOT), { PATCH: changeAdminRole, DELETE: removeConsoleAdmin }],
  [consolePaths.password, { PUT: changeOwnPassword }],
  [consolePaths.projects, { GET: listProjects, POST: createProject }],
  [consolePaths.project(SLOT), { PATCH: renameProject, DELETE: deleteProject }],
  [consolePaths.integrations(SLOT), { POST: createIntegration }],
  [consolePaths.integration(SLOT, SLOT), { PATCH: updateIntegration, DELETE: deleteIntegration }],
  [consolePaths.keys(SLOT), { GET: listKeys, POST: createKey }],
  [consolePaths.key(SLOT, SLOT), { DELETE: revokeKey }],
  [consolePaths.keyRotation(SLOT, SLOT), { POST: rotateKey }],
  [consolePaths.activity(SLOT), { GET: consoleActivity }],
  [consolePaths.conversations(SLOT), { GET: listOrExportConversations }],
  [consolePaths.conversation(SLOT, SLOT), { GET: getConversation, DELETE: deleteConsoleConversation }],
  [consolePaths.conversationOwner(SLOT, SLOT), { GET: getConversationOwner, DELETE: eraseConversationOwner }],
  [consolePaths.integrationFiles(SLOT, SLOT), { GET: getFileSettings, PUT: putFileSettings }],
  [consolePaths.file(SLOT, SLOT), { GET: getConsoleFile }],
  [consolePaths.audit, { GET: listAudit }],
  [consolePaths.install, { GET: installInfo }],
  [consolePaths.widgetReleases, { GET: widgetReleases }],
  [consolePaths.docsSources(SLOT), { GET: listSources, POST: addSource }],
  [consolePaths.docsSource(SLOT, SLOT), { PATCH: changeSource, DELETE: removeSource }],
  [consolePaths.docsCrawl(SLOT, SLOT), { POST: recrawlSource }],
  [consolePaths.docsSearch(SLOT), { GET: searchDocs }],
  [consolePaths.docsSynonyms(SLOT), { PUT: putSynonyms }],
  [consolePaths.docsStale(SLOT), { GET: staleConversations }],
  [consolePaths.webhooks(SLOT), { GET: listWebhooks, POST: createWebhook }],
  [consolePaths.webhook(SLOT, SLOT), { DELETE: deleteWebhook }],
  [consolePaths.webhookTest(SLOT, SLOT), { POST: testWebhook }],
];

const API = routeTable<RouteHandler>(CONSOLE_API, CONSOLE_ROUTES);

/**
 * The pages' policy: scripts and styles from this origin only (Lit's constructed stylesheets
 * need no 'unsafe-inline'), no framing, no third-party request of any kind, Trusted Types
 * enforced (the console's pages hold visitors' words and agents' answers).
 */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // blob: for the thumbnails of visitors' images, fetched with the admin's session and shown from memory.
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  // No string reaches an HTML or script sink; Lit's policy, which makes its templates, is the only one.
  "require-trusted-types-for 'script'",
  'trusted-types lit-html',
].join('; ');

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  // No other site's window keeps a handle on a console tab, and no other site's page may load
  // its answers (visitors' files among them) as an image, a script or a media element.
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw notFound();
  }
}

/** `path`: the request's path under the service's base path, `/console` or below it. */
export async function consoleRoute(
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
  path: string,
): Promise<Response> {
  if (!ctx.console) throw notFound('The console is not enabled on this service.');
  const response = path.startsWith(`${CONSOLE_API}/`)
    ? await api(ctx, request, info, path.replace(/\/+$/, ''))
    : await page(ctx, request, path.slice(CONSOLE.length));
  // Same origin only: the agent API's open CORS never applies here.
  response.headers.delete('Access-Control-Allow-Origin');
  response.headers.delete('Access-Control-Expose-Headers');
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

async function api(
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
  path: string,
): Promise<Response> {
  try {
    const found = findRoute(API, request.method, path);
    if (!found) return notFound().toResponse();
    return await found.handler(ctx, request, info, ...found.params.map(decode));
  } catch (error) {
    if (error instanceof HttpError) return error.toResponse();
    throw error;
  }
}

/** Built files under /console/assets/ (hashed names: cached for good); any other path is the app's page. */
async function page(ctx: ServiceContext, request: Request, path: string): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new HttpError(405, 'method_not_allowed', 'Pages are read with GET.', { Allow: 'GET, HEAD' });
  if (path === '')
    // Relative: a proxy that serves the service under a path of its own keeps it.
    return new Response(null, { status: 308, headers: { Location: `${CONSOLE.slice(1)}/` } });
  const asset = /^\/(assets\/[\w.-]+)$/.exec(path);
  const file = await ctx.console!.files?.(asset ? asset[1] : 'index.html');
  if (!file) {
    if (asset) throw notFound();
    return new Response('The console pages are not built: run `npm run build` in agent-chat-service.', {
      status: 503,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    });
  }
  return new Response(request.method === 'HEAD' ? null : (file.body as NonNullable<RequestInit['body']>), {
    headers: {
      'Content-Type': file.type,
      'Cache-Control': asset ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...(!asset && { 'Content-Security-Policy': CONSOLE_CSP }),
    },
  });
}
