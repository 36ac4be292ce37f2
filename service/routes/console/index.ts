/** The console at `/console/`: its JSON API (one file per resource) and its built pages. */
import type { RequestInfo, ServiceContext } from '../context.js';
import type { StoreRole } from '../../storage/types.js';
import { HttpError, notFound } from '../../http/errors.js';
import { consoleActivity } from './activity.js';
import { listAudit } from './audit.js';
import { currentSession, signIn, signOut } from './auth.js';
import { getConversation, listConversations } from './conversations.js';
import { installInfo } from './install.js';
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

export const CONSOLE = '/console';

type Handler = (
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
  ...params: string[]
) => Promise<Response>;

const ID = '([^/]+)';
const P = `/api/projects/${ID}`;
const API: { pattern: RegExp; methods: Record<string, Handler> }[] = [
  { pattern: /^\/api\/session$/, methods: { GET: currentSession, POST: signIn, DELETE: signOut } },
  { pattern: /^\/api\/projects$/, methods: { GET: listProjects, POST: createProject } },
  { pattern: new RegExp(`^${P}$`), methods: { PATCH: renameProject, DELETE: deleteProject } },
  { pattern: new RegExp(`^${P}/integrations$`), methods: { POST: createIntegration } },
  {
    pattern: new RegExp(`^${P}/integrations/${ID}$`),
    methods: { PATCH: updateIntegration, DELETE: deleteIntegration },
  },
  { pattern: new RegExp(`^${P}/keys$`), methods: { GET: listKeys, POST: createKey } },
  { pattern: new RegExp(`^${P}/keys/${ID}$`), methods: { DELETE: revokeKey } },
  { pattern: new RegExp(`^${P}/keys/${ID}/rotate$`), methods: { POST: rotateKey } },
  { pattern: new RegExp(`^${P}/activity$`), methods: { GET: consoleActivity } },
  { pattern: new RegExp(`^${P}/conversations$`), methods: { GET: listConversations } },
  { pattern: new RegExp(`^${P}/conversations/${ID}$`), methods: { GET: getConversation } },
  { pattern: /^\/api\/audit$/, methods: { GET: listAudit } },
  { pattern: /^\/api\/install$/, methods: { GET: installInfo } },
];

/**
 * The pages' policy: scripts and styles from this origin only (Lit's constructed stylesheets
 * need no 'unsafe-inline'), no framing, no third-party request of any kind.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw notFound();
  }
}

/** `path` is what follows `/console`. */
export async function consoleRoute(
  ctx: ServiceContext<StoreRole>,
  request: Request,
  info: RequestInfo,
  path: string,
): Promise<Response> {
  if (!ctx.console) throw notFound('The console is not enabled on this service.');
  const response = path.startsWith('/api/')
    ? await api(ctx, request, info, path.replace(/\/+$/, ''))
    : await page(ctx, request, path);
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
  for (const { pattern, methods } of API) {
    const match = pattern.exec(path);
    if (!match) continue;
    const handler = methods[request.method];
    if (!handler)
      throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed here.`, {
        Allow: Object.keys(methods).join(', '),
      });
    try {
      return await handler(ctx, request, info, ...match.slice(1).map(decode));
    } catch (error) {
      if (error instanceof HttpError) return error.toResponse();
      throw error;
    }
  }
  return notFound().toResponse();
}

/** Built files under /console/assets/ (hashed names: cached for good); any other path is the app's page. */
async function page(ctx: ServiceContext, request: Request, path: string): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD')
    throw new HttpError(405, 'method_not_allowed', 'Pages are read with GET.', { Allow: 'GET, HEAD' });
  if (path === '')
    return new Response(null, { status: 308, headers: { Location: `${ctx.basePath}${CONSOLE}/` } });
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
